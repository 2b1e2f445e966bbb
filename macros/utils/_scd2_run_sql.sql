{% macro _scd2_run_sql(sql) -%}
    {#-
        Runs a statement that returns no rows (DDL, a MERGE, `reset`) without fetching its
        result: dbt's run_query fetches, and through the Thrift server (PyHive) fetching a
        statement without a result set fails with "'NoneType' object is not iterable".
    -#}
    {% call statement('scd2_run_sql', auto_begin=False) -%}
        {{ sql }}
    {%- endcall %}
{%- endmacro %}
