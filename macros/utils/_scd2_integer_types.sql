{% macro _scd2_integer_types() -%}
    {#-
        Spark's integer types by width (1 to 4), under each name Spark gives them (in DDL and
        in `describe`): the one list for the type rule (_scd2_type_change), the checks of
        integers going into a floating-point column (_scd2_assert_type_changes) and the advice
        on fractions (_scd2_type_change_advice).
    -#}
    {{ return({
        'tinyint': 1, 'byte': 1, 'smallint': 2, 'short': 2,
        'int': 3, 'integer': 3, 'bigint': 4, 'long': 4,
    }) }}
{%- endmacro %}
