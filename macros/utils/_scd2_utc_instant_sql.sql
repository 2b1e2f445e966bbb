{% macro _scd2_utc_instant_sql(expression, type) -%}
    {#-
        `expression`, of Spark type `type`, as the instant (a timestamp) that the history's
        effective range holds for it: a date or a timestamp_ntz (a validity taken from a
        source's updated_at or an event time) is read as UTC, as the high end and the
        as-of moments without a zone are (_scd2_utc_timestamp_sql). Spark's own cast reads
        them in the session's time zone, so a range closed by a writer in one zone and
        compared by a reader in another would overlap or leave a gap. A timestamp is an
        instant already and stays as it is.
    -#}
    {%- set type = (type or '') | lower -%}
    {%- if type == 'date' -%}
        {{ return('timestamp_seconds(cast(unix_date(' ~ expression ~ ') as bigint) * 86400)') }}
    {%- elif type == 'timestamp_ntz' -%}
        {%- set fields = [] -%}
        {%- for part in ['year', 'month', 'day', 'hour', 'minute'] -%}
            {%- do fields.append(part ~ '(' ~ expression ~ ')') -%}
        {%- endfor -%}
        {{ return('make_timestamp(' ~ fields | join(', ') ~ ", date_part('SECOND', "
            ~ expression ~ "), 'UTC')") }}
    {%- endif -%}
    {{ return(expression) }}
{%- endmacro %}
