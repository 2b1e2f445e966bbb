{% macro _scd2_named_struct(columns, names=none, prefix=none) -%}
    {#-
        `named_struct('<name>', <prefix>.<column>, ...)`: a list of columns as one struct
        value, for comparing, ordering and storing them together (Spark compares structs
        field by field and treats NULL fields as equal). `names` renames the fields (e.g. an
        old key's columns as the key's names); with no columns, a constant one-field struct.
    -#}
    {%- set qualifier = (prefix ~ '.') if prefix else '' -%}
    {%- set field_names = names if names is not none else columns -%}
    {%- if not columns -%}{{ return("named_struct('scd2_none', true)") }}{%- endif -%}
    {%- set fields = [] -%}
    {%- for column in columns -%}
        {%- do fields.append("'" ~ field_names[loop.index0] ~ "', " ~ qualifier ~ column) -%}
    {%- endfor -%}
    {{ return('named_struct(' ~ fields | join(', ') ~ ')') }}
{%- endmacro %}
