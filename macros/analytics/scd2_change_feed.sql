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
        - _commit_timestamp: when that run processed it.
        From the metadata: run R inserted the versions with insert process id R and closed the
        versions with update process id R. Per key and run: a closed and an inserted version
        are an update (pre- and postimage); a closed one alone a delete; an inserted one alone
        an insert. The first run's versions are inserts.
        With hard_deletes='new_record', dbt's deletion records are not changes of their own:
        the version they close is a delete, and a key coming back after one is an insert.
    -#}
    {%- set ctx = scd2_audit._scd2_history_context(relation, unique_key) -%}
    {%- set a = ctx.audit -%}
    {%- set name = snapshot_name or relation.identifier -%}
    {%- set data = ctx.data_columns | join(',\n            ') -%}
    with scd2_feed_versions as (
        select
            {{ data }},
            {{ ctx.is_deletion_record }} as is_deletion_record,
            {{ a.insert_process_id }} as inserted_by,
            {{ a.insert_ts }} as inserted_at,
            {{ a.update_process_id }} as closed_by,
            {{ a.update_ts }} as closed_at
        from {{ relation }}
    ),

    scd2_feed_events as (
        select
            {{ data }},
            is_deletion_record,
            true as is_opening,
            inserted_by as _process_id,
            inserted_at as _commit_timestamp
        from scd2_feed_versions
        union all
        select
            {{ data }},
            is_deletion_record,
            false as is_opening,
            closed_by as _process_id,
            closed_at as _commit_timestamp
        from scd2_feed_versions
        where closed_by is not null
    ),

    scd2_feed_paired as (
        select
            *,
            count_if(not is_deletion_record) over (
                partition by {{ ctx.key_columns | join(', ') }}, _process_id
            ) as changes_of_key_in_run
        from scd2_feed_events
    )

    select
        '{{ name }}' as snapshot_name,
        {{ ctx.data_columns | join(',\n        ') }},
        case
            when is_opening and changes_of_key_in_run > 1 then 'update_postimage'
            when is_opening then 'insert'
            when changes_of_key_in_run > 1 then 'update_preimage'
            else 'delete'
        end as _change_type,
        _process_id,
        _commit_timestamp
    from scd2_feed_paired
    where not is_deletion_record
{%- endmacro %}
