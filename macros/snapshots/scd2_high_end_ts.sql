{% macro scd2_high_end_ts() -%}
    {{ return(adapter.dispatch('scd2_high_end_ts', 'scd2_lakehouse')()) }}
{%- endmacro %}

{% macro default__scd2_high_end_ts() -%}
    {#-
        SQL for the high-end timestamp of open versions (project var `scd2_high_end_ts`).
        The literal carries its zone (UTC): a bare '9999-12-31 23:59:59' would be read in the
        Spark session time zone, and the same run under two session time zones would store two
        different instants.
    -#}
    {%- set value = var('scd2_high_end_ts', '9999-12-31 23:59:59') | string | trim -%}
    {%- if not modules.re.match('^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2}(\.\d{1,6})?)?$', value) -%}
        {{ exceptions.raise_compiler_error(
            "var 'scd2_high_end_ts' must look like 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS', got '"
            ~ value ~ "'. Fix it in dbt_project.yml (vars) or in --vars.") }}
    {%- endif -%}
    {{ return("timestamp '" ~ value ~ " UTC'") }}
{%- endmacro %}
