{% macro scd2_run_audit(change_feed) -%}
    {{ return(adapter.dispatch('scd2_run_audit', 'scd2_audit')(change_feed)) }}
{%- endmacro %}

{% macro default__scd2_run_audit(change_feed) -%}
    {#-
        A select of one row per snapshot and run (process id) from a change feed in the shape
        of scd2_change_feed() (snapshot_name, _change_type, _process_id, _commit_timestamp,
        _version_inserted_by): when the run processed its changes, and how many versions it
        inserted, closed as updates, closed as deletes, and left untouched (open before and
        after it). open_versions is a running total per snapshot, in run order: open after
        run R = everything inserted up to R - everything closed up to R. The versions open
        before R that R closed are R's closings less those of versions R inserted itself (an
        scd2_events run's intermediate versions), so versions_unchanged = open after R - R's
        insertions + those closings.
        A run that changed nothing leaves no trace in a snapshot table, so it has no row here.
        The feed is checked first, as the other analyst macros check their relation: none
        (a table that does not exist) or a relation without the feed's columns (a snapshot
        passed in its place) failed with Spark's TABLE_OR_VIEW_NOT_FOUND `None` or
        UNRESOLVED_COLUMN. A feed not built yet (dbt compile) is not checked.
    -#}
    {%- set needed = ['snapshot_name', '_process_id', '_change_type', '_commit_timestamp',
        '_version_inserted_by'] -%}
    {%- if execute and change_feed is none -%}
        {{ exceptions.raise_compiler_error(
            "scd2_run_audit: the change feed is none (a table that does not exist?). Pass a "
            ~ "change feed, e.g. ref('snapshot_change_feed'), a model that selects "
            ~ "scd2_change_feed(ref('my_snapshot')).") }}
    {%- endif -%}
    {%- set columns = scd2_audit._scd2_column_types(change_feed) -%}
    {%- set missing = needed | reject('in', columns) | list -%}
    {%- if columns and missing -%}
        {{ exceptions.raise_compiler_error(
            "scd2_run_audit on " ~ change_feed ~ ": it has no column(s) " ~ missing | join(', ')
            ~ " (its columns: " ~ columns.keys() | join(', ') ~ "), so it is no change feed. "
            ~ "Pass a change feed, e.g. ref('snapshot_change_feed'), a model that selects "
            ~ "scd2_change_feed(ref('my_snapshot')), not the snapshot itself.") }}
    {%- endif -%}
    with scd2_audit_changes as (
        select
            snapshot_name,
            _process_id,
            _change_type,
            _commit_timestamp,
            _version_inserted_by
        from {{ change_feed }}
    ),

    scd2_audit_runs as (
        select
            snapshot_name,
            _process_id as process_id,
            min(_commit_timestamp) as first_processed_ts,
            max(_commit_timestamp) as last_processed_ts,
            count_if(_change_type in ('insert', 'update_postimage')) as versions_inserted,
            count_if(_change_type = 'insert') as keys_inserted,
            count_if(_change_type = 'update_preimage') as versions_updated,
            count_if(_change_type = 'delete') as versions_deleted,
            count_if(
                _change_type in ('update_preimage', 'delete')
                and _version_inserted_by = _process_id
            ) as versions_inserted_and_closed
        from scd2_audit_changes
        group by snapshot_name, _process_id
    ),

    scd2_audit_totals as (
        select
            *,
            sum(versions_inserted - versions_updated - versions_deleted) over (
                partition by snapshot_name
                order by first_processed_ts, process_id
                rows between unbounded preceding and current row
            ) as open_versions
        from scd2_audit_runs
    )

    select
        snapshot_name,
        process_id,
        first_processed_ts,
        last_processed_ts,
        versions_inserted,
        keys_inserted,
        versions_updated,
        versions_deleted,
        open_versions - versions_inserted + versions_inserted_and_closed as versions_unchanged,
        open_versions
    from scd2_audit_totals
{%- endmacro %}
