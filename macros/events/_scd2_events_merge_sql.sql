{% macro _scd2_events_merge_sql(ctx, target, versions, table_columns) -%}
    {#-
        The MERGE of a later scd2_events run on a table not in the layout of
        _scd2_snapshot_layout (its partitioning changed by hand; others are written by
        _scd2_events_overwrite_sql, which leaves the same rows): `versions`
        (_scd2_events_versions_sql) closes open versions ('close' rows, matched on dbt_scd_id
        in the open partition, as the snapshot MERGE does) and inserts the new ones ('insert'
        rows, whose ids are new: their position is after every event already applied to their
        key); 'touch' rows record on an open version that stays open the position of the
        no-op events after it (event_last_position).
    -#}
    {%- set cols = ctx.columns -%}
    {%- set e = ctx.events -%}
    {%- set closing = scd2_audit._scd2_events_closing_columns(ctx) -%}
    merge into {{ target }} as t
    using {{ versions }} as s
        on
            {#- The key besides the id (which alone decides: a 'close' or 'touch' row holds the
                key and id of one open version): the versions are partitioned by the key, so
                the MERGE's joins shuffle only the table. #}
            {{ scd2_audit._scd2_join_on(ctx.key_columns, 's', 't') }}
            and s.{{ cols.dbt_scd_id }} = t.{{ cols.dbt_scd_id }}
            and s.scd2_action in ('close', 'touch')
            and {{ scd2_audit._scd2_open_version_sql('t', true, ctx) }}
    when matched and s.scd2_action = 'close' then update set
        {%- for column in closing %}
        t.{{ column }} = s.{{ column }}{{ ',' if not loop.last }}
        {%- endfor %}
    {%- if e.last_position is defined %}
    when matched then update set
        t.{{ e.last_position }} = s.{{ e.last_position }}
    {%- endif %}
    when not matched and s.scd2_action = 'insert' then insert (
        {%- for column in table_columns %}
        {{ column }}{{ ',' if not loop.last }}
        {%- endfor %}
    ) values (
        {%- for column in table_columns %}
        s.{{ column }}{{ ',' if not loop.last }}
        {%- endfor %}
    )
{%- endmacro %}
