{% macro _scd2_assert_source_keys(strategy, source_sql) -%}
    {#-
        Fail before anything is written when the snapshot's source has a null or duplicate
        unique_key. dbt does not check: with duplicates, the merge either fails deep inside
        Spark (MERGE_CARDINALITY_VIOLATION, no key named) or, on the first build, silently
        creates two open versions of one key. Raising here leaves the snapshot table as it was.
        In the same scan, where validity follows updated_at (_scd2_business_time): a null
        updated_at. dbt does not check it either: the first run gives the key a version with a
        null dbt_valid_from (never valid in any as-of query), and every later change of the key
        is missed, as dbt's `dbt_valid_from < updated_at` is null. And an updated_at at or
        after the high end of open versions (scd2_high_end_ts, and dbt_valid_to_current where
        set), read as the effective range reads it (_scd2_utc_instant_sql; the type from
        _scd2_assert_updated_at_type, through the strategy): its version would start after it
        ends, which no as-of moment finds and scd2_contiguous_validity fails as inverted.
    -#}
    {%- if not execute -%}{{ return(none) }}{%- endif -%}
    {%- set keys = scd2_audit._scd2_snapshot_context().key_columns -%}
    {%- set key_list = keys | join(', ') -%}
    {%- set dated = scd2_audit._scd2_business_time(strategy) -%}
    {%- set valid_to_current = config.get('dbt_valid_to_current') -%}
    {#- updated_at's type, from this project's materialization; under dbt's own (the package
        installed without its wrappers), described here. -#}
    {%- set updated_at_type = strategy.get('scd2_updated_at_type') -%}
    {%- if dated and updated_at_type is none -%}
        {%- set updated_at_type = scd2_audit._scd2_updated_at_type(strategy, source_sql) -%}
    {%- endif -%}
    {#- Keys are grouped by their values, as the MERGE's join matches them (a double -0.0
        is 0.0), not by their text, which told -0.0 from 0.0 and let both open a version. -#}
    {%- set key_groups = [] -%}
    {%- for key in keys -%}
        {%- do key_groups.append('dbt_key_' ~ loop.index) -%}
    {%- endfor -%}
    {%- set key_groups = key_groups | join(', ') -%}
    {#- The key columns as text, as each check reports one offending key. -#}
    {%- set key_text -%}
        {%- for key in keys %}
                cast(dbt_key_{{ loop.index }} as string) as dbt_key_{{ loop.index }},
        {%- endfor %}
    {%- endset -%}
    {%- set checks -%}
        with source_keys as (
            select
                {%- if dated %}
                case
                    when {{ strategy.updated_at }} is null then 'null_updated_at'
                    when {{ scd2_audit._scd2_utc_instant_sql(strategy.updated_at,
                        updated_at_type) }}
                        >= {{ scd2_audit.scd2_high_end_ts() }}
                        {%- if valid_to_current %}
                        or {{ strategy.updated_at }} >= {{ valid_to_current }}
                        {%- endif %}
                        then 'updated_at_at_high_end'
                end as dbt_updated_at_problem,
                {%- endif %}
                {%- for key in keys %}
                {{ key }} as dbt_key_{{ loop.index }}{{ ',' if not loop.last }}
                {%- endfor %}
            from (
                {{ source_sql }}
            ) as source_query
        ),

        null_keys as (
            select
                'null' as problem,
                {{- key_text }}
                count(*) as rows
            from source_keys
            where
                {%- for key in keys %}
                dbt_key_{{ loop.index }} is null{{ ' or' if not loop.last }}
                {%- endfor %}
            group by {{ key_groups }}
            limit 1
        ),

        duplicate_keys as (
            select
                'duplicate' as problem,
                {{- key_text }}
                count(*) as rows
            from source_keys
            group by {{ key_groups }}
            having count(*) > 1
            limit 1
        ){{ ',' if dated }}
        {%- if dated %}

        bad_updated_at as (
            select
                dbt_updated_at_problem as problem,
                {{- key_text }}
                count(*) over (partition by dbt_updated_at_problem) as rows
            from source_keys
            where dbt_updated_at_problem is not null
            limit 1
        )
        {%- endif %}

        select * from null_keys
        union all
        select * from duplicate_keys
        {%- if dated %}
        union all
        select * from bad_updated_at
        {%- endif %}
    {%- endset -%}
    {%- set found = run_query(checks) -%}
    {%- for row in found.rows -%}
        {%- set values = [] -%}
        {%- for key in keys -%}
            {%- do values.append(key ~ '=' ~ (row[loop.index] if row[loop.index] is not none else 'null')) -%}
        {%- endfor -%}
        {%- if row[0] == 'null_updated_at' -%}
            {{ exceptions.raise_compiler_error(
                "Snapshot '" ~ model.name ~ "': the source has " ~ row[-1] ~ " row(s) with a null "
                ~ "updated_at (" ~ strategy.updated_at ~ "), e.g. (" ~ values | join(', ') ~ "). "
                ~ "updated_at dates each version (dbt_valid_from), so a row without one has no "
                ~ "time to start from, and later changes of its key would be missed. Give every "
                ~ "row one in the snapshot query (e.g. coalesce(" ~ strategy.updated_at
                ~ ", created_at)) or filter those rows. Nothing was written; the snapshot table "
                ~ "is unchanged.") }}
        {%- elif row[0] == 'updated_at_at_high_end' -%}
            {{ exceptions.raise_compiler_error(
                "Snapshot '" ~ model.name ~ "': the source has " ~ row[-1] ~ " row(s) whose "
                ~ "updated_at (" ~ strategy.updated_at ~ ") is at or after the high end of open "
                ~ "versions (" ~ scd2_audit.scd2_high_end_ts()
                ~ (", or dbt_valid_to_current " ~ valid_to_current if valid_to_current else "")
                ~ "), e.g. (" ~ values | join(', ') ~ "). An open version is valid until then, so "
                ~ "such a version would end before it starts. Correct or filter those rows in "
                ~ "the snapshot query. Nothing was written; the snapshot table is unchanged.") }}
        {%- elif row[0] == 'null' -%}
            {%- set problem = "has " ~ row[-1] ~ " row(s) with a null unique_key, e.g. (" ~ values | join(', ') ~ ")" -%}
            {%- set remedy = "filter or fix those rows in the snapshot query" -%}
        {%- else -%}
            {%- set problem = "has duplicate unique_key values: (" ~ values | join(', ') ~ ") appears " ~ row[-1] ~ " times" -%}
            {%- set remedy = "make the snapshot query return one row per key (deduplicate, e.g. with row_number() over (partition by " ~ key_list ~ " order by ...) = 1), or fix unique_key" -%}
        {%- endif -%}
        {{ exceptions.raise_compiler_error(
            "Snapshot '" ~ model.name ~ "': the source " ~ problem
            ~ " (unique_key: " ~ key_list ~ "). A snapshot needs exactly one source row per key: "
            ~ remedy ~ ". Nothing was written; the snapshot table is unchanged.") }}
    {%- endfor -%}
{%- endmacro %}
