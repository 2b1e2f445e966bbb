{% macro _scd2_integer_types() -%}
    {#-
        Spark's integer types, each with its largest value, under each name Spark gives them
        (in DDL and in `describe`): the one list for the type rule (_scd2_type_change), the
        checks of integers going into a floating-point type (_scd2_rounds_integers,
        _scd2_count_input_values) and
        the advice on fractions (_scd2_type_change_advice). A type whose largest value lies
        within a floating-point type's exact bound (_scd2_exact_integer_bound) needs no
        check there: Spark 3.5 also fails its optimizer on such a check of an int column
        against a bound beyond the int range (INTERNAL_ERROR, "assertion failed").
    -#}
    {{ return({
        'tinyint': 127, 'byte': 127, 'smallint': 32767, 'short': 32767,
        'int': 2147483647, 'integer': 2147483647,
        'bigint': 9223372036854775807, 'long': 9223372036854775807,
    }) }}
{%- endmacro %}
