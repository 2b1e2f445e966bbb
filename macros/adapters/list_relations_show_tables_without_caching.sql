{% macro list_relations_show_tables_without_caching(schema_relation) %}
    {#-
        dbt-spark's second way of listing a schema, which its list_relations_without_caching
        takes where `show table extended` fails ("SHOW TABLE EXTENDED is not supported for v2
        tables": a schema of a catalog of Iceberg's own, SparkCatalog, such as a hadoop, REST or
        JDBC catalog made the default with spark.sql.defaultCatalog). Its `show tables` lists
        no view of such a catalog, so dbt took an existing view for missing: a view model
        changed to a table failed (Iceberg's AlreadyExistsException: "View with same name
        already exists"), the view materialization never dropped the view it replaced, and
        `dbt docs generate` left the views out. The schema's own views (`show views`; a
        catalog without views lists none) are added; temporary views are not the schema's.
        Same rows as dbt-spark's: (namespace, name, is_temporary).
    -#}
    {% call statement('list_relations_without_caching_show_tables', fetch_result=True) -%}
        show tables in {{ schema_relation.schema }} like '*'
    {% endcall %}
    {% set rows = [] %}
    {% set names = [] %}
    {% for row in load_result('list_relations_without_caching_show_tables').table %}
        {% do rows.append([row[0], row[1], row[2]]) %}
        {% do names.append(row[1] | lower) %}
    {% endfor %}
    {% call statement('list_relations_without_caching_show_views', fetch_result=True) -%}
        show views in {{ schema_relation.schema }} like '*'
    {% endcall %}
    {% for row in load_result('list_relations_without_caching_show_views').table
            if not row[2] and row[1] | lower not in names %}
        {% do rows.append([row[0], row[1], row[2]]) %}
    {% endfor %}
    {% do return(rows) %}
{% endmacro %}
