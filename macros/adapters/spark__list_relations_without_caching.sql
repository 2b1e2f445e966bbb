{% macro spark__list_relations_without_caching(relation) %}
    {#-
        Iceberg tables reached through the session catalog (SparkSessionCatalog, type=hive)
        report `Provider: hive` in `show table extended`, with `table_type=ICEBERG` among the
        table properties. dbt-spark looks only for `Provider: iceberg`, so it takes an existing
        Iceberg snapshot for a Hive table and the second `dbt snapshot` fails with "is in
        another format than 'delta' or 'iceberg' or 'hudi'".
        Upstream: https://github.com/dbt-labs/dbt-adapters/issues/489
        Fix: add the line dbt-spark looks for to the information column of such tables. The
        adapter unpacks each row as (schema, name, is_temporary, information), so a list of
        4-item rows serves as well as the agate table.
    -#}
    {% call statement('list_relations_without_caching', fetch_result=True) -%}
        show table extended in {{ relation.schema }} like '*'
    {% endcall %}

    {% set rows = [] %}
    {% for row in load_result('list_relations_without_caching').table %}
        {% set information = row[3] or '' %}
        {#- An Iceberg view says table_type=ICEBERG-VIEW: marked as an Iceberg table too, a
            view that became a table model was not dropped, and Iceberg refused the table
            (AlreadyExistsException: View with same name already exists). -#}
        {% if modules.re.search('table_type=iceberg(?![-a-z0-9_])', information, modules.re.I)
                and 'Provider: iceberg' not in information %}
            {% set information = information ~ '\nProvider: iceberg\n' %}
        {% endif %}
        {% do rows.append([row[0], row[1], row[2], information]) %}
    {% endfor %}
    {% do return(rows) %}
{% endmacro %}
