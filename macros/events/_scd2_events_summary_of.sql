{% macro _scd2_events_summary_of(counts, upserts, set_aside) -%}
    {#-
        The run's summary from its items and upserts per status (_scd2_events_summary,
        _scd2_events_withheld): {'set_aside', 'counts', 'upserts', 'applied': the new and no-op
        items, 'applied_upserts': how many of them are upserts}.
    -#}
    {{ return({
        'set_aside': set_aside,
        'applied_upserts': upserts.new + upserts.noop,
        'applied': counts.new + counts.noop,
        'counts': counts,
        'upserts': upserts,
    }) }}
{%- endmacro %}
