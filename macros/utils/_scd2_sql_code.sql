{% macro _scd2_sql_code(sql) -%}
    {#-
        `sql` with its string literals ('...', "...") and comments (-- ..., /* ... */) each
        blanked to one space, so that a search finds only what the statement itself names: a
        ref() inside a `-- depends_on:` comment or a quoted label is read by nothing. Scanned
        left to right, so a quote inside a comment or `--` inside a string is taken as what
        encloses it.
    -#}
    {{- return(modules.re.sub(
        "'(?:[^'\\\\]|\\\\.)*'|\"(?:[^\"\\\\]|\\\\.)*\"|--[^\\n]*|/\\*.*?\\*/",
        ' ', sql, flags=modules.re.DOTALL)) -}}
{%- endmacro %}
