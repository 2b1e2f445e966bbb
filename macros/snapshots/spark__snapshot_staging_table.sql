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
           _scd2_snapshot_layout), so a run's cost does not grow with the length of the
           history; except, where validity follows the source's updated_at (7. below), three
           columns of the closed history (key, dbt_scd_id, dbt_valid_to) for keys that come
           back;
        4. deletion records read the snapshotted columns through the adapter
           (adapter.get_columns_in_relation: on Spark the get_columns_in_relation macro returns
           raw `describe` rows without `.name`, https://github.com/dbt-labs/dbt-core/issues/11949);
        5. the final select names its columns, leaves out dbt's join helpers
           dbt_unique_key_N and stages the key hashed for the MERGE's match
           (_scd2_merge_key_sql) as dbt_unique_key: dbt-spark's materialization adds every
           other staged column to the table (with a list unique_key, dbt_unique_key_1..N,
           https://github.com/dbt-labs/dbt-adapters/issues/2101; the hash, where a project
           has the dispatch block without the package's wrapper). _scd2_schema_change skips
           it too;
        6. a column the snapshot table has and the source no longer returns is staged as NULL
           (a deletion record keeps the deleted version's value): dbt's `insert *` needs every
           column of the table, and failed with UNRESOLVED_COLUMN. dbt's check strategy
           already compares only the columns the query returns, so a removal alone makes no
           new version;
        7. where validity follows the source's updated_at (the timestamp strategy, or check
           with updated_at), dbt dates deletes (and deletion records) at the run's time and
           everything else at the source's updated_at. So a key that comes back after a delete
           with an updated_at before that run got a version starting before the deleted one
           ended (two valid versions at once), and one that comes back with the updated_at of
           a closed version got that version's dbt_scd_id and was silently dropped by the
           MERGE (https://github.com/dbt-labs/dbt-core/issues/5867 and
           https://github.com/dbt-labs/dbt-core/issues/4347 on the two timelines). Here, for
           those strategies only:
           - a new version starts at the source's updated_at, unless that is not later than
             the key's open version started, or earlier than any of its closed versions ended
             (a key back with an older updated_at, a late correction, a row restored from a
             backup, or, with check, values changed under the same updated_at): it then
             starts when the run saw it, the run's time (or that latest instant, if later).
             The version it replaces is closed at that same instant;
           - a new version whose dbt_scd_id another version of the key already has (open or
             closed) gets the id hashed with the run's time, as dbt does for deletion records:
             check with updated_at hashes the id from updated_at, so values changed under
             the open version's updated_at got its id and failed the MERGE
             (MERGE_CARDINALITY_VIOLATION), and a restored row reused an old version's id
             (https://github.com/dbt-labs/dbt-core/pull/1614,
             https://github.com/dbt-labs/dbt-adapters/issues/1436);
           - the timestamp strategy's change test compares the source's updated_at with the
             open version's dbt_updated_at (the source's updated_at it was built from) rather
             than its dbt_valid_from: the two are equal except for a version moved later by
             the first rule, whose later updates dbt's test would not see until updated_at
             passed the run's time; and it reads the source's updated_at as the staged
             dbt_updated_at, so that an expression as updated_at works on later runs too
             (dbt writes `source_data.<expression>`, a syntax error).
           Deletes keep dbt's run time, unless the open version starts later (an updated_at
           in the future): they then close it where it starts, where dbt's end came before
           its start; the audit columns record every run's own time;
        8. where dbt_valid_from is a date (a date updated_at) or a timestamp without time
           zone, the run's time in that type (its UTC date or wall time, as such values are
           read back: Spark's cast took the session's zone) dates a version wherever it does
           (deletes, deletion records, a version moved later by 7.). dbt stages the run's
           timestamp there, which turns the staging's validity columns into timestamps: stock
           dbt-spark's MERGE casts them back into the table's dates, leaving effective_end_ts
           (a timestamp, as the high-end value is) at the uncast time, so a deleted version's
           effective end was not its dbt_valid_to; here the type check
           (_scd2_schema_change) failed the second run. dbt_scd_id is still hashed with the
           run's timestamp, so that it stays unique to the run.
    -#}
    {%- set columns = config.get('snapshot_table_column_names')
        or get_snapshot_table_column_names() -%}
    {%- set audit = scd2_audit.scd2_audit_column_names() -%}
    {%- do scd2_audit._scd2_assert_source_keys(strategy, source_sql) -%}
    {%- set source_col_names = get_columns_in_query(source_sql) -%}
    {%- set snapshotted_columns = adapter.get_columns_in_relation(target_relation) -%}
    {%- set snapshotted_cols = get_list_of_column_names(snapshotted_columns) -%}
    {%- set snapshotted_lower = snapshotted_cols | map('lower') | list -%}
    {#- A table built by stock dbt has no audit columns until this run adds them. -#}
    {%- set has_process_id = (audit.update_process_id | lower) in snapshotted_lower -%}
    {%- do scd2_audit._scd2_assert_delete_share(strategy, source_sql, target_relation,
        has_process_id, (columns.dbt_is_deleted | lower) in snapshotted_lower) -%}
    {%- set source_lower = source_col_names | map('lower') | list -%}
    {#- Columns this run writes itself; any other table column the source lacks is staged as
        NULL (dbt_is_deleted too, in a table once snapshotted with hard_deletes='new_record'). -#}
    {%- set meta_lower = scd2_audit._scd2_metadata_column_names(strategy.hard_deletes)
        | map('lower') | list -%}
    {%- set removed_cols = [] -%}
    {%- for col_name in snapshotted_cols
            if col_name | lower not in source_lower and col_name | lower not in meta_lower -%}
        {%- do removed_cols.append(col_name) -%}
    {%- endfor -%}
    {#- The staged row's key, hashed as the MERGE hashes the table's (_scd2_merge_key_sql):
        the version's where the row has one (an update, a delete, a deletion record), the
        source's for a new key: Spark's join matches keys their text tells apart (a double
        -0.0 joins 0.0), and the source's hash then matched no version. -#}
    {%- set key_parts = [] -%}
    {%- for part in scd2_audit._scd2_unique_key_fields(strategy.unique_key)
            if part.column is not none -%}
        {%- do key_parts.append('coalesce(t.' ~ part.field ~ ', s.' ~ part.field ~ ')') -%}
    {%- endfor -%}
    {%- set key_hash = scd2_audit._scd2_key_hash_sql(key_parts) -%}
    {%- set new_record = strategy.hard_deletes == 'new_record' -%}
    {#- An open deletion record (a table snapshotted with new_record before) is no live row,
        whatever hard_deletes says now: a key back with the deleted row's values opens a
        version and closes the record. Read as dbt reads it under invalidate, the record
        matched those values, and the key stayed deleted. -#}
    {%- set reads_deletion_records = new_record
        or (columns.dbt_is_deleted | lower) in snapshotted_lower -%}
    {%- set tracks_deletes = strategy.hard_deletes in ('invalidate', 'new_record') -%}
    {%- set run_time = snapshot_get_time() -%}
    {#- The run's time as validity (8. above): in the type of the table's dbt_valid_from. -#}
    {%- set valid_from_types = [] -%}
    {%- for col in snapshotted_columns if col.name | lower == columns.dbt_valid_from | lower -%}
        {%- do valid_from_types.append(col.dtype | lower) -%}
    {%- endfor -%}
    {%- set valid_type = (valid_from_types or [none])[0] -%}
    {%- set run_type = scd2_audit._scd2_validity_types()[0] -%}
    {%- if valid_type and valid_type != run_type
            and valid_type in scd2_audit._scd2_validity_types() -%}
        {%- set now = scd2_audit._scd2_instant_as_sql(run_time, valid_type) -%}
    {%- else -%}
        {%- set now = run_time -%}
    {%- endif -%}
    {#- Validity in business time: the strategy's updated_at is a source column, not the run's
        time (which also makes dbt_scd_id not unique to the run). -#}
    {%- set business_time = scd2_audit._scd2_business_time(strategy) -%}
    {%- set deleted_at = now -%}
    {%- set row_changed = strategy.row_changed -%}
    {%- if business_time -%}
        {%- set valid_from = 's.' ~ columns.dbt_valid_from -%}
        {%- set open_from = 't.' ~ columns.dbt_valid_from -%}
        {%- set latest = 'greatest(' ~ open_from ~ ', returning_keys.last_valid_to)' -%}
        {#- A delete closes the open version at the run's time, or at its start where that is
            later (an updated_at in the future): dbt closes it at the run's time, before it
            started, which scd2_contiguous_validity then rejects. -#}
        {%- set deleted_at = 'greatest(' ~ now ~ ', ' ~ open_from ~ ')' -%}
        {%- set opened_at = 'if((' ~ valid_from ~ ' > ' ~ open_from ~ ' or ' ~ open_from
            ~ ' is null) and (' ~ valid_from ~ ' >= returning_keys.last_valid_to'
            ~ ' or returning_keys.last_valid_to is null), ' ~ valid_from
            ~ ', greatest(' ~ now ~ ', ' ~ latest ~ '))' -%}
        {%- set row_changed = row_changed | replace(
            'snapshotted_data.' ~ columns.dbt_valid_from ~ ' <',
            'snapshotted_data.' ~ columns.dbt_updated_at ~ ' <') -%}
        {#- dbt's test qualifies updated_at with the source's alias, which an expression
            (updated_at='cast(u as timestamp)') cannot take ("source_data.cast(u ..."): a
            Spark syntax error from the second run on. The source's dbt_updated_at is that
            expression's value. -#}
        {%- set row_changed = row_changed | replace(
            'source_data.' ~ strategy.updated_at ~ ')',
            'source_data.' ~ columns.dbt_updated_at ~ ')') -%}
    {%- else -%}
        {%- set opened_at = 's.' ~ columns.dbt_valid_from -%}
    {%- endif -%}
    {%- set open_events = {
        'insert': scd2_audit._scd2_audit_exprs('open', valid_from=opened_at),
        'deletion': scd2_audit._scd2_audit_exprs('open', valid_from=deleted_at),
    } -%}
    {%- set close_events = {
        'update': scd2_audit._scd2_audit_exprs('close', valid_to=opened_at, valid_type=valid_type),
        'delete': scd2_audit._scd2_audit_exprs('close', valid_to=deleted_at, valid_type=valid_type),
    } -%}
    {%- set latest_is_deleted -%}
        {{ scd2_audit._scd2_is_deleted_sql('snapshotted_data.' ~ columns.dbt_is_deleted) }}
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
        where {{ scd2_audit._scd2_open_version_sql(with_process_id=has_process_id) }}

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
                    {{ row_changed }} {%- if reads_deletion_records %} or {{ scd2_audit._scd2_is_deleted_sql('snapshotted_data.' ~ columns.dbt_is_deleted) }}{% endif %}
                ))
            ), false) as is_insert,
            {#- dbt's updates: source join snapshotted_data #}
            coalesce(source_data.dbt_scd2_source_row and snapshotted_data.dbt_scd2_target_row and (
                {{ row_changed }} {%- if reads_deletion_records %} or {{ scd2_audit._scd2_is_deleted_sql('snapshotted_data.' ~ columns.dbt_is_deleted) }}{% endif %}
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
    {%- if business_time %},

    {#- When the closed versions of each key ended, and which ids they had: read from the
        closed partitions, on the key columns and two metadata columns alone. Joined to the
        rows that open a version and to the versions they close. #}
    returning_keys as (

        select
            {{ unique_key_fields(strategy.unique_key) }},
            max(closed.{{ columns.dbt_valid_to }}) as last_valid_to,
            collect_set(closed.{{ columns.dbt_scd_id }}) as closed_scd_ids
        from {{ target_relation }} as closed
        where
            {%- if has_process_id %} closed.{{ audit.update_process_id }} is not null
            {%- else %} not ({{ scd2_audit._scd2_open_version_sql('closed', false) }})
            {%- endif %}
        group by all

    )
    {%- endif %}

    select
        if(change_kind = 'deletion', 'insert', change_kind) as dbt_change_type,
        {%- if key_hash %}
        {{ key_hash }} as dbt_unique_key,
        {%- endif %}
        {%- for col_name in source_col_names %}
        {%- if col_name | lower in snapshotted_lower %}
        if(change_kind = 'deletion', t.{{ adapter.quote(col_name) }}, s.{{ adapter.quote(col_name) }}) as {{ adapter.quote(col_name) }},
        {%- else %}
        s.{{ adapter.quote(col_name) }} as {{ adapter.quote(col_name) }},
        {%- endif %}
        {%- endfor %}
        {%- for col_name in removed_cols %}
        if(change_kind = 'deletion', t.{{ adapter.quote(col_name) }}, null) as {{ adapter.quote(col_name) }},
        {%- endfor %}
        case change_kind
            when 'insert' then s.{{ columns.dbt_updated_at }}
            when 'update' then s.{{ columns.dbt_updated_at }}
            else {{ deleted_at }}
        end as {{ columns.dbt_updated_at }},
        case change_kind
            when 'insert' then {{ opened_at }}
            when 'update' then s.{{ columns.dbt_valid_from }}
            else {{ deleted_at }}
        end as {{ columns.dbt_valid_from }},
        case change_kind
            when 'insert' then s.{{ columns.dbt_valid_to }}
            when 'update' then {{ opened_at }}
            when 'delete' then {{ deleted_at }}
            else t.{{ columns.dbt_valid_to }}
        end as {{ columns.dbt_valid_to }},
        case change_kind
            {%- if business_time %}
            when 'insert' then if(
                array_contains(returning_keys.closed_scd_ids, s.{{ columns.dbt_scd_id }})
                    or s.{{ columns.dbt_scd_id }} = t.{{ columns.dbt_scd_id }},
                {{ snapshot_hash_arguments(['s.' ~ columns.dbt_scd_id, run_time]) }},
                s.{{ columns.dbt_scd_id }}
            )
            {%- else %}
            when 'insert' then s.{{ columns.dbt_scd_id }}
            {%- endif %}
            {%- if new_record %}
            when 'deletion' then {{ snapshot_hash_arguments(['t.' ~ columns.dbt_scd_id, run_time]) }}
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
    {%- if business_time %}
    left join returning_keys
        on staged.change_kind in ('insert', 'update')
        and {{ unique_key_join_on(strategy.unique_key, "returning_keys", "staged.s") }}
    {%- endif %}

{%- endmacro %}
