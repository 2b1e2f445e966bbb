{% macro _scd2_full_type_texts() -%}
    {#-
        Spark writes a struct of more than `spark.sql.debug.maxToStringFields` fields (25 by
        default) as `struct<f0:int,...,f23:int,... 6 more fields>` in `describe`, whose types
        the runs read, compare, check for maps and write back as `cast(null as <type>)`: a
        JSON source's struct of 30 fields made a new column's rewrite fail with a parse error,
        hid a map past the 24th field from the check that refuses maps in check_cols, and
        hid a retyped field from the type-change check. The limit is raised for the session
        (it only sizes the texts Spark writes of types and plans) before the run reads a type.
    -#}
    {%- if execute -%}
        {% do scd2_audit._scd2_run_sql('set spark.sql.debug.maxToStringFields=100000') %}
    {%- endif -%}
{%- endmacro %}
