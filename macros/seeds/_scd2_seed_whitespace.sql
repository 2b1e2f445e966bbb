{% macro _scd2_seed_whitespace() -%}
    {#-
        Python's whitespace (`str.strip`, which agate applies before typing a cell) as a Java
        regular-expression class, escaped for a Spark SQL string literal. Wider than Spark's
        `trim` (spaces only) and than Java's `\s` (ASCII only).
    -#}
    {{- return(
        '[\\\\t-\\\\r\\\\x1c-\\\\x20\\\\x85\\\\xa0\\\\x{1680}\\\\x{2000}-\\\\x{200a}'
        ~ '\\\\x{2028}\\\\x{2029}\\\\x{202f}\\\\x{205f}\\\\x{3000}]'
    ) -}}
{%- endmacro %}
