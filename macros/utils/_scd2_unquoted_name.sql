{% macro _scd2_unquoted_name(name) -%}
    {#-
        A column name as a config gives it, without Spark's quotes: dbt writes unique_key,
        updated_at and check_cols into its SQL as given, so a name that needs quoting is
        given quoted (`e-Mail`, with `` for a backtick inside). Trimmed; anything else is
        returned as it is: a name without quotes, and an expression that starts and ends
        with a quoted name (`a` || `b`), whose backticks inside are not doubled.
    -#}
    {%- set name = name | trim -%}
    {%- if name | length > 1 and name.startswith('`') and name.endswith('`')
            and '`' not in name[1:-1] | replace('``', '') -%}
        {{ return(name[1:-1] | replace('``', '`')) }}
    {%- endif -%}
    {{ return(name) }}
{%- endmacro %}
