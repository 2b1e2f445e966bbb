{% macro _scd2_rounds_integers(integer_type, float_type) -%}
    {#-
        Whether a cast of `integer_type` into the floating-point `float_type` can round a
        value: the integer type's largest value lies beyond the bound up to which the float
        type holds every integer (_scd2_exact_integer_bound). Where it cannot, its values need
        no check (and Spark 3.5's optimizer fails on a check of an int column against a bound
        beyond the int range, _scd2_integer_types).
    -#}
    {%- set bound = scd2_audit._scd2_exact_integer_bound(float_type) -%}
    {{ return(bound is not none
        and scd2_audit._scd2_integer_types()[integer_type | lower] > bound) }}
{%- endmacro %}
