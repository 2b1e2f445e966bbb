{% macro _scd2_exact_integer_bound(type) -%}
    {#-
        The bound up to which a floating-point `type` holds every integer exactly (2^53 for a
        double, 2^24 for a float: past it, a cast rounds some of them), or none for any other
        type.
    -#}
    {{ return({'double': 9007199254740992, 'float': 16777216}.get(type | lower | trim)) }}
{%- endmacro %}
