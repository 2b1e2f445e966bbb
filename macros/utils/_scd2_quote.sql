{% macro _scd2_quote(name) -%}
    {#-
        `name` as a Spark identifier in backticks, a backtick inside it doubled: any column
        name a file or a source may hold (dbt-spark's adapter.quote leaves a backtick as it
        is, which breaks the statement).
    -#}
    {{- return('`' ~ name | replace('`', '``') ~ '`') -}}
{%- endmacro %}
