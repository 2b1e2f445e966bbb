{% macro _scd2_utc_timestamp_sql(text) -%}
    {#-
        A date or a date and time in ISO 8601 as a timestamp literal that carries its zone, or
        none for any other text: 'YYYY-MM-DD', then optionally a time 'HH:MM[:SS[.ffffff]]'
        after a space or a 'T', then optionally a zone 'Z' or an offset '+HH:MM' ('+HHMM').
        Without a zone it is UTC: a bare literal would be read in the Spark session time zone,
        so the same run under two session time zones would store or compare two different
        instants. The one rendering of the high-end value (scd2_high_end_ts) and of as-of
        moments (scd2_as_of). A date is its midnight, a time without seconds has zero seconds:
        Spark reads a zone only after a time with seconds ('2024-01-02 UTC' and
        '2024-01-02 10:00 UTC' are no timestamp literals).
    -#}
    {%- set parts = modules.re.match(
        '^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(:\d{2}(?:\.\d{1,6})?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$',
        text | string | trim) -%}
    {%- if parts is none -%}{{ return(none) }}{%- endif -%}
    {%- set date, time, seconds, zone = parts.groups() -%}
    {%- set offset = ' UTC' if zone in [none, 'Z'] else zone -%}
    {{ return("timestamp '" ~ date ~ ' ' ~ (time or '00:00') ~ (seconds or ':00') ~ offset ~ "'") }}
{%- endmacro %}
