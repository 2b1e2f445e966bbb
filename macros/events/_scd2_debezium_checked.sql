{% macro _scd2_debezium_checked(decoded, expression, what) -%}
    {#-
        `decoded`, failing the query where it is NULL and `expression` (the JSON's text) is
        not: Spark's casts and unbase64 give NULL for text they cannot read, which would
        load a NULL in place of a value. The message names the field and the value.
    -#}
    {%- set message = 'scd2_debezium_events: ' ~ expression ~ ' holds the value ' -%}
    {%- set reason = ', which does not read as ' ~ what ~ ' (as the field schema of its line'
        ~ ' says). Fix the line, or convert the field yourself in a select over the'
        ~ ' relation.' -%}
    {{ return('coalesce(' ~ decoded ~ ', if(' ~ expression ~ ' is null, null, raise_error('
        ~ 'concat(' ~ scd2_audit._scd2_sql_string(message) ~ ', to_json(array('
        ~ expression ~ ')), ' ~ scd2_audit._scd2_sql_string(reason) ~ '))))') }}
{%- endmacro %}
