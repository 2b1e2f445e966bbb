{% macro scd2_change_feed(relation, snapshot_name=none, unique_key=none) -%}
    {{ return(adapter.dispatch('scd2_change_feed', 'scd2_audit')(
        relation, snapshot_name, unique_key)) }}
{%- endmacro %}

{% macro default__scd2_change_feed(relation, snapshot_name=none, unique_key=none) -%}
    {#-
        A select of a snapshot's changes, run by run, in the shape of Delta Lake's change data
        feed: one row per change, with
        - snapshot_name (default: the relation's name),
        - the key and data columns of the version concerned,
        - _change_type: 'insert', 'update_preimage', 'update_postimage' or 'delete',
        - _process_id: the run (dbt invocation_id) that made the change,
        - _commit_timestamp: when that run processed it,
        - _change_ts: when the change took effect on the history's time axis (the version's
          dbt_valid_from for an insert or a postimage, its dbt_valid_to for a preimage or a
          delete),
        - _change_order: the change's place among its key's changes, over the whole history
          (the key's n-th version opens at 2n - 1 and closes at 2n, so an update's preimage
          comes just before its postimage): ascending, not consecutive, comparable within a
          key only. _change_ts alone cannot order changes that take effect at one time, as an
          scd2_events run's create and update of a key at one event time (its tie-breaker),
        - _version_inserted_by: the run that inserted the version concerned (for a preimage
          or a delete: _process_id itself when that run opened and closed it, as an
          scd2_events run does with a key's intermediate versions).
        From the metadata: run R inserted the versions with insert process id R and closed the
        versions with update process id R. A closed version and the key's next version make
        an update (pre- and postimage) when the run that closed the first inserted the second
        where the first ended: on a snapshot, its dbt_valid_to is the next one's
        dbt_valid_from; on an scd2_events table, it was closed as an 'update' at the position
        that opened the next one (a run can hold several changes of a key there, a delete and
        a re-creation among them). Any other closing is a delete, any other opening an insert:
        so the first run's versions are inserts, and a key change is a delete of the old key
        and an insert of the new one, as Debezium emits it.
        With hard_deletes='new_record', dbt's deletion records are not changes of their own:
        the version they close is a delete, and a key coming back after one is an insert.
        On a table built by stock dbt and upgraded (docs/snapshot-metadata.md), the runs
        before the upgrade are unknown: their versions have no inserting run (NULL) and those
        they closed the unknown closing run (_scd2_unknown_process_id), which links them as
        one unknown run: an update of those runs is an update, not a delete and an insert.
    -#}
    {%- set ctx = scd2_audit._scd2_history_context(relation, unique_key, needs_audit=true) -%}
    {%- set a = ctx.audit -%}
    {%- set cols = ctx.columns -%}
    {%- set e = ctx.events -%}
    {%- set name = snapshot_name or (relation.identifier if relation is not none else '') -%}
    {#- The feed's own columns, and the scd2_ names of its steps, beside the data columns: a
        data column of one of those names (a source read from Delta's change feed holds
        _change_type and _commit_timestamp) failed with Spark's AMBIGUOUS_REFERENCE. -#}
    {%- set own = ['snapshot_name', '_change_type', '_process_id', '_commit_timestamp',
        '_change_ts', '_change_order', '_version_inserted_by'] -%}
    {%- set clashes = [] -%}
    {%- for column in ctx.data_columns if column | lower in own
            or (column | lower).startswith('scd2_') -%}
        {%- do clashes.append(column) -%}
    {%- endfor -%}
    {%- if execute and clashes -%}
        {{ exceptions.raise_compiler_error(
            "scd2_change_feed on " ~ relation ~ ": the column(s) " ~ clashes | join(', ')
            ~ " have the names of the feed's own columns (" ~ own | join(', ') ~ ", and scd2_*"
            ~ " for its steps). Rename them in the snapshot's select (or select the table "
            ~ "with them renamed, and pass that).") }}
    {%- endif -%}
    {%- set data = ctx.quoted.data_columns | join(',\n            ') -%}
    {%- set unknown = scd2_audit._scd2_unknown_process_id() -%}
    {#- Whether a version (scd2_{p}...) continues into the next one (scd2_{n}...), see above. -#}
    {%- if e -%}
        {%- set key_order = 'scd2_opened_position' -%}
        {%- set continues = "scd2_{p}closed_as = 'update'"
            ~ ' and scd2_{p}closed_position = scd2_{n}opened_position' -%}
    {%- else -%}
        {#- Versions of one instant (zero-length, several runs' changes within one day of a date
            validity) tie on their range: the run that inserted them orders them. -#}
        {%- set key_order = 'scd2_effective_start, scd2_effective_end, scd2_inserted_at' -%}
        {%- set continues = 'scd2_{p}valid_to = scd2_{n}valid_from' -%}
    {%- endif -%}
    {#- The key's window, written out in each call rather than named in a WINDOW clause: an
        Iceberg view in a catalog of Iceberg's own (SparkCatalog: hadoop, REST, JDBC, not the
        session catalog) is analysed without Spark's substitution of named windows, so a view
        over this select (or a view reading such a view) failed with "Window specification
        scd2_key_order is not defined in the WINDOW clause". -#}
    {%- set key_window = '(partition by ' ~ ctx.quoted.key_columns | join(', ')
        ~ ' order by ' ~ key_order ~ ')' -%}
    with scd2_feed_versions as (
        select
            {{ data }},
            {{ ctx.is_deletion_record }} as scd2_is_deletion_record,
            {{ a.insert_process_id }} as scd2_inserted_by,
            {{ a.insert_ts }} as scd2_inserted_at,
            {{ a.update_process_id }} as scd2_closed_by,
            {{ a.update_ts }} as scd2_closed_at,
            {{ cols.dbt_valid_from }} as scd2_valid_from,
            {{ cols.dbt_valid_to }} as scd2_valid_to,
            {%- if e %}
            {{ e.opened_position }} as scd2_opened_position,
            {{ e.closed_position }} as scd2_closed_position,
            {{ e.closed_as }} as scd2_closed_as
            {%- else %}
            {{ a.effective_start_ts }} as scd2_effective_start,
            {{ a.effective_end_ts }} as scd2_effective_end
            {%- endif %}
        from {{ relation }}
    ),

    scd2_feed_neighbours as (
        select
            *,
            lag(scd2_is_deletion_record) over {{ key_window }} as scd2_prior_is_deletion_record,
            lag(scd2_closed_by) over {{ key_window }} as scd2_prior_closed_by,
            {%- if e %}
            lag(scd2_closed_as) over {{ key_window }} as scd2_prior_closed_as,
            lag(scd2_closed_position) over {{ key_window }} as scd2_prior_closed_position,
            lead(scd2_opened_position) over {{ key_window }} as scd2_next_opened_position,
            {%- else %}
            lag(scd2_valid_to) over {{ key_window }} as scd2_prior_valid_to,
            lead(scd2_valid_from) over {{ key_window }} as scd2_next_valid_from,
            {%- endif %}
            lead(scd2_is_deletion_record) over {{ key_window }} as scd2_next_is_deletion_record,
            lead(scd2_inserted_by) over {{ key_window }} as scd2_next_inserted_by,
            row_number() over {{ key_window }} as scd2_version_number
        from scd2_feed_versions
    ),

    scd2_feed_linked as (
        select
            *,
            {#- Closed by an update: the key's next version continues it. #}
            coalesce(
                scd2_closed_by = coalesce(scd2_next_inserted_by, {{ unknown }})
                and not scd2_next_is_deletion_record
                and {{ continues.format(p='', n='next_') }},
                false
            ) as scd2_is_updated,
            {#- Opened by an update: it continues the key's version before it. #}
            coalesce(
                scd2_prior_closed_by = coalesce(scd2_inserted_by, {{ unknown }})
                and not scd2_prior_is_deletion_record
                and {{ continues.format(p='prior_', n='') }},
                false
            ) as scd2_is_update
        from scd2_feed_neighbours
        where not scd2_is_deletion_record
    ),

    scd2_feed_events as (
        select
            {{ data }},
            case when scd2_is_update then 'update_postimage' else 'insert' end as _change_type,
            scd2_inserted_by as _process_id,
            scd2_inserted_at as _commit_timestamp,
            scd2_valid_from as _change_ts,
            2 * scd2_version_number - 1 as _change_order,
            scd2_inserted_by as _version_inserted_by
        from scd2_feed_linked
        union all
        select
            {{ data }},
            case when scd2_is_updated then 'update_preimage' else 'delete' end as _change_type,
            scd2_closed_by as _process_id,
            scd2_closed_at as _commit_timestamp,
            scd2_valid_to as _change_ts,
            2 * scd2_version_number as _change_order,
            scd2_inserted_by as _version_inserted_by
        from scd2_feed_linked
        where scd2_closed_by is not null
    )

    select
        {{ scd2_audit._scd2_sql_string(name) }} as snapshot_name,
        {{ ctx.quoted.data_columns | join(',\n        ') }},
        _change_type,
        _process_id,
        _commit_timestamp,
        _change_ts,
        _change_order,
        _version_inserted_by
    from scd2_feed_events
{%- endmacro %}
