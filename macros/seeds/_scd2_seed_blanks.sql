{% macro _scd2_seed_blanks(around='line') -%}
    {#-
        The inside of a Java regular-expression class (for `[...]` or `[^...]`), escaped for a
        Spark SQL string literal, of what Spark treats as blank:
        - 'line': code points up to U+0020, which Java's `String.trim` takes off, and so
          Spark's CSV reader, which skips a line of them alone;
        - 'number': those and U+007F, which Spark's cast skips around a number.
        Narrower than Python's whitespace (_scd2_seed_whitespace), dbt's.
    -#}
    {{- return('\\\\x00-\\\\x20' ~ ('\\\\x7f' if around == 'number' else '')) -}}
{%- endmacro %}
