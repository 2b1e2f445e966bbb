{% macro spark__build_snapshot_table(strategy, sql) %}
    {#-
        dbt's default__build_snapshot_table (first run of a snapshot), plus:
        - the source's keys are checked first (null or duplicate keys fail, nothing created);
        - the operational metadata columns, every version opened by this run.
        Keep it diffable against dbt-adapters' default__build_snapshot_table.
    -#}
    {% set columns = config.get('snapshot_table_column_names')
        or get_snapshot_table_column_names() %}

    {% do scd2_audit._scd2_assert_source_keys(strategy, sql) %}

    select *,
        {{ strategy.scd_id }} as {{ columns.dbt_scd_id }},
        {{ strategy.updated_at }} as {{ columns.dbt_updated_at }},
        {{ strategy.updated_at }} as {{ columns.dbt_valid_from }},
        {{ get_dbt_valid_to_current(strategy, columns) }}
      {%- if strategy.hard_deletes == 'new_record' -%}
        , 'False' as {{ columns.dbt_is_deleted }}
      {% endif -%},
        {{ scd2_audit._scd2_audit_values('open', valid_from=strategy.updated_at) }}
    from (
        {{ sql }}
    ) sbq

{% endmacro %}
