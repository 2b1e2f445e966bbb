{% macro _scd2_timestamp_sql(value) -%}
    {#-
        A moment for scd2_as_of, as SQL. An ISO 8601 date or date and time becomes a timestamp
        literal with its zone, UTC when it has none (_scd2_utc_timestamp_sql, as
        scd2_high_end_ts(): the session time zone cannot shift it); anything else is taken as
        a SQL timestamp expression as it is, e.g. current_timestamp(),
        `timestamp '2024-01-01 12:00:00 Europe/Paris'`, or a column.
    -#}
    {%- set text = '' if value is none else value | string | trim -%}
    {%- if not text -%}
        {{ exceptions.raise_compiler_error("scd2_as_of: the as-of moment is empty.") }}
    {%- endif -%}
    {{ return(scd2_audit._scd2_utc_timestamp_sql(text) or text) }}
{%- endmacro %}
