{% macro _scd2_assert_delete_share(
    strategy, source_sql, target_relation, with_process_id=true, has_deleted_flag=false
) -%}
    {#-
        Guard against an empty or truncated extract: with hard deletes on, a source that
        arrives empty closes every open version as deleted, and the history is wrong from
        then on. Stop before the merge when the run would close, as deleted, more than
        scd2_max_delete_share() (var scd2_max_delete_share, default 0.5) of the open versions.
        An intended mass delete passes with a higher share for that run, e.g.
        --vars '{scd2_max_delete_share: 1}'.
        Open deletion records (`has_deleted_flag`: the table has dbt_is_deleted, written under
        hard_deletes='new_record', now or before) are keys deleted already: neither counted
        as open versions nor as deletes. Under 'invalidate' the run closes them, but no live
        key goes; counted, a switch from new_record to invalidate read as a mass delete.
    -#}
    {#- The setting is read (and a bad value refused) whatever hard_deletes is: a snapshot
        that tracks no deletes took `scd2_max_delete_share: 'abc'` without a word. -#}
    {%- set limit = scd2_audit.scd2_max_delete_share() -%}
    {%- if not execute or strategy.hard_deletes not in ('invalidate', 'new_record') -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if limit >= 1 -%}{{ return(none) }}{%- endif -%}

    {%- set columns = config.get('snapshot_table_column_names')
        or get_snapshot_table_column_names() -%}
    {#- Each key entry (a column or an SQL expression), named for the union below. -#}
    {%- set key_names = [] -%}
    {%- set key_items = [] -%}
    {%- for key in scd2_audit._scd2_snapshot_context().key_columns -%}
        {%- do key_names.append('dbt_key_' ~ loop.index) -%}
        {%- do key_items.append(key | trim ~ ' as dbt_key_' ~ loop.index) -%}
    {%- endfor -%}
    {%- set key_hash = scd2_audit._scd2_key_hash_sql(key_names) -%}
    {%- set count_sql -%}
        {#- Keys are compared as one 64-bit hash (xxhash64 of the key columns): the counts are
            a guard's estimate, and two keys sharing a hash (odds about 1 in 10^7 for a
            million keys) would at most hide one delete. Both sides' keys are read through
            one union, which gives each key column the type both hold, as the staging's
            coalesce of the two does for the MERGE: hashed each in its own type, a key the
            source narrowed (double or decimal in the table, int in the source) was `1.0`
            against `1`, and every open version counted as deleted. -#}
        with key_rows as (
            select
                {{ key_items | join(', ') }},
                true as dbt_is_open
            from {{ target_relation }}
            where {{ scd2_audit._scd2_open_version_sql(with_process_id=with_process_id) }}
            {%- if has_deleted_flag %}
                and not {{ scd2_audit._scd2_is_deleted_sql(columns.dbt_is_deleted) }}
            {%- endif %}
            union all
            select
                {{ key_items | join(', ') }},
                false as dbt_is_open
            from (
                {{ source_sql }}
            ) as source_query
        ),

        open_versions as (
            select {{ key_hash }} as dbt_key_hash
            from key_rows
            where dbt_is_open
        ),

        source_keys as (
            select {{ key_hash }} as dbt_key_hash
            from key_rows
            where not dbt_is_open
        ),

        deleted_versions as (
            select open_versions.dbt_key_hash
            from open_versions
            left anti join source_keys
                on source_keys.dbt_key_hash = open_versions.dbt_key_hash
        )

        select
            (select count(*) from open_versions) as open_versions,
            (select count(*) from deleted_versions) as deleted_versions
    {%- endset -%}
    {%- set row = run_query(count_sql).rows[0] -%}
    {%- set open_versions, deleted = row[0] | int, row[1] | int -%}
    {%- if open_versions > 0 and deleted / open_versions > limit -%}
        {{ exceptions.raise_compiler_error(
            "Snapshot '" ~ model.name ~ "': this run would close " ~ deleted ~ " of "
            ~ open_versions ~ " open versions as deleted (" ~ ((100 * deleted / open_versions) | round(1))
            ~ "%), above the limit of " ~ ((100 * limit) | round(1)) ~ "% (var scd2_max_delete_share = "
            ~ limit ~ "). Is the source extract empty or truncated? Nothing was written; the "
            ~ "snapshot table is unchanged. If the deletes are intended, allow them for this run: "
            ~ "dbt snapshot --vars '{scd2_max_delete_share: 1}'.") }}
    {%- endif -%}
{%- endmacro %}
