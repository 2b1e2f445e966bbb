{% macro _scd2_events_json(expression) -%}
    {#-
        `expression` (a struct) as JSON text that tells every two different values apart: the
        text the run hashes into an id (a version's dbt_scd_id, an event's scd2_event_hash in
        the quarantine) and names an event by in its messages. Spark's to_json writes a
        timestamp to the millisecond by default, so two events (or versions) microseconds apart
        got one hash: the second late event was taken for the first one, already set aside,
        and kept nowhere; two versions of a key less than a millisecond apart shared their
        dbt_scd_id. Here timestamps are written to the microsecond, Spark's precision, in UTC
        whatever the session's time zone (the same instant, the same text). The patterns hold
        no quoted letter, so they read alike whatever the session's string-literal settings.
        Hashes written before (quarantine rows, version ids) keep the millisecond text: an
        event set aside before is set aside once more if it comes again, and ids stay unique.
    -#}
    to_json(
        {{ expression }},
        map(
            'timestampFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSSXXX',
            'timestampNTZFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSS',
            'timeZone', 'UTC'
        )
    )
{%- endmacro %}
