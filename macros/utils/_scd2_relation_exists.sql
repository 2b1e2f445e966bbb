{% macro _scd2_relation_exists(relation) -%}
    {#-
        Whether the table or view `relation` names exists: true or false, or none where it
        cannot be asked (a string, a unit test's fixture or an ephemeral model's CTE, a
        relation without a schema). Asked by name (`show namespaces ... like`, `show tables
        ... like`), not through dbt's relation cache, which would list a source's whole schema
        (and fail on a view there that the metastore cannot read back).
    -#}
    {%- set table = scd2_audit._scd2_table_relation(relation) -%}
    {%- if table is none or scd2_audit._scd2_fixture_name(table) or not table.schema -%}
        {{ return(none) }}
    {%- endif -%}
    {#- A schema with a catalog in it (`spark_catalog.raw`, as a source may name one, since
        dbt-spark takes no `database`): its namespace is asked of that catalog, each part
        quoted; `show databases` lists the current catalog's only. A catalog the session has
        not loaded (`show catalogs` lists the loaded ones) is taken for one without it: it
        holds nothing to refresh. -#}
    {%- set parts = table.schema.split('.') -%}
    {%- set quoted_parts = [] -%}
    {%- for part in parts -%}
        {%- do quoted_parts.append(scd2_audit._scd2_quote(part)) -%}
    {%- endfor -%}
    {#- Spark's `like` compares names without regard to case, as Spark resolves them
        (dbt-spark's check_schema_exists does not: a schema configured `MySchema`, listed
        `myschema`, was taken for missing, and its sources were not refreshed). -#}
    {%- if parts | length > 1 -%}
        {%- set schema_exists = run_query('show catalogs like '
                ~ scd2_audit._scd2_sql_string(parts[0])).rows | length > 0
            and run_query('show namespaces in ' ~ quoted_parts[0] ~ ' like '
                ~ scd2_audit._scd2_sql_string(parts[1:] | join('.'))).rows | length > 0 -%}
    {%- else -%}
        {%- set schema_exists = run_query('show namespaces like '
            ~ scd2_audit._scd2_sql_string(table.schema)).rows | length > 0 -%}
    {%- endif -%}
    {%- if not schema_exists -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set found = run_query('show tables in ' ~ quoted_parts | join('.')
        ~ ' like ' ~ scd2_audit._scd2_sql_string(table.identifier)) -%}
    {{ return(found.rows | length > 0) }}
{%- endmacro %}
