{% macro _scd2_events_is_set_aside() -%}
    {#-
        Whether an item's scd2_status (_scd2_events_item_steps) sets its event aside, into the
        quarantine or into the run's failure: the one list of those statuses, read by the
        items (an event is applied or set aside whole), the summary's count and the
        quarantine.
    -#}
    scd2_status in ('late', 'ambiguous', 'malformed')
{%- endmacro %}
