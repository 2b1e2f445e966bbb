{% macro _scd2_events_event_id(ctx) -%}
    {#-
        The id of an event, as SQL over the events relation's columns: a 64-bit hash of its
        identity columns (_scd2_events_context), so that an event read twice in a run (its
        classification, then the quarantine) has one id even where the model's select adds a
        column of its own per read, such as current_timestamp() as a load time; and of where
        those columns are NULL, since xxhash64 skips a NULL: (NULL, 'k1') and ('k1', NULL)
        would otherwise be one event, applied or set aside together.
    -#}
    {%- set columns = ctx.identity_columns -%}
    xxhash64(
        {{ columns | join(', ') }},
        array({% for column in columns %}{{ column }} is null{{ ', ' if not loop.last }}{% endfor %})
    )
{%- endmacro %}
