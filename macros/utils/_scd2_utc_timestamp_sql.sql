{% macro _scd2_utc_timestamp_sql(text) -%}
    {#-
        A date or a date and time in ISO 8601 as a timestamp literal that carries its zone, or
        none for any other text: 'YYYY-MM-DD', then optionally a time 'HH:MM[:SS[.ffffff]]'
        after a space or a 'T', then optionally a zone 'Z' or an offset '+HH:MM' ('+HHMM');
        't' and 'z' in lower case too, as RFC 3339 allows.
        Without a zone it is UTC: a bare literal would be read in the Spark session time zone,
        so the same run under two session time zones would store or compare two different
        instants. The one rendering of the high-end value (scd2_high_end_ts) and of as-of
        moments (scd2_as_of). A date is its midnight, a time without seconds has zero seconds:
        Spark reads a zone only after a time with seconds ('2024-01-02 UTC' and
        '2024-01-02 10:00 UTC' are no timestamp literals). A text of that shape that names no
        moment (`9999-02-30`, `24:00:00`, an offset beyond Java's ±18:00) is none too, where
        Spark failed on its literal with INVALID_TYPED_LITERAL.
    -#}
    {%- set parts = modules.re.match(
        '^(\d{4}-\d{2}-\d{2})(?:[Tt ](\d{2}:\d{2})(:\d{2}(?:\.\d{1,6})?)?\s*([Zz]|[+-]\d{2}:?\d{2})?)?$',
        text | string | trim) -%}
    {%- if parts is none -%}{{ return(none) }}{%- endif -%}
    {%- set date, time, seconds, zone = parts.groups() -%}
    {%- set y, m, d = date.split('-') | map('int') | list -%}
    {%- if y < 1 or m < 1 or m > 12 or d < 1 -%}{{ return(none) }}{%- endif -%}
    {%- set month_days = 31 if m == 12 else (modules.datetime.date(y, m + 1, 1)
        - modules.datetime.timedelta(days=1)).day -%}
    {%- if d > month_days -%}{{ return(none) }}{%- endif -%}
    {%- if time and (time[:2] | int > 23 or time[3:5] | int > 59) -%}{{ return(none) }}{%- endif -%}
    {%- if seconds and seconds[1:3] | int > 59 -%}{{ return(none) }}{%- endif -%}
    {%- if zone not in [none, 'Z', 'z'] and (zone[1:3] | int > 18 or zone[-2:] | int > 59
            or (zone[1:3] | int == 18 and zone[-2:] | int > 0)) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set offset = ' UTC' if zone in [none, 'Z', 'z'] else zone -%}
    {{ return("timestamp '" ~ date ~ ' ' ~ (time or '00:00') ~ (seconds or ':00') ~ offset ~ "'") }}
{%- endmacro %}
