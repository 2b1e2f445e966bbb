{% macro _scd2_column_list(value) -%}
    {#-
        A config value that names one column or a list of them (unique_key, event_order_by,
        ...) as a list of trimmed names; none gives [].
    -#}
    {%- set values = (value if value is not string and value | is_list else [value])
        if value is not none else [] -%}
    {{ return(values | reject('none') | map('trim') | list) }}
{%- endmacro %}
