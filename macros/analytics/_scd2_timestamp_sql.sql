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
        on it, or read `2024/01/01` as a division. An ISO moment in SQL quotes is that moment, and
        quoted text that is none fails too.
    -#}
    {%- set text = '' if value is none else value | string | trim -%}
    {#- A moment in SQL quotes ("'2024-01-01 12:00:00'", as a caller writes a string in
        SQL; double quotes are a Spark string too) is the same moment: as SQL, Spark read the
        string in the session's time zone, so that it named another instant than the unquoted
        text in any zone but UTC. Quoted text is a string, no SQL expression: one that is no
        ISO moment (`''`, `'null'`, `'2024-02-30'`) was NULL as SQL, an empty answer. -#}
    {%- set quoted = modules.re.match("^'([^']*)'$", text)
        or modules.re.match('^"([^"]*)"$', text) -%}
    {%- set moment = quoted.group(1) | trim if quoted else text -%}
    {%- if execute and not moment -%}
        {{ exceptions.raise_compiler_error("scd2_as_of: the as-of moment is empty.") }}
    {%- endif -%}
    {#- Words a --vars value or a caller may mean as a moment, which as SQL are NULL (an
        empty answer, without a word) or a column Spark does not find. -#}
    {%- set word = moment | lower -%}
    {%- if execute and word in ['null', 'none', 'now', 'today', 'yesterday', 'tomorrow'] -%}
        {{ exceptions.raise_compiler_error(
            "scd2_as_of: the as-of moment '" ~ moment ~ "' is no moment"
            ~ (" (as SQL it is NULL, which no version covers)" if word in ['null', 'none']
                and not quoted else "") ~ ". Write an ISO 8601 date or date and time, e.g. "
            ~ "'2024-01-01 12:00:00+02:00', or a SQL timestamp expression, e.g. "
            ~ "current_timestamp() or current_date() - interval 1 day.") }}
    {%- endif -%}
    {%- set literal = scd2_audit._scd2_utc_timestamp_sql(moment) -%}
    {%- if execute and literal is none and (quoted or modules.re.match('^[-+]?[0-9]', moment)) -%}
        {{ exceptions.raise_compiler_error(
            "scd2_as_of: the as-of moment '" ~ moment ~ "' is no ISO 8601 date or date and time "
            ~ "that exists. Write 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM[:SS[.ffffff]]' (UTC) or with "
            ~ "a zone ('Z', '+02:00'), e.g. '2024-01-01 12:00:00+02:00'; or a SQL timestamp "
            ~ "expression, e.g. \"timestamp '2024-01-01 12:00:00 Europe/Paris'\" or "
            ~ "current_timestamp().") }}
    {%- endif -%}
    {{ return(literal or text) }}
{%- endmacro %}
