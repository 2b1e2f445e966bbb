{% macro _scd2_events_materialization() %}
    {#-
        The scd2_events materialization (docs/events.md): the model's select is a relation of
        change events; the table it maintains holds one version per change, with dbt's
        snapshot columns, the audit columns and the event metadata columns, laid out as the
        snapshots are (_scd2_snapshot_layout: open versions in a partition of their own).
        A run, in order, writing nothing before its last two steps:
        1. refreshes what it reads (_scd2_refresh_upstream), reads the events' columns and
           the configuration (_scd2_events_context);
        2. classifies every event once, cached (_scd2_events_item_steps): new, no-op,
           duplicate, late, ambiguous or malformed;
        3. fails, naming one offending event, on malformed or ambiguous events
           (on_malformed_event='fail', the default) and on late ones (on_late_event='fail');
        4. sets the others aside in the quarantine table, with their reason (idempotent: an
           event already there with the same reason is not added again);
        5. writes the versions (_scd2_events_versions_sql): the first run (and --full-refresh:
           _scd2_events_assert_rebuild) creates the table in one `create or replace table ... as`; a
           later run replaces the open partition and adds its own in one overwrite
           (_scd2_events_overwrite_sql) committed to a branch of its own at the snapshot it started
           from, then fast-forwards main to it if nothing else committed meanwhile
           (_scd2_events_publish); a table whose partitioning was changed by hand is MERGEd into
           instead (on a branch likewise). Events that gained, widened or retyped columns since the
           table was built (_scd2_events_schema_change) rewrite the whole table with its new schema in one
           `create or replace table ... as` instead, since Iceberg changes a schema outside any
           branch. A run whose events change nothing (replays, duplicates, deletes of absent keys)
           writes nothing, not even a commit, while a no-op after its key's mark commits its
           position (event_last_position).
    -#}
    {%- set identifier = model.alias or model.name -%}
    {%- set target_relation = api.Relation.create(
        schema=model.schema, identifier=identifier, type='table') -%}
    {%- set existing = adapter.get_relation(
        database=none, schema=model.schema, identifier=identifier) -%}
    {%- set file_format = config.get('file_format') or 'parquet' -%}
    {%- if file_format != 'iceberg' -%}
        {{ exceptions.raise_compiler_error(
            "scd2_events model " ~ identifier ~ " needs file_format='iceberg' (its runs "
            ~ "overwrite partitions of the table and publish them from a branch), got '"
            ~ file_format ~ "'. Set +file_format: iceberg.") }}
    {%- endif -%}
    {%- do scd2_audit._scd2_assert_history_table(existing, 'scd2_events model ' ~ identifier) -%}
    {%- set rebuild = existing is none or should_full_refresh() -%}
    {#- Temporary views of this run and model only (`_scd2_run_view_name`). -#}
    {%- set prefix = scd2_audit._scd2_run_view_name(target_relation, 'events') ~ '_' -%}
    {%- set events_view = prefix ~ 'events' -%}
    {%- set items_view = prefix ~ 'items' -%}
    {%- set versions_view = prefix ~ 'versions' -%}
    {#- Steps read more than once are cached, so that each is computed once; lazily (the first
        query reading one loads it): an eager cache ran a job per step, a tenth of a small
        run. They stay cached until the write has read them, or until the versions are cached
        for the MERGE: uncaching a step whose dependents are not loaded makes Spark rebuild
        them from the uncached plans. -#}
    {%- set cached = ['scd2_items', 'scd2_open_marks', 'scd2_with_marks',
        'scd2_replayed'] | map('replace', 'scd2_', prefix ~ 'scd2_', 1) | list -%}
    {%- set marked_view = prefix ~ 'scd2_marked' -%}
    {#- The settings, before the hooks and any read; their checks against the columns follow
        once the select's columns are known. -#}
    {%- do scd2_audit._scd2_events_context() -%}
    {%- do scd2_audit._scd2_full_type_texts() -%}
    {% do scd2_audit._scd2_events_drop_stale_views(target_relation) %}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}
    {%- do scd2_audit._scd2_refresh_upstream(model, 'scd2_events model ' ~ identifier,
        target_relation) -%}

    {#- The events' columns and their Spark types, without running the select. -#}
    {%- set event_columns = [] -%}
    {%- set event_types = {} -%}
    {%- for column in scd2_audit._scd2_query_columns(model['compiled_code']) -%}
        {%- do event_columns.append(column.name | lower) -%}
        {%- do event_types.update({column.name | lower: column.type | lower}) -%}
    {%- endfor -%}
    {%- set ctx = scd2_audit._scd2_events_context(event_columns, event_types) -%}
    {%- do scd2_audit._scd2_assert_valid_to_current(
        "scd2_events model " ~ ctx.name, event_types.get(ctx.order_by[0])) -%}
    {%- do scd2_audit._scd2_events_assert_rebuild(ctx, existing) if rebuild and existing -%}
    {#- A table built before event_last_position existed keeps working without it: its
        no-ops are not recorded, as then (docs/events.md, "The table"). -#}
    {%- if not rebuild -%}
        {%- set existing_described = adapter.get_columns_in_relation(existing) -%}
        {%- set existing_columns = existing_described
            | map(attribute='name') | map('lower') | list -%}
        {%- if ctx.events.last_position | lower not in existing_columns -%}
            {%- set last_position = ctx.events.pop('last_position') -%}
            {{ log("scd2_events " ~ ctx.name ~ ": " ~ existing ~ " has no column "
                ~ last_position ~ ", so no-op events are not recorded and an event older "
                ~ "than one is applied, not set aside as late. To record them: alter table "
                ~ existing ~ " add column " ~ last_position ~ " (the type of "
                ~ ctx.events.opened_position ~ "), or rebuild with --full-refresh.",
                info=true) }}
        {%- endif -%}
    {%- endif -%}
    {%- set table_columns = ctx.key_columns + ctx.value_columns
        + scd2_audit._scd2_events_metadata_columns(ctx) -%}
    {#- The snapshot the table's main branch is at before the run reads it: the run's write
        goes to a branch at this snapshot and is published only if main is still there, i.e.
        if nothing committed to the table while the run read it (_scd2_events_publish). The
        reads are not pinned to it (`version as of` reads with the snapshot's schema, so a
        column added since, as event_last_position may be, would be missing): a read that
        saw another state means main moved, and the run then fails at its publication. Taken
        before the schema check, whose counts of the table's values allow its retyped
        columns' casts (_scd2_events_schema_change). -#}
    {%- set base_snapshot = none if rebuild
        else scd2_audit._scd2_events_main_snapshot(target_relation) -%}
    {%- set schema_change = none -%}
    {%- if not rebuild -%}
        {#- Events whose columns changed since the table was built: new ones are added, gone
            ones kept (NULL from now on), widened types widened, integer ones that now bring
            fractions retyped, in the run's one commit. -#}
        {%- set schema_change = scd2_audit._scd2_events_schema_change(
            ctx, existing, existing_described, event_types, model['compiled_code']) -%}
        {%- do ctx.update({
            'added_columns': schema_change.added, 'removed_columns': schema_change.removed,
        }) -%}
        {#- A key read as the table's type (recast) takes its old key along. -#}
        {%- set old_key_values = [] -%}
        {%- for old in ctx.old_key_values -%}
            {%- set key = ctx.key_columns[loop.index0] -%}
            {%- do old_key_values.append(
                ('cast(' ~ ctx.old_key_columns[loop.index0] ~ ' as '
                    ~ schema_change.recast[key] ~ ')') if key in schema_change.recast
                else old) -%}
        {%- endfor -%}
        {%- do ctx.update({'old_key_values': old_key_values}) -%}
        {%- set table_columns = schema_change.columns -%}
        {% do scd2_audit._scd2_events_assert_rewritable(ctx, existing, schema_change) %}
        {% do scd2_audit._scd2_assert_table_marks(
            existing, existing_columns, ctx, "scd2_events model " ~ ctx.name ~ ": ") %}
    {%- endif -%}
    {%- set target = none if rebuild else target_relation -%}
    {#- The table as the run's steps compare it with the events: its widened columns (and the
        positions holding a widened event_order_by column) as their new type, which the
        events have. Spark finds no common type for structs whose decimals differ. -#}
    {%- if target is not none and schema_change.widened -%}
        {%- set read = [] -%}
        {%- for column in existing_described -%}
            {%- set name = scd2_audit._scd2_quote(column.name) -%}
            {%- set wider = schema_change.widened.get(column.name | lower) -%}
            {%- do read.append(('cast(' ~ name ~ ' as ' ~ wider ~ ') as ' ~ name)
                if wider else name) -%}
        {%- endfor -%}
        {%- set target = '(select ' ~ read | join(', ') ~ ' from ' ~ target_relation ~ ')' -%}
    {%- endif -%}
    {%- set branch = 'scd2_run_' ~ (invocation_id | replace('-', '_')) -%}
    {%- set to_branch = false -%}

    {#- Session settings for the run, put back at its end (by the last to end of the runs
        under way at once in the session, or by the next invocation's runs after one stopped
        by a failing statement: _scd2_events_set_conf):
        - spark.sql.legacy.storeAnalyzedPlanForView: each step's view reads the ones before
          it, several times: stored as SQL text (Spark's default for temporary views), every
          reference re-analyses the whole chain, and the analysis grows exponentially with the
          steps (minutes, then out of memory, for a thousand events with a five-column key).
          Stored as analysed plans, it does not.
        - spark.sql.adaptive.enabled off: at each re-plan, adaptive execution writes the whole
          plan out for Spark's listeners, and a plan over the cached steps holds each step's
          plan once per path to it: seconds per statement, growing with the steps
          (docs/performance.md, "Sizing Spark"). Without it,
          shuffles keep spark.sql.shuffle.partitions and joins are chosen from the sizes
          Spark knows before running (those of the cached steps are exact).
        - spark.sql.inMemoryColumnarStorage.compressed off: the run's cached steps live for
          one run and are each read a few times; compressing them cost more than computing
          them (the same section). They take more memory (spilled to disk beyond it).
        - spark.sql.requireAllClusterKeysForCoPartition off: the MERGE joins on the key and
          the version id, and its source, the versions, is already partitioned by the key;
          Spark then shuffles only the table to match, where by default it shuffles both by
          all the join's columns. -#}
    {%- set conf_before = scd2_audit._scd2_events_set_conf({
        'spark.sql.legacy.storeAnalyzedPlanForView': 'true',
        'spark.sql.adaptive.enabled': 'false',
        'spark.sql.inMemoryColumnarStorage.compressed': 'false',
        'spark.sql.requireAllClusterKeysForCoPartition': 'false',
    }) -%}

    {#- Columns read as the table's type (_scd2_events_schema_change's read_as). -#}
    {%- set read_as = schema_change.read_as if schema_change else {} -%}
    {% call statement('scd2_events_view') %}
        create or replace temporary view {{ events_view }} as
        {%- if read_as %}
        select
            {%- for column in event_columns %}
            {%- if column in read_as %}
            {{ read_as[column] }} as {{ column }}
            {%- else %}
            {{ column }}
            {%- endif %}{{ ',' if not loop.last }}
            {%- endfor %}
        from (
            {{ model['compiled_code'] }}
        ) as scd2_events
        {%- else %}
        {{ model['compiled_code'] }}
        {%- endif %}
    {% endcall %}
    {%- set views = [events_view] -%}
    {%- set steps = scd2_audit._scd2_events_item_steps(ctx, events_view, target, prefix) -%}
    {%- for step in steps -%}
        {%- set view = prefix ~ step[0] -%}
        {%- do views.append(view) -%}
        {%- set empty = step | length > 2 and run_query(step[2]) | length == 0 -%}
        {% call statement('scd2_events_' ~ step[0]) %}
            {{ 'cache lazy table' if view in cached else 'create or replace temporary view' }}
            {{ view }} as
            {%- if empty %}
            select * from ({{ step[1] }}) where false
            {%- else %}
            {{ step[1] }}
            {%- endif %}
        {% endcall %}
    {%- endfor -%}
    {%- do views.append(items_view) -%}
    {%- do views.append(versions_view) -%}
    {%- set summary = scd2_audit._scd2_events_summary(
        ctx, marked_view, views, conf_before) -%}

    {#- The first write of the run (the quarantine or the table) is after its last check. -#}
    {% if not adapter.check_schema_exists(model.database, model.schema) %}
        {% do create_schema(target_relation.without_identifier()) %}
    {% endif %}

    {#- Items of an event set aside are not applied: with anything set aside, the items are
        cached with that flag. -#}
    {% call statement('scd2_events_items') %}
        {{ 'cache lazy table' if summary.set_aside else 'create or replace temporary view' }}
        {{ items_view }} as
        {{ scd2_audit._scd2_events_items_sql(marked_view, summary.set_aside > 0) }}
    {% endcall %}
    {%- if summary.set_aside -%}
        {%- set summary = scd2_audit._scd2_events_withheld(ctx, summary, items_view) -%}
        {% do scd2_audit._scd2_events_quarantine(
            ctx, events_view, items_view, views, conf_before) %}
    {%- endif -%}

    {%- set versions_sql = scd2_audit._scd2_events_versions_sql(ctx, items_view, not rebuild) -%}
    {#- A view over the cached steps: the write computes it (the overwrite reads it once), which
        saved building and holding a cache of every version row (day 2 of the 1M-key
        benchmark, alternating: 44.4 and 47.4 s against 47.7 and 53.2 s cached, docs/events.md
        "Known limits"). Only the MERGE caches it, below. -#}
    {% call statement('scd2_events_versions') %}
        create or replace temporary view {{ versions_view }} as {{ versions_sql }}
    {% endcall %}

    {%- if rebuild -%}
        {%- set build_sql -%}
            select
                {%- for column in table_columns %}
                {{ column }}{{ ',' if not loop.last }}
                {%- endfor %}
            from {{ versions_view }}
        {%- endset -%}
        {%- set main_sql = scd2_audit._scd2_create_snapshot_table_sql(target_relation, build_sql) -%}
    {%- else -%}
        {#- No version row to write or close (a batch applied again, only duplicates, or
            deletes of keys with no open version) and no no-op to record: no write, since
            Iceberg commits even an empty one. An upsert applied (new, or a no-op whose
            position is recorded) always gives a row: a version, or the position recorded on
            the key's open version, if the table records no-ops and no event is set aside.
            Else whether there is a row is asked of the versions, computed as far as their
            first row: the steps leave them partitioned by the key, so Spark computes the
            first partition and stops. -#}
        {%- set writes = summary.applied > 0 and (
            (summary.applied_upserts > 0 and not summary.set_aside
                and ctx.events.last_position is defined)
            or run_query('select 1 from ' ~ versions_view ~ ' limit 1') | length > 0) -%}
        {%- if writes -%}
            {#- The write: see _scd2_events_overwrite_sql (a MERGE only for a table whose
                partitioning was changed by hand); either commits to a branch of the run's
                own, published by _scd2_events_publish. -#}
            {%- set overwrite = base_snapshot is not none
                and scd2_audit._scd2_snapshot_layout(existing, true).partitioned -%}
            {#- The MERGE reads the versions twice: they are cached, and the steps before them
                uncached and dropped first, since after a write Spark refreshes, re-planning
                it, every cached relation that reads the table, and every step reads it. The
                overwrite reads the steps: they are dropped after it. -#}
            {%- if not overwrite -%}
                {% do scd2_audit._scd2_run_sql('cache table ' ~ versions_view) %}
                {% do scd2_audit._scd2_events_drop_views(
                    views | reject('equalto', versions_view) | list) %}
                {%- set views = [versions_view] -%}
            {%- endif -%}
            {%- set write_to = target_relation -%}
            {%- if schema_change.changed -%}
                {#- A new schema is written by replacing the table in one commit, which no
                    branch can hold (_scd2_events_overwrite_sql): published at once, if main
                    has not moved since the run began to read it. -#}
                {%- set main_now = scd2_audit._scd2_events_main_snapshot(target_relation) -%}
                {%- if main_now != base_snapshot -%}
                    {% do scd2_audit._scd2_events_drop_views(views) %}
                    {% do scd2_audit._scd2_events_set_conf(conf_before, restore=true) %}
                    {% do scd2_audit._scd2_events_raise_moved(
                        ctx, target_relation, base_snapshot, main_now) %}
                {%- endif -%}
            {%- elif base_snapshot is not none -%}
                {%- set write_to = scd2_audit._scd2_events_create_branch(
                    target_relation, branch, base_snapshot) -%}
                {%- set to_branch = true -%}
            {%- endif -%}
            {%- if overwrite -%}
                {%- set main_sql = scd2_audit._scd2_events_overwrite_sql(
                    ctx, write_to, versions_view, table_columns, schema_change) -%}
            {%- else -%}
                {%- set main_sql = scd2_audit._scd2_events_merge_sql(
                    ctx, write_to, versions_view, table_columns) -%}
            {%- endif -%}
        {%- else -%}
            {%- set main_sql = 'select 0 as scd2_new_events' -%}
        {%- endif -%}
    {%- endif -%}

    {% call statement('main') %}
        {{ main_sql }}
    {% endcall %}
    {% do scd2_audit._scd2_restore_sort_order(target_relation, ctx.get('kept_properties', {})) %}

    {% do scd2_audit._scd2_events_drop_views(views) %}
    {% do scd2_audit._scd2_events_set_conf(conf_before, restore=true) %}
    {%- if to_branch -%}
        {% do scd2_audit._scd2_events_publish(ctx, target_relation, branch, base_snapshot) %}
    {%- endif -%}

    {% do apply_grants(target_relation, config.get('grants'), should_revoke(existing, rebuild)) %}
    {% do persist_docs(target_relation, model) %}

    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {{ adapter.commit() }}
    {{ run_hooks(post_hooks, inside_transaction=False) }}

    {{ return({'relations': [target_relation]}) }}
{% endmacro %}
