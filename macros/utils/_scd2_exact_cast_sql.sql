{% macro _scd2_exact_cast_sql(column, integer_type, float_type, message) -%}
    {#-
        SQL casting the integer `column` (of `integer_type`) to the floating-point
        `float_type`, whose values a count found within the bound up to which that type holds
        every integer: where a value of that integer type could lie beyond
        (_scd2_rounds_integers), each value is checked again, and one beyond fails the query
        with `message` (the rows changed since the count) rather than be rounded.
    -#}
    {%- set cast = 'cast(' ~ column ~ ' as ' ~ float_type ~ ')' -%}
    {%- if not scd2_audit._scd2_rounds_integers(integer_type, float_type) -%}
        {{ return(cast) }}
    {%- endif -%}
    {%- set bound = scd2_audit._scd2_exact_integer_bound(float_type) -%}
    {{ return('case when ' ~ column ~ ' is null or ' ~ column ~ ' between -' ~ bound ~ ' and '
        ~ bound ~ ' then ' ~ cast ~ ' else raise_error('
        ~ scd2_audit._scd2_sql_string(message) ~ ') end') }}
{%- endmacro %}
