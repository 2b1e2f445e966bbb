{% macro _scd2_events_versions_sql(ctx, items, with_current=false) -%}
    {#-
        The rows an scd2_events run writes, from its classified `items` (_scd2_events_item_steps),
        which carry, on a later run (`with_current`), their key's open version in the table
        (scd2_current_*, none for a key without one), with scd2_action:
        - 'insert': a version opened by a new item; closed already (valid_to, closing
          position, this run as update process id) when a later item of its key in the same
          batch replaced it, so intermediate versions are kept;
        - 'close': an open version of the table, closed by the first new item that changes
          its key (the MERGE's `when matched`);
        - 'touch': an open version of the table that stays open, after which the batch holds
          only items that change nothing: the MERGE records the last one's position in its
          event_last_position (the key's mark), so that an older event arriving later is
          recognised as late. A new version that ends the batch records it likewise.
        Per key, the open version and the new items are put in order of position; an item
        that changes nothing (an upsert with the values the key already has and no key change
        into it, a delete of a
        key that is absent or already deleted) is dropped, so it adds no version. A delete
        closes the version before it; with hard_deletes='new_record' it also opens a
        deletion record with that version's values, as dbt's snapshots do.
    -#}
    {%- set keys = ctx.key_columns -%}
    {%- set values = ctx.value_columns -%}
    {%- set cols = ctx.columns -%}
    {%- set a = ctx.audit -%}
    {%- set e = ctx.events -%}
    {%- set opening = scd2_audit._scd2_audit_exprs('open', valid_from='scd2_time') -%}
    {%- set closing = scd2_audit._scd2_audit_exprs(
        'close', valid_to='scd2_next_time', valid_type=ctx.time_type) -%}
    {%- set new_record = ctx.hard_deletes == 'new_record' -%}
    {#- Tables built before event_last_position existed do not record no-ops: their no-op
        items are left out. In the others, a no-op item is a 'seen' row of the timeline, which
        never becomes a version but counts in its key's scd2_seen_position. -#}
    {%- set record_noops = e.last_position is defined -%}
    with scd2_items as (
        select
            *,
            scd2_status in ('new'{{ ", 'noop'" if record_noops }})
                and not scd2_event_set_aside as scd2_is_applied
        from {{ items }}
    ),

    scd2_timeline as (
        {#- Per key, its applied items and, first, its open version, which its first item
            (applied or not) carries: exploded from the items, which the item steps left
            partitioned by the key, so that the windows below need no shuffle. An open
            version with no applied item after it writes nothing (scd2_rows). #}
        select
            {%- for key in keys %}
            {{ key }},
            {%- endfor %}
            scd2_row.*
        from scd2_items
        lateral view explode(array_compact(array(
            {%- if with_current %}
            case when scd2_key_rank = 1 and scd2_current_id is not null then named_struct(
                'scd2_values', scd2_current_values,
                'scd2_position', scd2_mark,
                'scd2_time', scd2_current_time,
                'scd2_op', scd2_current_op,
                'scd2_previous_key', scd2_current_previous_key,
                'scd2_kind', 'current',
                'scd2_is_delete', scd2_current_is_delete,
                'scd2_current_id', scd2_current_id
            ) end,
            {%- endif %}
            case when scd2_is_applied then named_struct(
                'scd2_values', scd2_values,
                'scd2_position', scd2_position,
                'scd2_time', scd2_time,
                'scd2_op', scd2_op,
                'scd2_previous_key', scd2_previous_key,
                'scd2_kind', case when scd2_status = 'noop' then 'seen' else scd2_kind end,
                'scd2_is_delete', scd2_kind != 'upsert',
                'scd2_current_id', cast(null as string)
            ) end
        ))) as scd2_row
    ),

    scd2_sequenced as (
        select
            *,
            lag(scd2_is_delete) over scd2_key_order as scd2_prior_is_delete,
            lag(scd2_values) over scd2_key_order as scd2_prior_values,
            max(scd2_position) over (partition by {{ keys | join(', ') }}) as scd2_seen_position
        from scd2_timeline
        window scd2_key_order as (partition by {{ keys | join(', ') }} order by scd2_position)
    ),

    scd2_effective as (
        select * from scd2_sequenced
        where
            scd2_kind = 'current'
            or (scd2_kind != 'seen' and scd2_is_delete and not scd2_prior_is_delete)
            or (
                scd2_kind != 'seen'
                and not scd2_is_delete
                and (
                    scd2_prior_is_delete is null
                    or scd2_prior_is_delete
                    or scd2_values != scd2_prior_values
                    {#- A key change into this key: the version records where it came from,
                        even with the values the key already had. #}
                    or scd2_previous_key is not null
                )
            )
    ),

    scd2_linked as (
        select
            *,
            lead(scd2_position) over scd2_key_order as scd2_next_position,
            lead(scd2_time) over scd2_key_order as scd2_next_time,
            case lead(scd2_kind) over scd2_key_order
                when 'upsert' then 'update'
                when 'delete' then 'delete'
                when 'key_change' then 'key_change'
            end as scd2_closed_as,
            lag(scd2_values) over scd2_key_order as scd2_last_values
        from scd2_effective
        window scd2_key_order as (partition by {{ keys | join(', ') }} order by scd2_position)
    ),

    scd2_rows as (
        select
            case
                when scd2_kind != 'current' then 'insert'
                when scd2_next_position is null then 'touch'
                else 'close'
            end as scd2_action,
            {{ keys | join(', ') }},
            case when scd2_is_delete then scd2_last_values else scd2_values end as scd2_values,
            case
                when scd2_kind = 'current' then scd2_current_id
                {#- JSON, not the parts joined by '|', which one key holding '|' could
                    make another's: ('a|b', 'c') and ('a', 'b|c'). #}
                else md5({{ scd2_audit._scd2_events_json(
                    "named_struct('key', " ~ scd2_audit._scd2_named_struct(keys)
                    ~ ", 'position', scd2_position)") }})
            end as {{ cols.dbt_scd_id }},
            scd2_time as {{ cols.dbt_updated_at }},
            scd2_time as {{ cols.dbt_valid_from }},
            {%- if ctx.valid_to_current %}
            coalesce(scd2_next_time, {{ ctx.valid_to_current }}) as {{ cols.dbt_valid_to }},
            {%- else %}
            scd2_next_time as {{ cols.dbt_valid_to }},
            {%- endif %}
            {%- if new_record %}
            case when scd2_is_delete then 'True' else 'False' end as {{ cols.dbt_is_deleted }},
            {%- endif %}
            {%- for role, name in a.items() %}
            case
                when scd2_next_position is null then {{ opening[role] }}
                else coalesce({{ closing[role] }}, {{ opening[role] }})
            end as {{ name }},
            {%- endfor %}
            scd2_position as {{ e.opened_position }},
            scd2_op as {{ e.opened_op }},
            scd2_next_position as {{ e.closed_position }},
            scd2_closed_as as {{ e.closed_as }},
            scd2_previous_key as {{ e.previous_key }}{{ ',' if record_noops }}
            {%- if record_noops %}
            case
                when scd2_next_position is null then scd2_seen_position
                else scd2_position
            end as {{ e.last_position }}
            {%- endif %}
        from scd2_linked
        where
            (scd2_kind = 'current' and scd2_next_position is not null)
            {%- if record_noops %}
            or (
                scd2_kind = 'current' and scd2_next_position is null
                and scd2_seen_position > scd2_position
            )
            {%- endif %}
            or (scd2_kind != 'current' and ({{ 'true' if new_record else 'not scd2_is_delete' }}))
    )

    select
        scd2_action,
        {%- for column in keys %}
        {{ column }},
        {%- endfor %}
        {%- for value in values %}
        scd2_values.{{ value }},
        {%- endfor %}
        {#- Columns of the table the events no longer carry: NULL in the versions opened
            (_scd2_events_schema_change); a version closed keeps its own value. #}
        {%- for column, type in (ctx.removed_columns or {}).items() %}
        cast(null as {{ type }}) as {{ column }},
        {%- endfor %}
        {%- for column in scd2_audit._scd2_events_metadata_columns(ctx) %}
        {{ column }}{{ ',' if not loop.last }}
        {%- endfor %}
    from scd2_rows
{%- endmacro %}
