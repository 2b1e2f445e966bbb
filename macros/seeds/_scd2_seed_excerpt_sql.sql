{% macro _scd2_seed_excerpt_sql(text) -%}
    {#-
        SQL that gives the text `text` (an expression) as a seed's failure message quotes it:
        its first 200 characters, followed by `...` where it is longer, so that a cell or a
        record of hundreds of kilobytes does not fill the message (dbt prints it three times),
        and a cut value is not read as a whole one.
    -#}
    {{- return(
        "if(length(" ~ text ~ ") > 200, concat(left(" ~ text ~ ", 200), '...'), " ~ text ~ ")"
    ) -}}
{%- endmacro %}
