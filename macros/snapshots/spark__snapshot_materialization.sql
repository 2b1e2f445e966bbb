{% materialization snapshot, adapter='spark' %}
    {#-
        dbt-spark's snapshot materialization (dbt-spark 1.11), unchanged but for the table's
        layout (_scd2_snapshot_layout):
        - the first run creates an Iceberg snapshot table partitioned by the audit
          update_process_id column, so that later runs read and rewrite only the open
          versions (_scd2_create_snapshot_table_sql; stock: create_table_as, unpartitioned);
        - an unpartitioned table built before that layout is upgraded in place by the first run
          that meets it, once its source passed the checks: one `create or replace table ...
          as select * from` itself, a single Iceberg commit that keeps every row and the
          table's snapshot history, before the run's own merge.
        Everything else (checks, staging view, new columns, MERGE, grants, docs, hooks) is
        dbt-spark's, through the macros it calls (spark_build_snapshot_staging_table,
        snapshot_merge_sql, ...), which this project overrides where its header says.
    -#}
    {%- set target_table = model.get('alias', model.get('name')) -%}

    {%- set strategy_name = config.get('strategy') -%}
    {%- set unique_key = config.get('unique_key') %}
    {%- set file_format = config.get('file_format') or 'parquet' -%}
    {%- set grant_config = config.get('grants') -%}

    {% set target_relation_exists, target_relation = get_or_create_relation(
            database=none,
            schema=model.schema,
            identifier=target_table,
            type='table') -%}

    {%- if file_format not in ['delta', 'iceberg', 'hudi'] -%}
        {% set invalid_format_msg -%}
            Invalid file format: {{ file_format }}
            Snapshot functionality requires file_format be set to 'delta' or 'iceberg' or 'hudi'
        {%- endset %}
        {% do exceptions.raise_compiler_error(invalid_format_msg) %}
    {% endif %}

    {%- if target_relation_exists -%}
        {%- if not target_relation.is_delta and not target_relation.is_iceberg and not target_relation.is_hudi -%}
            {% set invalid_format_msg -%}
                The existing table {{ model.schema }}.{{ target_table }} is in another format than 'delta' or 'iceberg' or 'hudi'
            {%- endset %}
            {% do exceptions.raise_compiler_error(invalid_format_msg) %}
        {% endif %}
    {% endif %}

    {% if not adapter.check_schema_exists(model.database, model.schema) %}
        {% do create_schema(model.schema) %}
    {% endif %}

    {%- if not target_relation.is_table -%}
        {% do exceptions.relation_wrong_type(target_relation, 'table') %}
    {%- endif -%}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}

    {{ run_hooks(pre_hooks, inside_transaction=True) }}

    {% set strategy_macro = strategy_dispatch(strategy_name) %}
    {% set strategy = strategy_macro(model, "snapshotted_data", "source_data", model['config'], target_relation_exists) %}
    {% set layout = _scd2_snapshot_layout(target_relation, target_relation_exists) %}

    {% if not target_relation_exists %}

        {% set build_sql = build_snapshot_table(strategy, model['compiled_code']) %}
        {% if layout.managed %}
            {% set final_sql = _scd2_create_snapshot_table_sql(target_relation, build_sql) %}
        {% else %}
            {% set final_sql = create_table_as(False, target_relation, build_sql) %}
        {% endif %}

    {% else %}

        {% set columns = config.get("snapshot_table_column_names") or get_snapshot_table_column_names() %}

        {{ adapter.valid_snapshot_target(target_relation, columns) }}

        {% set staging_table = spark_build_snapshot_staging_table(strategy, sql, target_relation) %}

        {#- After the source checks (in the staging macro): a run that fails them changes
            nothing, not even the layout. The staging view reads the table by name, so it reads
            the upgraded table. #}
        {% if layout.managed and not layout.partitioned %}
            {% call statement('upgrade_snapshot_layout') %}
                {{ _scd2_create_snapshot_table_sql(target_relation, 'select * from ' ~ target_relation) }}
            {% endcall %}
        {% endif %}

        -- this may no-op if the database does not require column expansion
        {% do adapter.expand_target_column_types(from_relation=staging_table,
                                                 to_relation=target_relation) %}

        {% set missing_columns = adapter.get_missing_columns(staging_table, target_relation)
                                     | rejectattr('name', 'equalto', 'dbt_change_type')
                                     | rejectattr('name', 'equalto', 'DBT_CHANGE_TYPE')
                                     | rejectattr('name', 'equalto', 'dbt_unique_key')
                                     | rejectattr('name', 'equalto', 'DBT_UNIQUE_KEY')
                                     | list %}

        {% do create_columns(target_relation, missing_columns) %}

        {% set source_columns = adapter.get_columns_in_relation(staging_table)
                                     | rejectattr('name', 'equalto', 'dbt_change_type')
                                     | rejectattr('name', 'equalto', 'DBT_CHANGE_TYPE')
                                     | rejectattr('name', 'equalto', 'dbt_unique_key')
                                     | rejectattr('name', 'equalto', 'DBT_UNIQUE_KEY')
                                     | list %}

        {% set quoted_source_columns = [] %}
        {% for column in source_columns %}
            {% do quoted_source_columns.append(adapter.quote(column.name)) %}
        {% endfor %}

        {% set final_sql = snapshot_merge_sql(
              target = target_relation,
              source = staging_table,
              insert_cols = quoted_source_columns
           )
        %}

    {% endif %}

    {% call statement('main') %}
        {{ final_sql }}
    {% endcall %}


    {% set should_revoke = should_revoke(target_relation_exists, full_refresh_mode) %}
    {% do apply_grants(target_relation, grant_config, should_revoke) %}

    {% do persist_docs(target_relation, model) %}

    {{ run_hooks(post_hooks, inside_transaction=True) }}

    {{ adapter.commit() }}

    {% if staging_table is defined %}
        {% do post_snapshot(staging_table) %}
    {% endif %}

    {{ run_hooks(post_hooks, inside_transaction=False) }}

    {{ return({'relations': [target_relation]}) }}

{% endmaterialization %}
