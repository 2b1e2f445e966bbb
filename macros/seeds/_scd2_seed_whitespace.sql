{% macro _scd2_seed_whitespace(form='class') -%}
    {#-
        Python's whitespace (`str.isspace`: what `str.strip` takes off, which agate applies
        before typing a cell and dbt before hashing a seed's file), escaped for a Spark SQL
        string literal. Wider than Spark's `trim` (spaces only) and than Java's `\s` (ASCII
        only). `form`:
        - 'class': a Java regular-expression class;
        - 'chars': every such character, one after the other (for `btrim`'s set).
    -#}
    {%- set ranges = [
        [9, 13], [28, 32], [133, 133], [160, 160], [5760, 5760], [8192, 8202], [8232, 8233],
        [8239, 8239], [8287, 8287], [12288, 12288],
    ] -%}
    {%- set parts = [] -%}
    {%- for low, high in ranges -%}
        {%- if form == 'chars' -%}
            {%- for code in range(low, high + 1) -%}
                {%- do parts.append('\\u%04x' | format(code)) -%}
            {%- endfor -%}
        {%- else -%}
            {%- do parts.append('\\\\x{%x}' | format(low)
                ~ ('-\\\\x{%x}' | format(high) if high != low else '')) -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(parts | join('') if form == 'chars' else '[' ~ parts | join('') ~ ']') -}}
{%- endmacro %}
