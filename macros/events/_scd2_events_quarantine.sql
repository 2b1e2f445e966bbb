{% macro _scd2_events_quarantine(ctx, events, items, views, conf_before) -%}
    {#-
        Sets aside, in the quarantine table (ctx.quarantine, created on first use), every
        event with a late, ambiguous or malformed item: the event's own columns, then
        scd2_reason, scd2_process_id (this run's invocation_id), scd2_quarantined_at and
        scd2_event_hash (a hash of its identity columns, _scd2_events_context). An event
        already there with the same reason is not added again, so a batch applied twice
        quarantines its events once; with none to add, nothing is written, not even the
        empty commit Iceberg makes of a MERGE that inserts nothing (a replay added one each
        time). The events set aside are computed once, cached, for that check and the MERGE.
        Runs before the versions are written: a run that fails after it leaves the events
        there, and its rerun adds nothing. Fails first, dropping the run's `views` and putting
        back the session settings `conf_before` (as
        _scd2_events_summary), when a table of the quarantine's name is not a quarantine,
        when an event set aside is not found again in `events`, and when an integer column
        the events now bring as doubles holds values a double would round.
    -#}
    {#- The events set aside, each with its reason: one row per event id. -#}
    {%- set reasons -%}
        select
            scd2_event_id,
            min_by(
                case scd2_status
                    when 'malformed' then concat('malformed: ', scd2_problem)
                    when 'ambiguous' then 'ambiguous: another event of its key has the '
                        || 'same position (event_order_by) and other contents'
                    when 'late' then 'late: at or before the last event applied to its '
                        || 'key, and not what the history holds there'
                end,
                case scd2_status when 'malformed' then 1 when 'ambiguous' then 2 else 3 end
            ) as scd2_reason
        from {{ items }}
        where {{ scd2_audit._scd2_events_is_set_aside() }}
        group by scd2_event_id
    {%- endset -%}
    {%- set set_aside -%}
        with scd2_reasons as (
            {{ reasons }}
        )

        select
            {%- for column in ctx.event_columns %}
            e.{{ column }},
            {%- endfor %}
            r.scd2_reason,
            '{{ invocation_id }}' as scd2_process_id,
            {{ snapshot_get_time() }} as scd2_quarantined_at,
            sha2({{ scd2_audit._scd2_events_json(
                'struct(' ~ ctx.identity_columns | join(', ') ~ ')') }}, 256)
                as scd2_event_hash
        from (
            {#- One row per event: two deliveries of one event in the batch (identical, or
                differing only in columns that are not its identity, such as a load time) are
                set aside once, as they are applied once. -#}
            select
                *,
                row_number() over (
                    partition by scd2_event_id
                    order by {{ ctx.event_columns | join(', ') }}
                ) as scd2_delivery
            from (
                select
                    *,
                    {{ scd2_audit._scd2_events_event_id(ctx) }} as scd2_event_id
                from {{ events }}
            ) as scd2_deliveries
        ) as e
        inner join scd2_reasons as r on e.scd2_event_id = r.scd2_event_id
        where e.scd2_delivery = 1
    {%- endset -%}
    {#- A table of that name that is not a quarantine (one outside dbt's graph, which
        _scd2_events_context checks): the events would be merged into it, its columns
        widened and added to. Checked before anything is written. -#}
    {%- set own_columns = ['scd2_reason', 'scd2_process_id', 'scd2_quarantined_at',
        'scd2_event_hash'] -%}
    {%- set existing = adapter.get_relation(database=ctx.quarantine.database,
        schema=ctx.quarantine.schema, identifier=ctx.quarantine.identifier) -%}
    {%- set held_types = scd2_audit._scd2_column_types(existing) if existing is not none
        else {} -%}
    {%- set lacking = own_columns | reject('in', held_types) | list -%}
    {%- if existing is not none and (existing.type != 'table' or lacking) -%}
        {% do scd2_audit._scd2_events_drop_views(views) %}
        {% do scd2_audit._scd2_events_set_conf(conf_before, restore=true) %}
        {{ exceptions.raise_compiler_error(
            "scd2_events model " ~ ctx.name ~ ": its quarantine table " ~ ctx.quarantine
            ~ " (event_quarantine, default <model>__quarantine) exists and is not a quarantine ("
            ~ ("a " ~ existing.type if existing.type != 'table' else "no column(s) " ~ lacking)
            ~ "), and this run would set events aside there. Nothing was written. Give the model "
            ~ "a quarantine of its own (event_quarantine), or move that table away.") }}
    {%- endif -%}
    {#- The events are read again here, for their own columns: every event set aside must be
        found again, or it would be neither applied nor kept (a relation whose rows changed
        while the run read it). Checked before anything is written. -#}
    {%- set found -%}
        select count(*) as set_aside, count(e.scd2_event_id) as found
        from ({{ reasons }}) as r
        left join (
            select distinct {{ scd2_audit._scd2_events_event_id(ctx) }} as scd2_event_id
            from {{ events }}
        ) as e on r.scd2_event_id = e.scd2_event_id
    {%- endset -%}
    {%- set counts = run_query(found).rows[0] -%}
    {%- if counts[0] != counts[1] -%}
        {% do scd2_audit._scd2_events_drop_views(views) %}
        {% do scd2_audit._scd2_events_set_conf(conf_before, restore=true) %}
        {{ exceptions.raise_compiler_error(
            "scd2_events model " ~ ctx.name ~ ": " ~ (counts[0] - counts[1]) ~ " of the "
            ~ counts[0] ~ " event(s) this run sets aside are no longer in the events relation "
            ~ "when it reads them again to write them to " ~ ctx.quarantine ~ ": its rows "
            ~ "changed while the run read them. Nothing was written. Run the model again once "
            ~ "the relation holds a stable batch.") }}
    {%- endif -%}
    {%- if existing is none -%}
        {% do scd2_audit._scd2_run_sql('create table if not exists ' ~ ctx.quarantine
            ~ ' using iceberg as select * from (' ~ set_aside ~ ') where false') %}
        {%- set held_types = scd2_audit._scd2_column_types(ctx.quarantine) -%}
    {%- endif -%}
    {#- Events whose columns changed since the quarantine was created: a new column is added
        to it (after its own), a widened type widened, and a column the events no longer
        have is NULL in the rows set aside from now on. An integer column whose events now
        bring doubles or floats (which the history followed, _scd2_events_schema_change) is
        rewritten as the new type, since Iceberg changes no integer to a float in place. All
        of it only when there is an event to add, before the MERGE that adds them. -#}
    {%- set held = held_types.keys() | list -%}
    {%- set new_columns = [] -%}
    {%- set new_names = [] -%}
    {%- set widened = {} -%}
    {%- set retyped = {} -%}
    {%- for column in scd2_audit._scd2_query_columns(set_aside) -%}
        {%- set name = column.name | lower -%}
        {%- if name not in held_types -%}
            {%- do new_columns.append(column.name ~ ' ' ~ column.type) -%}
            {%- do new_names.append(name) -%}
        {%- else -%}
            {%- set verdict = scd2_audit._scd2_type_change(held_types[name], column.type) -%}
            {%- do (widened if verdict == 'widen' else retyped if verdict == 'retype'
                else {}).update({name: column.type}) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set given = ctx.event_columns + own_columns -%}
    {%- set columns = held + new_names -%}
    {%- set inserted = [] -%}
    {%- for column in columns -%}
        {%- do inserted.append(('s.' ~ column) if column in given else 'null') -%}
    {%- endfor -%}
    {#- Named after the run's own views (`events`), so that a run stopped before the drop
        below leaves it to the next run's _scd2_events_drop_stale_views, as its other steps. -#}
    {%- set set_aside_view = events ~ '_set_aside' -%}
    {% do scd2_audit._scd2_run_sql('cache table ' ~ set_aside_view ~ ' as ' ~ set_aside) %}
    {%- set held_on = 'q.scd2_event_hash = s.scd2_event_hash and q.scd2_reason = s.scd2_reason' -%}
    {%- set unheld = run_query('select 1 from ' ~ set_aside_view ~ ' as s where not exists ('
        ~ 'select 1 from ' ~ ctx.quarantine ~ ' as q where ' ~ held_on ~ ') limit 1') -%}
    {%- if unheld | length > 0 and retyped -%}
        {#- The quarantine's values of a retyped column must lie within the bound up to which
            the new type holds every integer, or the rewrite would round them. -#}
        {%- set checked = [] -%}
        {%- for name, new_type in retyped.items() -%}
            {%- do checked.append([name, held_types[name], new_type]) -%}
        {%- endfor -%}
        {%- set rounded = [] -%}
        {%- for name, count in scd2_audit._scd2_count_beyond_bound(ctx.quarantine, checked)
                .items() -%}
            {%- do rounded.append(name ~ " (" ~ count ~ " value(s) beyond ±"
                ~ scd2_audit._scd2_exact_integer_bound(retyped[name]) ~ ")") -%}
        {%- endfor -%}
        {%- if rounded -%}
            {% do scd2_audit._scd2_run_sql('drop view if exists ' ~ set_aside_view) %}
            {% do scd2_audit._scd2_events_drop_views(views) %}
            {% do scd2_audit._scd2_events_set_conf(conf_before, restore=true) %}
            {{ exceptions.raise_compiler_error(
                "scd2_events model " ~ ctx.name ~ ": the events it sets aside hold doubles or "
                ~ "floats in integer column(s) of its quarantine " ~ ctx.quarantine ~ ", whose "
                ~ "values that type would round: " ~ rounded | join(', ') ~ ". Nothing was "
                ~ "written. Move the quarantine's rows that hold them to a table of their own, "
                ~ "or cast the column back to the quarantine's type in the model's select "
                ~ "(losing the fractions of its new values).") }}
        {%- endif -%}
    {%- endif -%}
    {%- if unheld | length > 0 -%}
        {%- for name, new_type in widened.items() -%}
            {% do scd2_audit._scd2_run_sql('alter table ' ~ ctx.quarantine
                ~ ' alter column ' ~ name ~ ' type ' ~ new_type) %}
        {%- endfor -%}
        {%- if new_columns -%}
            {% do scd2_audit._scd2_run_sql('alter table ' ~ ctx.quarantine ~ ' add columns ('
                ~ new_columns | join(', ') ~ ')') %}
        {%- endif -%}
        {%- if retyped -%}
            {#- Each cast checks its values again, should rows have come since the count. -#}
            {%- set rewritten = [] -%}
            {%- for column in columns -%}
                {%- do rewritten.append((scd2_audit._scd2_exact_cast_sql(column,
                    held_types[column], retyped[column], "scd2_events model " ~ ctx.name
                    ~ ": " ~ ctx.quarantine ~ " gained a value of " ~ column ~ " beyond ±"
                    ~ scd2_audit._scd2_exact_integer_bound(retyped[column]) ~ " while the run "
                    ~ "rewrote it. No event was written; run it again.") ~ ' as ' ~ column)
                    if column in retyped else column) -%}
            {%- endfor -%}
            {% do scd2_audit._scd2_run_sql('create or replace table ' ~ ctx.quarantine
                ~ ' using iceberg as select ' ~ rewritten | join(', ') ~ ' from '
                ~ ctx.quarantine) %}
        {%- endif -%}
        {% do scd2_audit._scd2_run_sql(
            'merge into ' ~ ctx.quarantine ~ ' as q using ' ~ set_aside_view ~ ' as s'
            ~ ' on ' ~ held_on
            ~ ' when not matched then insert (' ~ columns | join(', ') ~ ') values ('
            ~ inserted | join(', ') ~ ')') %}
    {%- endif -%}
    {% do scd2_audit._scd2_run_sql('drop view if exists ' ~ set_aside_view) %}
{%- endmacro %}
