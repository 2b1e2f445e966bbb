{% macro _scd2_events_is_set_aside(status='scd2_status') -%}
    {#-
        Whether an item's status (_scd2_events_item_steps) sets its event aside, into the
        quarantine or into the run's failure: the one list of those statuses, read by the
        items (an event is applied or set aside whole) and by the quarantine.
    -#}
    {{ status }} in ('late', 'ambiguous', 'malformed')
{%- endmacro %}
