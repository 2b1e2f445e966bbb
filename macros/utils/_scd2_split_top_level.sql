{% macro _scd2_split_top_level(text, opening='(', closing=')') -%}
    {#-
        `text` split at the commas that lie outside any bracket (`opening`/`closing`: the
        characters that open and close one, `(` and `)` by default) and outside quotes ('...',
        "...", `...`), the parts as written (not trimmed): `concat(a, ',', b), c` gives
        ['concat(a, \',\', b)', ' c']. The one splitter of a list written as SQL text: a
        struct type's fields (_scd2_struct_fields, brackets `<(` and `>)`) and a unique_key
        meant as several columns (_scd2_assert_snapshot_config).
    -#}
    {%- set parts = [] -%}
    {%- set state = namespace(depth=0, quote=none, start=0) -%}
    {%- for i in range(text | length) -%}
        {%- set char = text[i] -%}
        {%- if state.quote is not none -%}
            {%- if char == state.quote -%}{%- set state.quote = none -%}{%- endif -%}
        {%- elif char in ["'", '"', '`'] -%}
            {%- set state.quote = char -%}
        {%- elif char in opening -%}
            {%- set state.depth = state.depth + 1 -%}
        {%- elif char in closing -%}
            {%- set state.depth = state.depth - 1 -%}
        {%- elif char == ',' and state.depth == 0 -%}
            {%- do parts.append(text[state.start:i]) -%}
            {%- set state.start = i + 1 -%}
        {%- endif -%}
    {%- endfor -%}
    {%- do parts.append(text[state.start:]) -%}
    {{ return(parts) }}
{%- endmacro %}
