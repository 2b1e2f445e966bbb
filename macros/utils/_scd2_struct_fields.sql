{% macro _scd2_struct_fields(type) -%}
    {#-
        The fields of a Spark struct type as `describe` writes it (struct<t:date,lsn:bigint>,
        struct<a:decimal(10,2),b:array<struct<c:int>>>): a list of [lower-case name, type]
        pairs, split at the commas outside any <> or (); none when `type` is not a struct.
        Reads the types of the struct columns an scd2_events table derives from the events'
        columns (its positions and previous key), without a statement.
    -#}
    {%- set text = (type or '') | lower | replace(' ', '') -%}
    {%- if not (text.startswith('struct<') and text.endswith('>')) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set body = text[7:-1] -%}
    {%- set parts = scd2_audit._scd2_split_top_level(body, '<(', '>)') -%}
    {%- set fields = [] -%}
    {%- for part in parts if ':' in part -%}
        {%- set name, field_type = part.split(':', 1) -%}
        {%- do fields.append([name | replace('`', ''), field_type]) -%}
    {%- endfor -%}
    {{ return(fields) }}
{%- endmacro %}
