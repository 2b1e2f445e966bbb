{% macro spark__snapshot_staging_table(strategy, source_sql, target_relation) -%}
    {#-
        dbt's default__snapshot_staging_table (dbt-adapters 1.x) in one pass. dbt joins the
        source with the open versions three times (insertions: left join; updates: inner join;
        deletes and deletion records: the reverse left join). Here one full outer join on the
        same key condition (dbt's unique_key_join_on) yields every pair those three joins see,
        each once, and each pair is turned into the rows dbt would stage for it by testing dbt's
        own where-conditions on it (an `explode` of the change types that hold):
        - 'insert' (dbt's insertions): a source row with no open version of its key, or whose
          open version changed (strategy.row_changed; for hard_deletes='new_record' also an
          open deletion record);
        - 'update' (dbt's updates): the open version of a source row that changed, closed at
          strategy.updated_at;
        - 'delete' (dbt's deletes) and, for 'new_record', dbt's deletion record (staged as
          'insert'): an open version whose key the source no longer has.
        The rows staged, their columns and values are dbt's, so that spark__snapshot_merge_sql
        (dbt-spark's MERGE) writes the same versions. What is added to dbt's logic:
        1. the source is checked first (null or duplicate keys, and the share of open versions
           the run would close as deleted, var scd2_max_delete_share): the run fails before
           anything is written;
        2. every row carries the operational metadata columns (_scd2_audit_exprs);
        3. only the open partition of the table is read (audit update_process_id is null, see
           _scd2_snapshot_layout): closed history is never scanned, so a run's cost does not
           grow with the length of the history. Where a new version's dbt_scd_id does not
           contain the run's time (timestamp strategy, or check with updated_at), dbt's MERGE
           skips an insert whose dbt_scd_id is already in the table (a key back with the
           updated_at of a closed version); that one check joins the dbt_scd_id column of the
           closed history with the source's new ids;
        4. deletion records read the snapshotted columns through the adapter
           (adapter.get_columns_in_relation: on Spark the get_columns_in_relation macro returns
           raw `describe` rows without `.name`, https://github.com/dbt-labs/dbt-core/issues/11949);
        5. the final select names its columns and leaves out dbt's join helpers dbt_unique_key /
           dbt_unique_key_N: dbt-spark's materialization filters only `dbt_unique_key` and
           `dbt_change_type` out of the columns it adds to the target, so with a list
           unique_key the second run added dbt_unique_key_1..N to the snapshot table
           (https://github.com/dbt-labs/dbt-adapters/issues/2101).
    -#}
    {%- set columns = config.get('snapshot_table_column_names') or get_snapshot_table_column_names() -%}
    {%- set audit = scd2_audit_column_names() -%}
    {%- do _scd2_assert_source_keys(strategy, source_sql) -%}
    {%- do _scd2_assert_delete_share(strategy, source_sql, target_relation) -%}
    {%- set source_col_names = get_columns_in_query(source_sql) -%}
    {%- set snapshotted_cols = get_list_of_column_names(adapter.get_columns_in_relation(target_relation)) -%}
    {%- set new_record = strategy.hard_deletes == 'new_record' -%}
    {%- set tracks_deletes = strategy.hard_deletes in ('invalidate', 'new_record') -%}
    {%- set now = snapshot_get_time() -%}
    {%- set run_unique_scd_id = (strategy.updated_at | trim) == (now | trim) -%}
    {%- set open_events = {
        'insert': _scd2_audit_exprs('open', valid_from='s.' ~ columns.dbt_valid_from),
        'deletion': _scd2_audit_exprs('open', valid_from=now),
    } -%}
    {%- set close_events = {
        'update': _scd2_audit_exprs('close', valid_to='s.' ~ columns.dbt_updated_at),
        'delete': _scd2_audit_exprs('close', valid_to=now),
    } -%}
    {%- set latest_is_deleted -%}
        snapshotted_data.{{ columns.dbt_is_deleted }} = 'True'
        and
        {% if config.get('dbt_valid_to_current') -%}
            snapshotted_data.{{ columns.dbt_valid_to }} = {{ config.get('dbt_valid_to_current') }}
        {%- else -%}
            snapshotted_data.{{ columns.dbt_valid_to }} is null
        {%- endif %}
    {%- endset %}

    with snapshot_query as (

        {{ source_sql }}

    ),

    snapshotted_data as (

        select *,
            {{ unique_key_fields(strategy.unique_key) }},
            true as dbt_scd2_target_row
        from {{ target_relation }}
        where {{ _scd2_open_version_sql() }}

    ),

    source_data as (

        select *,
            {{ unique_key_fields(strategy.unique_key) }},
            {{ strategy.updated_at }} as {{ columns.dbt_updated_at }},
            {{ strategy.updated_at }} as {{ columns.dbt_valid_from }},
            {{ get_dbt_valid_to_current(strategy, columns) }},
            {{ strategy.scd_id }} as {{ columns.dbt_scd_id }},
            true as dbt_scd2_source_row
        from snapshot_query

    ),

    pairs as (

        select
            struct(source_data.*) as s,
            struct(snapshotted_data.*) as t,
            {#- dbt's insertions: source left join snapshotted_data #}
            coalesce(source_data.dbt_scd2_source_row and (
                {{ unique_key_is_null(strategy.unique_key, "snapshotted_data") }}
                or ({{ unique_key_is_not_null(strategy.unique_key, "snapshotted_data") }} and (
                    {{ strategy.row_changed }} {%- if new_record %} or snapshotted_data.{{ columns.dbt_is_deleted }} = 'True'{% endif %}
                ))
            ), false) as is_insert,
            {#- dbt's updates: source join snapshotted_data #}
            coalesce(source_data.dbt_scd2_source_row and snapshotted_data.dbt_scd2_target_row and (
                {{ strategy.row_changed }} {%- if new_record %} or snapshotted_data.{{ columns.dbt_is_deleted }} = 'True'{% endif %}
            ), false) as is_update,
            {#- dbt's deletes and deletion records: snapshotted_data left join source #}
            {%- if tracks_deletes %}
            coalesce(snapshotted_data.dbt_scd2_target_row
                and {{ unique_key_is_null(strategy.unique_key, "source_data") }}
                {%- if new_record %}
                and not ({{ latest_is_deleted }})
                {%- endif %}
            , false) as is_delete
            {%- else %}
            false as is_delete
            {%- endif %}
        from source_data
        full outer join snapshotted_data
            on {{ unique_key_join_on(strategy.unique_key, "snapshotted_data", "source_data") }}

    ),

    staged as (

        select pairs.*, change_kind
        from pairs
        lateral view explode(array(
            if(is_insert, 'insert', null),
            if(is_update, 'update', null),
            if(is_delete, 'delete', null),
            if(is_delete and {{ new_record }}, 'deletion', null)
        )) changes as change_kind
        where change_kind is not null

    )
    {%- if not run_unique_scd_id %},

    {#- dbt's MERGE matches on dbt_scd_id: an insert whose id a closed version already has
        (a key back with the updated_at of a closed version) is matched, and so dropped. The
        ids both the source and the closed history have are found on the two id columns
        alone, and are normally none; the staged rows are then filtered against that small
        set without being shuffled. #}
    colliding_scd_ids as (

        select distinct closed.{{ columns.dbt_scd_id }} as scd_id
        from {{ target_relation }} as closed
        inner join source_data
            on source_data.{{ columns.dbt_scd_id }} = closed.{{ columns.dbt_scd_id }}
        where closed.{{ audit.update_process_id }} is not null

    )
    {%- endif %}

    select {% if not run_unique_scd_id %}/*+ broadcast(colliding_scd_ids) */{% endif %}
        if(change_kind = 'deletion', 'insert', change_kind) as dbt_change_type,
        {%- for col_name in source_col_names %}
        {%- if col_name in snapshotted_cols %}
        if(change_kind = 'deletion', t.{{ adapter.quote(col_name) }}, s.{{ adapter.quote(col_name) }}) as {{ adapter.quote(col_name) }},
        {%- else %}
        s.{{ adapter.quote(col_name) }} as {{ adapter.quote(col_name) }},
        {%- endif %}
        {%- endfor %}
        case change_kind
            when 'insert' then s.{{ columns.dbt_updated_at }}
            when 'update' then s.{{ columns.dbt_updated_at }}
            else {{ now }}
        end as {{ columns.dbt_updated_at }},
        case change_kind
            when 'insert' then s.{{ columns.dbt_valid_from }}
            when 'update' then s.{{ columns.dbt_valid_from }}
            else {{ now }}
        end as {{ columns.dbt_valid_from }},
        case change_kind
            when 'insert' then s.{{ columns.dbt_valid_to }}
            when 'update' then s.{{ columns.dbt_updated_at }}
            when 'delete' then {{ now }}
            else t.{{ columns.dbt_valid_to }}
        end as {{ columns.dbt_valid_to }},
        case change_kind
            when 'insert' then s.{{ columns.dbt_scd_id }}
            {%- if new_record %}
            when 'deletion' then {{ snapshot_hash_arguments(['t.' ~ columns.dbt_scd_id, now]) }}
            {%- endif %}
            else t.{{ columns.dbt_scd_id }}
        end as {{ columns.dbt_scd_id }},
        {%- if new_record %}
        case change_kind
            when 'insert' then 'False'
            when 'deletion' then 'True'
            else t.{{ columns.dbt_is_deleted }}
        end as {{ columns.dbt_is_deleted }},
        {%- endif %}
        {%- for role, name in audit.items() %}
        case
            when change_kind in ('insert', 'deletion') then
                if(change_kind = 'insert', {{ open_events['insert'][role] }}, {{ open_events['deletion'][role] }})
            else if(change_kind = 'update', {{ close_events['update'][role] }}, {{ close_events['delete'][role] }})
        end as {{ name }}{{ ',' if not loop.last }}
        {%- endfor %}
    from staged
    {%- if not run_unique_scd_id %}
    left anti join colliding_scd_ids
        on colliding_scd_ids.scd_id = if(staged.change_kind = 'insert', staged.s.{{ columns.dbt_scd_id }}, null)
    {%- endif %}

{%- endmacro %}
