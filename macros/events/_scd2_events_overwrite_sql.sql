{% macro _scd2_events_overwrite_sql(ctx, target, versions, table_columns, schema_change=none) -%}
    {#-
        The write of a later scd2_events run on a table in the layout of _scd2_snapshot_layout
        (partitioned by the audit update_process_id: the open versions in the NULL partition):
        one `insert into ... replace where` into `target` (the run's own branch of the table,
        which _scd2_events_publish then makes main's) that replaces the open partition and
        fills this run's own (new, so empty) partition, in one Iceberg commit. The rows are
        those _scd2_events_merge_sql's MERGE leaves, clause by clause:
        - an open version whose key and dbt_scd_id a 'close' row of `versions` has takes that
          row's closing columns (it so moves to this run's partition);
        - one a 'touch' row has takes its event_last_position;
        - every other row of the open partition is kept as it is;
        - 'insert' rows are added (open ones in the open partition, those closed in the same
          batch in this run's).
        Why not the MERGE: Iceberg runs it as a copy-on-write that joins the table with the
        versions twice (once to find the files to rewrite, once to rewrite them) and, since
        nearly every file of the open partition holds a version the run closes, rewrites the
        whole partition anyway; this writes the same rows from one join (day 2 of the 1M-key
        benchmark: 15 to 19 s against 23 to 32 s for the MERGE, docs/events.md "Known limits").
        The select lists the columns in the table's order (_scd2_events_schema_change gives
        it), since `replace where` inserts by position.
        With a `schema_change` that adds or widens columns (_scd2_events_schema_change), the
        same rows, and the closed history as it is, rebuild the table in one `create or
        replace table ... as` instead (_scd2_create_snapshot_table_sql, which keeps its
        layout and snapshot history): Iceberg changes a table's schema outside any branch, so
        an `alter table` before the write would stay when the run fails after it. Such a run
        costs a copy of the table, once. The added columns are NULL, the widened ones cast, in
        the versions already there.
    -#}
    {%- set cols = ctx.columns -%}
    {%- set a = ctx.audit -%}
    {%- set e = ctx.events -%}
    {%- set closing = scd2_audit._scd2_events_closing_columns(ctx) -%}
    {%- set this_run = scd2_audit._scd2_audit_exprs('close').update_process_id -%}
    {%- set added = schema_change.added if schema_change else {} -%}
    {%- set widened = schema_change.widened if schema_change else {} -%}
    {%- set rebuild = schema_change is not none and schema_change.changed -%}
    {%- set body -%}
    with open_partition as (
        select
            *,
            {%- for column, type in added.items() %}
            cast(null as {{ type }}) as {{ column }},
            {%- endfor %}
            true as scd2_in_table
        from {{ target }}
        where {{ a.update_process_id }} is null
    ),

    versions as (
        select * from {{ versions }}
    )

    select
        {%- for column in table_columns %}
        {{ 'cast(' if column in widened }}case
            when t.scd2_in_table is null then s.{{ column }}
            {%- if column in closing %}
            when s.scd2_action = 'close' then s.{{ column }}
            {%- endif %}
            {%- if e.last_position is defined and column == e.last_position | lower %}
            when s.scd2_action = 'touch' then s.{{ column }}
            {%- endif %}
            else t.{{ column }}
        end{{ (' as ' ~ widened[column] ~ ')') if column in widened }} as {{ column }}
        {{- ',' if not loop.last }}
        {%- endfor %}
    from open_partition as t
    full outer join versions as s
        on
            {#- As the MERGE: the key besides the id, so that only the table is shuffled. #}
            {{ scd2_audit._scd2_join_on(ctx.key_columns, 's', 't') }}
            and s.{{ cols.dbt_scd_id }} = t.{{ cols.dbt_scd_id }}
            and s.scd2_action in ('close', 'touch')
            and {{ scd2_audit._scd2_open_version_sql('t', true, ctx) }}
    where t.scd2_in_table or s.scd2_action = 'insert'
    {%- if rebuild %}

    union all

    select
        {%- for column in table_columns %}
        {%- if column in added %}
        cast(null as {{ added[column] }}) as {{ column }}
        {%- elif column in widened %}
        cast({{ column }} as {{ widened[column] }}) as {{ column }}
        {%- else %}
        {{ column }}
        {%- endif %}{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ target }}
    where {{ a.update_process_id }} is not null
    {%- endif %}
    {%- endset -%}
    {%- if rebuild -%}
        {#- The table's own write settings win over the defaults; its write order, which the
            replace drops, is set again after it (_scd2_restore_sort_order, from ctx). -#}
        {%- set kept = scd2_audit._scd2_table_properties(target) -%}
        {%- do ctx.update({'kept_properties': kept}) -%}
        {{ scd2_audit._scd2_create_snapshot_table_sql(target, body, kept=kept) }}
    {%- else %}
    insert into {{ target }}
    replace where
        {{ a.update_process_id }} is null or {{ a.update_process_id }} = {{ this_run }}
    {{ body }}
    {%- endif %}
{%- endmacro %}
