{% macro _scd2_events_withheld(ctx, summary, items) -%}
    {#-
        The run's summary (_scd2_events_summary) once something is set aside and `items`
        (cached, with scd2_event_set_aside) know the events set aside whole: the new and no-op
        items of those events are not applied (the other half of a key change whose old key
        is late), so they leave the new and no-op counts, and the applied ones, which decide
        whether the run writes. Logs the run's line of counts.
    -#}
    {%- set counts = summary.counts.copy() -%}
    {%- set upserts = summary.upserts.copy() -%}
    {%- set withheld = namespace(items=0) -%}
    {%- set query -%}
        select scd2_status, count(*), count_if(scd2_kind = 'upsert')
        from {{ items }}
        where scd2_event_set_aside and scd2_status in ('new', 'noop')
        group by scd2_status
    {%- endset -%}
    {%- for row in run_query(query).rows -%}
        {%- do counts.update({row[0]: counts[row[0]] - row[1]}) -%}
        {%- do upserts.update({row[0]: upserts[row[0]] - row[2]}) -%}
        {%- set withheld.items = withheld.items + row[1] -%}
    {%- endfor -%}
    {%- do scd2_audit._scd2_events_log_counts(ctx, counts, withheld.items) -%}
    {{ return(scd2_audit._scd2_events_summary_of(counts, upserts, summary.set_aside)) }}
{%- endmacro %}
