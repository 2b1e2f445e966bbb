{% macro _scd2_seed_excerpt_sql(text) -%}
    {#-
        SQL that gives the text `text` (an expression) as a seed's failure message quotes it:
        its first 200 characters, followed by `...` where it is longer, so that a cell or a
        record of hundreds of kilobytes does not fill the message (dbt prints it three times),
        and a cut value is not read as a whole one. One function call, holding the text once
        (an `if` of `length`, `left` and `concat` held it three times, three calls deep): a
        seed's select has an excerpt in every typed column's message, and its size and depth
        are what Spark's analysis pays for (_scd2_seed_select). `.` counts characters (code
        points), as `left` does.
    -#}
    {{- return("regexp_replace(" ~ text ~ ", '(?s)^(.{200}).+', '$1...')") -}}
{%- endmacro %}
