{% macro _scd2_timestamp_sql(value) -%}
    {#-
        A moment for scd2_as_of, as SQL. An ISO 8601 date or date and time becomes a timestamp
        literal with its zone, UTC when it has none (_scd2_utc_timestamp_sql, as
        scd2_high_end_ts(): the session time zone cannot shift it); anything else is taken as
        a SQL timestamp expression as it is, e.g. current_timestamp(),
        `timestamp '2024-01-01 12:00:00 Europe/Paris'`, or a column. Text that starts with a
        digit (signed or not: no timestamp expression does) is meant as a moment, not as SQL:
        one that is no ISO 8601 moment (`27.11.2026`, `2024/01/01`, `2024-01-01 12:00:00 UTC`,
        `2024-02-30`, `-2024-01-01`) fails naming the forms taken, where Spark's parser failed
        on it, or read `2024/01/01` as a division. An ISO moment in SQL quotes is that moment.
    -#}
    {%- set text = '' if value is none else value | string | trim -%}
    {%- if not text -%}
        {{ exceptions.raise_compiler_error("scd2_as_of: the as-of moment is empty.") }}
    {%- endif -%}
    {#- Words a --vars value or a caller may mean as a moment, which as SQL are NULL (an
        empty answer, without a word) or a column Spark does not find. -#}
    {%- if execute and text | lower in ['null', 'none', 'now', 'today', 'yesterday', 'tomorrow'] -%}
        {{ exceptions.raise_compiler_error(
            "scd2_as_of: the as-of moment '" ~ text ~ "' is no moment"
            ~ (" (as SQL it is NULL, which no version covers)" if text | lower in ['null',
                'none'] else "") ~ ". Write an ISO 8601 date or date and time, e.g. "
            ~ "'2024-01-01 12:00:00+02:00', or a SQL timestamp expression, e.g. "
            ~ "current_timestamp() or current_date() - interval 1 day.") }}
    {%- endif -%}
    {#- A moment in SQL quotes ("'2024-01-01 12:00:00'", as a caller writes a string in
        SQL) is the same moment: as SQL, Spark read the string in the session's time zone,
        so that it named another instant than the unquoted text in any zone but UTC. -#}
    {%- set quoted = modules.re.match("^'([^']*)'$", text) -%}
    {%- set moment = quoted.group(1) | trim if quoted else text -%}
    {%- set literal = scd2_audit._scd2_utc_timestamp_sql(moment) -%}
    {#- Quoted or not: as a SQL string, `'2024-02-30'` was NULL, an empty answer. -#}
    {%- if execute and literal is none and modules.re.match('^[-+]?[0-9]', moment) -%}
        {{ exceptions.raise_compiler_error(
            "scd2_as_of: the as-of moment '" ~ moment ~ "' is no ISO 8601 date or date and time "
            ~ "that exists. Write 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM[:SS[.ffffff]]' (UTC) or with "
            ~ "a zone ('Z', '+02:00'), e.g. '2024-01-01 12:00:00+02:00'; or a SQL timestamp "
            ~ "expression, e.g. \"timestamp '2024-01-01 12:00:00 Europe/Paris'\" or "
            ~ "current_timestamp().") }}
    {%- endif -%}
    {{ return(literal or text) }}
{%- endmacro %}
