{% macro _scd2_instant_as_sql(expression, type) -%}
    {#-
        The instant `expression` (a timestamp) as a value of Spark type `type`: a date or a
        timestamp_ntz gets the instant's date or wall time in UTC, the inverse of
        `_scd2_utc_instant_sql`, so that a value read back as an instant is the one written.
        Spark's own cast would take the session's time zone (the high end 9999-12-31
        23:59:59 UTC is a date in 10000 east of UTC). Computed from the instant's
        microseconds, exact for any zone; any other type gets the expression as it is.
    -#}
    {%- set type = (type or '') | lower -%}
    {%- if type not in ['date', 'timestamp_ntz'] -%}
        {{ return(expression) }}
    {%- endif -%}
    {%- set micros = 'unix_micros(' ~ expression ~ ')' -%}
    {%- set day = 'date_from_unix_date(cast((' ~ micros ~ ' - pmod(' ~ micros
        ~ ', 86400000000)) div 86400000000 as int))' -%}
    {%- if type == 'date' -%}
        {{ return(day) }}
    {%- endif -%}
    {#- The time of day as an interval (timestampadd takes an int: it would overflow). -#}
    {{ return('cast(' ~ day ~ ' as timestamp_ntz) + make_dt_interval(0, 0, 0, pmod('
        ~ micros ~ ', 86400000000) / 1000000.0)') }}
{%- endmacro %}
