{% macro _scd2_utc_timestamp_sql(text) -%}
    {#-
        'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS[.ffffff]' as a timestamp literal that carries its
        zone (UTC), or none for any other text. A bare literal would be read in the Spark
        session time zone, so the same run under two session time zones would store or compare
        two different instants. The one rendering of the high-end value (scd2_high_end_ts) and
        of as-of moments (scd2_as_of). A date is its midnight: Spark reads a zone only after a
        time ('2024-01-02 UTC' is no timestamp literal).
    -#}
    {%- set value = text | string | trim -%}
    {%- if modules.re.match('^\d{4}-\d{2}-\d{2}$', value) -%}
        {%- set value = value ~ ' 00:00:00' -%}
    {%- endif -%}
    {%- if modules.re.match('^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?$', value) -%}
        {{ return("timestamp '" ~ value ~ " UTC'") }}
    {%- endif -%}
    {{ return(none) }}
{%- endmacro %}
