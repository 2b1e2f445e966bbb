{% macro _scd2_events_item_steps(ctx, events, target, prefix) -%}
    {#-
        One row per change item of the events relation `events`, classified against the
        scd2_events table `target` (none on the first run). Each valid event gives one item
        per key it changes: a create, read or update an 'upsert' of its key; a delete a
        'delete' of its key (none with hard_deletes='ignore'); an update whose old key differs
        from its key (event_old_key_columns) also a 'key_change' that closes the old key. A
        malformed event gives one 'malformed' item with its problem.
        Identical items (duplicate events in the batch) collapse into one. scd2_status:
        - 'new': after the last event applied to its key (the key's mark: the open version's
          opening position or, later, the last no-op recorded on it (event_last_position);
          for a key with no open version the last closing position);
        - 'noop': the one item of its key after the mark, an upsert with the values of the
          key's open version: it adds no version; its position is recorded on the open
          version (_scd2_events_versions_sql);
        - 'duplicate': at or before the mark and in agreement with the history there (the
          version valid at its position has its values; for a delete: no version is valid
          there): already applied, or changes nothing; dropped;
        - 'late': at or before the mark and not in agreement: applying it would rewrite
          history (on_late_event);
        - 'ambiguous': another item of its key has the same position but other contents:
          their order is unknown (an event_order_by tie-breaker is missing);
        - 'malformed': scd2_problem says why (on_malformed_event).
        scd2_event_id identifies the event an item came from (_scd2_events_event_id), so
        that an event is applied or set aside whole.
        Returned as steps, [name, select] or [name, select, guard] in order, each reading the
        earlier ones as `<prefix><name>`: the materialization makes each a temporary view,
        empty when its guard query returns no row, and caches the steps read more than once
        (the items, the open versions, the items with their marks) and the replayed items
        (usually none; small enough to join by broadcast at each read of the last step,
        'scd2_marked', which adds the status to the cached items with their marks). Views,
        not one query of CTEs: Spark does not use a cached relation for a plan that holds
        CTEs.
    -#}
    {%- set steps = [] -%}
    {%- set c = ctx.codes -%}
    {%- set keys = ctx.key_columns -%}
    {%- set olds = ctx.old_key_columns -%}
    {%- set values = ctx.value_columns -%}
    {%- set a = ctx.audit -%}
    {%- set e = ctx.events -%}
    {%- set time = ctx.order_by[0] -%}
    {%- set key_struct = scd2_audit._scd2_named_struct(keys) -%}
    {%- set old_struct = scd2_audit._scd2_named_struct(ctx.old_key_values, keys)
        if olds else none -%}
    {%- set value_struct = scd2_audit._scd2_named_struct(values) -%}
    {%- set position = scd2_audit._scd2_named_struct(ctx.order_by) -%}
    {%- set key_is_null = '(' ~ keys | join(' is null or ') ~ ' is null)' -%}
    {%- set on_keys = scd2_audit._scd2_join_on(keys, 'i', 'v') -%}
    {%- set item_columns = ['scd2_kind'] + keys + ['scd2_values', 'scd2_position', 'scd2_time',
        'scd2_op', 'scd2_previous_key', 'scd2_problem'] -%}
    {%- set scd2_classified -%}
        select
            *,
            {{ scd2_audit._scd2_events_event_id(ctx) }} as scd2_event_id,
            {{ position }} as scd2_position,
            case
                when {{ ctx.op }} is null
                    or cast({{ ctx.op }} as string) not in (
                        {%- for code in c.values() -%}
                            {{ scd2_audit._scd2_sql_string(code) }}{{ ', ' if not loop.last }}
                        {%- endfor -%}
                    )
                    then concat('unknown operation ', coalesce(
                        concat('\'', cast({{ ctx.op }} as string), '\''), 'null'))
                {%- for column in ctx.order_by %}
                when {{ column }} is null then 'null ordering value in {{ column }}'
                {%- endfor %}
                {#- An open version is valid until the high end (and dbt_valid_to_current):
                    one starting there or later would end before it starts. #}
                when {{ scd2_audit._scd2_utc_instant_sql(time, ctx.time_type) }}
                    >= {{ ctx.high_end }}
                    then 'event time at or after the high end of open versions (scd2_high_end_ts)'
                {%- if ctx.valid_to_current %}
                when {{ time }} >= {{ ctx.valid_to_current }}
                    then 'event time at or after dbt_valid_to_current'
                {%- endif %}
                when {{ key_is_null }} then 'null key'
                {%- if olds %}
                when cast({{ ctx.op }} as string) = {{ scd2_audit._scd2_sql_string(c['update']) }}
                    and ({{ olds | join(' is null and ') }} is null)
                    then 'update without an old key ({{ olds | join(", ") }})'
                {%- if olds | length > 1 %}
                {#- Part of a composite old key: no key either, but said as it is. #}
                when cast({{ ctx.op }} as string) = {{ scd2_audit._scd2_sql_string(c['update']) }}
                    and ({{ olds | join(' is null or ') }} is null)
                    then 'update with a null in its old key ({{ olds | join(", ") }})'
                {%- endif %}
                {%- endif %}
            end as scd2_problem
        from {{ events }}
    {%- endset -%}
    {%- do steps.append(['scd2_classified', scd2_classified]) -%}

    {%- set is_op = {} -%}
    {%- for kind in ['create', 'read', 'update', 'delete'] -%}
        {%- do is_op.update({kind: 'cast(' ~ ctx.op ~ ' as string) = '
            ~ scd2_audit._scd2_sql_string(c[kind])}) -%}
    {%- endfor -%}
    {%- set is_key_change = (
        '(' ~ is_op['update'] ~ ' and ' ~ old_struct ~ ' != ' ~ key_struct ~ ')'
    ) if olds else 'false' -%}
    {%- set scd2_raw_items -%}
        {#- The items of each event from one read of the events: its kinds as an array,
            exploded. The events are shuffled once, by key, here: the duplicates' grouping and
            the ambiguity window below cluster on the key and its position, so they need no
            shuffle of their own. #}
        select
            scd2_event_id,
            scd2_kind,
            {%- for key in keys %}
            {%- if olds %}
            case
                when scd2_kind = 'key_change' then {{ ctx.old_key_values[loop.index0] }}
                else {{ key }}
            end as {{ key }},
            {%- else %}
            {{ key }},
            {%- endif %}
            {%- endfor %}
            case when scd2_kind = 'upsert' then {{ value_struct }} end as scd2_values,
            scd2_position,
            {{ time }} as scd2_time,
            cast({{ ctx.op }} as string) as scd2_op,
            case
                when scd2_kind = 'upsert' and {{ is_key_change }} then {{ old_struct or key_struct }}
            end as scd2_previous_key,
            {#- Where a key change leads: two events that move one key at one position to
                two keys gave the same closing item, kept once, so neither was ambiguous
                and both new keys opened from the one old key. #}
            case when scd2_kind = 'key_change' then {{ key_struct }} end as scd2_moved_to,
            scd2_problem
        from {{ prefix }}scd2_classified
        lateral view explode(array_compact(array(
            case
                when scd2_problem is not null then 'malformed'
                when {{ is_op['create'] }} or {{ is_op['read'] }} or {{ is_op['update'] }} then 'upsert'
                {%- if ctx.hard_deletes != 'ignore' %}
                when {{ is_op['delete'] }} then 'delete'
                {%- endif %}
            end,
            case when scd2_problem is null and {{ is_key_change }} then 'key_change' end
        ))) as scd2_kind
        distribute by {{ keys | join(', ') }}
    {%- endset -%}
    {%- do steps.append(['scd2_raw_items', scd2_raw_items]) -%}

    {%- set scd2_distinct_items -%}
        {#- Duplicate events in the batch give identical items: one is kept, under the
            smallest of their event ids. A malformed item does not hold its event's values,
            so two malformed events alike in all else stay two items: each is set aside. #}
        select
            min(scd2_event_id) as scd2_event_id,
            {%- for column in item_columns %}
            {{ column }}{{ ',' if not loop.last }}
            {%- endfor %}
        from {{ prefix }}scd2_raw_items
        group by
            {%- for column in item_columns %}
            {{ column }},
            {%- endfor %}
            scd2_moved_to,
            case when scd2_kind = 'malformed' then scd2_event_id end
    {%- endset -%}
    {%- do steps.append(['scd2_distinct_items', scd2_distinct_items]) -%}

    {%- set scd2_items -%}
        select
            *,
            {#- Malformed items are not counted: a bad second delivery of an event (`U` for
                `u`) made the good one ambiguous, set aside with it or failing the run with
                advice to add a tie-breaker. #}
            scd2_kind != 'malformed' and count(if(scd2_kind != 'malformed', 1, null)) over (
                partition by {{ keys | join(', ') }}, scd2_position
            ) > 1 as scd2_is_ambiguous
        from {{ prefix }}scd2_distinct_items
    {%- endset -%}
    {%- do steps.append(['scd2_items', scd2_items]) -%}


    {%- if target is none %}

    {%- set scd2_marked -%}
        select
            *,
            case
                when scd2_kind = 'malformed' then 'malformed'
                when scd2_is_ambiguous then 'ambiguous'
                else 'new'
            end as scd2_status
        from {{ prefix }}scd2_items
    {%- endset -%}
    {%- do steps.append(['scd2_marked', scd2_marked]) -%}

    {%- else %}

    {%- set scd2_touched -%}
        {#- Read by semi joins only: no need to make them distinct. #}
        select {{ keys | join(', ') }}
        from {{ prefix }}scd2_items
        where scd2_kind != 'malformed'
    {%- endset -%}
    {%- do steps.append(['scd2_touched', scd2_touched]) -%}

    {%- set scd2_open_marks -%}
        {#- The open versions of the batch's keys, read from the table once: their marks here,
            and their rows for the timeline of _scd2_events_versions_sql. #}
        select
            {%- for key in keys %}
            v.{{ key }},
            {%- endfor %}
            {%- if e.last_position is defined %}
            greatest(v.{{ e.opened_position }}, v.{{ e.last_position }}) as scd2_mark,
            {%- else %}
            v.{{ e.opened_position }} as scd2_mark,
            {%- endif %}
            {%- if ctx.hard_deletes == 'new_record' %}
            {{ scd2_audit._scd2_is_deleted_sql('v.' ~ ctx.columns.dbt_is_deleted) }} as scd2_is_delete,
            {%- else %}
            false as scd2_is_delete,
            {%- endif %}
            {{ scd2_audit._scd2_events_table_values(ctx, 'v') }} as scd2_values,
            v.{{ ctx.columns.dbt_valid_from }} as scd2_time,
            v.{{ e.opened_op }} as scd2_op,
            v.{{ e.previous_key }} as scd2_previous_key,
            v.{{ ctx.columns.dbt_scd_id }} as scd2_current_id
        from {{ target }} as v
        left semi join {{ prefix }}scd2_touched as i on {{ on_keys }}
        where {{ scd2_audit._scd2_open_version_sql('v', true, ctx) }}
    {%- endset -%}
    {%- do steps.append(['scd2_open_marks', scd2_open_marks]) -%}

    {%- set scd2_closed_marks -%}
        select
            {%- for key in keys %}
            v.{{ key }},
            {%- endfor %}
            max(v.{{ e.closed_position }}) as scd2_mark
        from {{ target }} as v
        left semi join (
            select * from {{ prefix }}scd2_touched as i
            left anti join {{ prefix }}scd2_open_marks as v on {{ on_keys }}
        ) as i on {{ on_keys }}
        where v.{{ a.update_process_id }} is not null
        group by {{ keys | join(', ') }}
    {%- endset -%}
    {%- do steps.append(['scd2_closed_marks', scd2_closed_marks]) -%}

    {%- set key_order -%}
        partition by {% for key in keys %}i.{{ key }}{{ ', ' if not loop.last }}{% endfor %}
        order by i.scd2_position
    {%- endset -%}
    {%- set scd2_with_marks -%}
        {#- Two left joins, not one of the open and closed marks' union: both are partitioned
            by the key as the items are, so neither join shuffles the items, where a union
            would shuffle the marks. The key's open version rides along (scd2_current_*): it
            starts the key's timeline in _scd2_events_versions_sql (with its first item,
            scd2_key_rank 1), which so reads no other relation and needs no shuffle or sort
            before its timeline. #}
        select
            i.*,
            coalesce(o.scd2_mark, c.scd2_mark) as scd2_mark,
            o.scd2_values as scd2_current_values,
            o.scd2_is_delete as scd2_current_is_delete,
            o.scd2_time as scd2_current_time,
            o.scd2_op as scd2_current_op,
            o.scd2_previous_key as scd2_current_previous_key,
            o.scd2_current_id,
            count_if(
                coalesce(o.scd2_mark, c.scd2_mark) is null
                or i.scd2_position > coalesce(o.scd2_mark, c.scd2_mark)
            ) over (
                {{ key_order }}
                rows between unbounded preceding and unbounded following
            ) as scd2_items_after_mark,
            row_number() over ({{ key_order }}) as scd2_key_rank
        from {{ prefix }}scd2_items as i
        left join {{ prefix }}scd2_open_marks as o on {{ scd2_audit._scd2_join_on(keys, 'i', 'o') }}
        left join {{ prefix }}scd2_closed_marks as c on {{ scd2_audit._scd2_join_on(keys, 'i', 'c') }}
    {%- endset -%}
    {%- do steps.append(['scd2_with_marks', scd2_with_marks]) -%}

    {%- set replayed = "scd2_kind != 'malformed' and scd2_position <= scd2_mark" -%}
    {%- set scd2_replayed -%}
        {#- Items at or before their key's mark, checked against the key's whole history:
            is a version valid at the item's position, and does it hold the item's values?
            A key's versions do not overlap, so the only one that can be valid there is the
            last to open at or before it: the items and their keys' versions are put in one
            order per key (a version before an item at its own position), and each item takes
            the last version before it, so the check costs a sort, not the pairs of every
            replayed item with every version of its key (a hot key's replay grew with their
            product). Skipped (its guard) when there are none, the usual case: the table's
            whole history is then not read. #}
        select
            scd2_event_id,
            scd2_kind,
            bool_or(scd2_valid_there) as scd2_present,
            {#- A key change's new key is a replay only where the version there records the
                key it came from: a late key change into a key whose version has the same
                values was taken for applied on its new key and closed its old key alone. #}
            bool_or(scd2_valid_there and scd2_version_there.scd2_values = scd2_item_values
                {%- if olds %}
                and (scd2_item_previous_key is null
                    or scd2_version_there.scd2_previous_key <=> scd2_item_previous_key)
                {%- endif %}) as scd2_same
        from (
            select
                *,
                coalesce(
                    (scd2_version_there.scd2_closed is null
                        or scd2_position < scd2_version_there.scd2_closed)
                    and not scd2_version_there.scd2_deleted,
                    false
                ) as scd2_valid_there
            from (
                select
                    *,
                    last(scd2_version, true) over (
                        partition by {{ keys | join(', ') }}
                        order by scd2_position, scd2_event_id nulls first
                        rows between unbounded preceding and current row
                    ) as scd2_version_there
                from (
                    select
                        {%- for key in keys %}
                        v.{{ key }},
                        {%- endfor %}
                        v.{{ e.opened_position }} as scd2_position,
                        null as scd2_event_id,
                        null as scd2_kind,
                        named_struct(
                            'scd2_closed', v.{{ e.closed_position }},
                            'scd2_deleted',
                            {%- if ctx.hard_deletes == 'new_record' %}
                            {{ scd2_audit._scd2_is_deleted_sql('v.' ~ ctx.columns.dbt_is_deleted) }},
                            {%- else %}
                            false,
                            {%- endif %}
                            {%- if olds %}
                            'scd2_previous_key', v.{{ e.previous_key }},
                            {%- endif %}
                            'scd2_values', {{ scd2_audit._scd2_events_table_values(ctx, 'v') }}
                        ) as scd2_version,
                        {%- if olds %}
                        null as scd2_item_previous_key,
                        {%- endif %}
                        null as scd2_item_values
                    from {{ target }} as v
                    left semi join (
                        select * from {{ prefix }}scd2_with_marks where {{ replayed }}
                    ) as i on {{ on_keys }}

                    union all

                    select
                        {%- for key in keys %}
                        {{ key }},
                        {%- endfor %}
                        scd2_position,
                        scd2_event_id,
                        scd2_kind,
                        null as scd2_version,
                        {%- if olds %}
                        scd2_previous_key as scd2_item_previous_key,
                        {%- endif %}
                        scd2_values as scd2_item_values
                    from {{ prefix }}scd2_with_marks
                    where {{ replayed }}
                ) as scd2_timeline
            ) as scd2_ordered
        ) as scd2_checked
        where scd2_event_id is not null
        group by scd2_event_id, scd2_kind
    {%- endset -%}
    {%- do steps.append(['scd2_replayed', scd2_replayed,
        "select 1 from " ~ prefix ~ "scd2_with_marks where " ~ replayed ~ " limit 1"]) -%}

    {%- set scd2_marked -%}
        select
            i.scd2_event_id,
            {%- for column in item_columns %}
            i.{{ column }},
            {%- endfor %}
            i.scd2_is_ambiguous,
            i.scd2_mark,
            i.scd2_current_values,
            i.scd2_current_is_delete,
            i.scd2_current_time,
            i.scd2_current_op,
            i.scd2_current_previous_key,
            i.scd2_current_id,
            i.scd2_key_rank,
            case
                when i.scd2_kind = 'malformed' then 'malformed'
                when i.scd2_is_ambiguous then 'ambiguous'
                {#- The one item of its key after the mark, an upsert with the open version's
                    values and no key change: it changes nothing (several items of a key are
                    sequenced, and their no-ops dropped, by _scd2_events_versions_sql). A
                    deletion record (hard_deletes='new_record') holds the last values, yet a
                    create with those values is a change. #}
                when i.scd2_kind = 'upsert' and i.scd2_previous_key is null
                    and i.scd2_position > i.scd2_mark and i.scd2_items_after_mark = 1
                    and not i.scd2_current_is_delete
                    and i.scd2_values = i.scd2_current_values then 'noop'
                when i.scd2_mark is null or i.scd2_position > i.scd2_mark then 'new'
                when i.scd2_kind = 'upsert' and coalesce(r.scd2_same, false) then 'duplicate'
                when i.scd2_kind != 'upsert' and not coalesce(r.scd2_present, false)
                    then 'duplicate'
                else 'late'
            end as scd2_status
        from {{ prefix }}scd2_with_marks as i
        left join {{ prefix }}scd2_replayed as r
            on i.scd2_event_id = r.scd2_event_id and i.scd2_kind = r.scd2_kind
    {%- endset -%}
    {%- do steps.append(['scd2_marked', scd2_marked]) -%}

    {%- endif %}

    {{ return(steps) }}
{%- endmacro %}
