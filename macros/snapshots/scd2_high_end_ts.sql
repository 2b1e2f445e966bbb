{% macro scd2_high_end_ts() -%}
    {{ return(adapter.dispatch('scd2_high_end_ts', 'scd2_audit')()) }}
{%- endmacro %}

{% macro default__scd2_high_end_ts() -%}
    {#-
        SQL for the high-end timestamp of open versions: var `scd2_high_end_ts`, default
        '9999-12-31 23:59:59', read as UTC (_scd2_utc_timestamp_sql).
    -#}
    {%- set value = var('scd2_high_end_ts', '9999-12-31 23:59:59') -%}
    {%- set literal = scd2_audit._scd2_utc_timestamp_sql(value) -%}
    {%- if literal is none -%}
        {{ exceptions.raise_compiler_error(
            "var 'scd2_high_end_ts' must look like 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS' (ISO "
            ~ "8601: a 'T', and 'Z' or an offset such as +02:00, are accepted too), got '"
            ~ value ~ "'. Fix it in dbt_project.yml (vars) or in --vars.") }}
    {%- endif -%}
    {{ return(literal) }}
{%- endmacro %}
