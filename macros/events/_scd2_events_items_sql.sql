{% macro _scd2_events_items_sql(marked, set_aside) -%}
    {#-
        The classified items (`marked`, the last of _scd2_events_item_steps) with
        scd2_event_set_aside: whether the event an item came from has an item set aside (late,
        ambiguous or malformed), so that an event is applied or set aside whole. When the run
        sets nothing aside (`set_aside` false, the usual case), no item is, and the join that
        finds them is not run.
    -#}
    {%- if set_aside %}
    select
        m.*,
        b.scd2_event_id is not null as scd2_event_set_aside
    from {{ marked }} as m
    left join (
        select distinct scd2_event_id
        from {{ marked }}
        where {{ scd2_audit._scd2_events_is_set_aside() }}
    ) as b on m.scd2_event_id = b.scd2_event_id
    {%- else %}
    select
        *,
        false as scd2_event_set_aside
    from {{ marked }}
    {%- endif %}
{%- endmacro %}
