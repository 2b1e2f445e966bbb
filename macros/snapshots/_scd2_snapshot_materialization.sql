{% macro _scd2_snapshot_materialization() %}
    {#-
        dbt-spark's snapshot materialization (dbt-spark 1.11), unchanged but for the table's
        layout (_scd2_snapshot_layout) and how a run changes its columns:
        - the first run creates an Iceberg snapshot table partitioned by the audit
          update_process_id column, so that later runs read and rewrite only the open
          versions (_scd2_create_snapshot_table_sql; stock: create_table_as, unpartitioned);
        - a run whose source brings new columns or wider types (_scd2_schema_change), or that
          meets an unpartitioned table built before that layout, writes the table as it
          stands after the run's MERGE (_scd2_merge_as_select_sql) with one `create or
          replace table ... as select`: one Iceberg commit that changes the columns, the
          layout and the versions together and keeps the table's snapshot history and
          properties; a write order the table had is set again after it
          (_scd2_restore_sort_order), since Iceberg's replace drops it. Stock
          dbt-spark adds the columns with `alter table` before its MERGE, so a MERGE that
          failed left them added; its column comparison is also case-sensitive, and a
          Hive-backed staging view reports lower-case names, so upper-case meta column names
          failed the second run (FIELDS_ALREADY_EXISTS).
        Before it reads its query, it refreshes the relations the snapshot reads
        (_scd2_refresh_upstream): Spark keeps a file-based table's list of files for the
        session, and a second run in one session read the first one's files.
        `--empty` on an existing table writes nothing (dbt-labs/dbt-adapters#1329). A relation
        under the snapshot's name that is not a table (a view `dbt clone` made) fails, saying
        what to do (_scd2_assert_history_table; dbt-spark said "in another format"). A table
        that holds no version, whose columns' types the query changed (a first run on an
        empty extract), is built again from the query, as a first run builds it.
        The check strategy's change test matches the query's columns with the table's without
        regard to case (_scd2_check_row_changed). Before anything, the snapshot's config is
        checked (_scd2_assert_snapshot_config); before either write, the snapshot's query is
        checked against its config (_scd2_assert_source_columns, _scd2_assert_updated_at_type,
        _scd2_assert_source_types), and an existing table against it (its key columns, the
        marks of its open versions, and their uniqueness under the unique_key, which the
        table records: _scd2_assert_open_keys_unique): a bad value or a mismatch fails the
        run with a message that names it, before anything is written.
        Everything else (checks, staging view, MERGE, grants, docs, hooks) is
        dbt-spark's, through the macros it calls (spark_build_snapshot_staging_table,
        snapshot_merge_sql, ...), which this project overrides where its header says.
    -#}
    {%- do scd2_audit._scd2_assert_demo_at_home("Snapshot '" ~ model.name ~ "'") -%}
    {%- do scd2_audit._scd2_assert_dispatch("Snapshot '" ~ model.name ~ "'") -%}
    {%- do scd2_audit._scd2_full_type_texts() -%}
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

    {%- do scd2_audit._scd2_assert_history_table(
        target_relation if target_relation_exists else none, "Snapshot '" ~ model.name ~ "'") -%}
    {%- if target_relation_exists -%}
        {%- if not target_relation.is_delta and not target_relation.is_iceberg and not target_relation.is_hudi -%}
            {% set invalid_format_msg -%}
                The existing table {{ model.schema }}.{{ target_table }} is in another format than 'delta' or 'iceberg' or 'hudi'
            {%- endset %}
            {% do exceptions.raise_compiler_error(invalid_format_msg) %}
        {% endif %}
    {% endif %}

    {#- Before anything is created, even the schema. -#}
    {% do scd2_audit._scd2_assert_snapshot_config() %}

    {% if not adapter.check_schema_exists(model.database, model.schema) %}
        {% do create_schema(model.schema) %}
    {% endif %}

    {%- if not target_relation.is_table -%}
        {% do exceptions.relation_wrong_type(target_relation, 'table') %}
    {%- endif -%}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}

    {{ run_hooks(pre_hooks, inside_transaction=True) }}

    {% do scd2_audit._scd2_refresh_upstream(
        model, "Snapshot '" ~ model.name ~ "'", target_relation) %}

    {#- The query's columns and types, read once for the checks below. -#}
    {% set query_columns = scd2_audit._scd2_query_columns(model['compiled_code']) %}
    {% set query_column_names = query_columns | map(attribute='name') | list %}
    {#- Before dbt's check strategy reads check_cols from the source. -#}
    {% do scd2_audit._scd2_assert_source_columns(query_column_names) %}

    {% set strategy_macro = strategy_dispatch(strategy_name) %}
    {% set strategy = strategy_macro(
        model, "snapshotted_data", "source_data", model['config'], target_relation_exists) %}
    {#- dbt's check strategy matches the query's columns with the table's case-sensitively. -#}
    {% if strategy_name == 'check' and target_relation_exists %}
        {% do strategy.update({'row_changed': scd2_audit._scd2_check_row_changed(
            model, "snapshotted_data", "source_data", target_relation, query_column_names)}) %}
    {% endif %}
    {#- Its type, for the source keys' check (spark__build_snapshot_table and
        spark__snapshot_staging_table take dbt's arguments). -#}
    {% do strategy.update({'scd2_updated_at_type': scd2_audit._scd2_assert_updated_at_type(
        strategy, model['compiled_code'], query_columns)}) %}
    {% do scd2_audit._scd2_assert_source_types(query_columns) %}
    {% set layout = scd2_audit._scd2_snapshot_layout(target_relation, target_relation_exists) %}
    {% if target_relation_exists %}
        {#- dbt's own check first: a table without the configured dbt columns (names changed in
            snapshot_meta_column_names after it was built) gets dbt's message naming them, where
            the marks' check failed on Spark's UNRESOLVED_COLUMN. -#}
        {{ adapter.valid_snapshot_target(target_relation,
            config.get("snapshot_table_column_names") or get_snapshot_table_column_names()) }}
        {% do scd2_audit._scd2_assert_table_keys(target_relation, layout.columns) %}
        {% set table_properties = scd2_audit._scd2_table_properties(target_relation) %}
        {% set record_key = scd2_audit._scd2_assert_open_keys_unique(target_relation,
            layout.columns, table_properties, "Snapshot '" ~ model.name ~ "': ") %}
        {% do scd2_audit._scd2_assert_table_marks(target_relation, layout.columns,
            scd2_audit._scd2_snapshot_context(), "Snapshot '" ~ model.name ~ "': ",
            layout.partition_columns, query_column_names) %}
        {% do scd2_audit._scd2_assert_updated_at_column(target_relation, layout.columns,
            "Snapshot '" ~ model.name ~ "': ") %}
        {% do scd2_audit._scd2_assert_hard_deletes(target_relation, layout.columns,
            strategy.hard_deletes, "Snapshot '" ~ model.name ~ "': ") %}
        {#- The query's own types: the staging view would mix them with the table's. -#}
        {% set query_types = [] %}
        {% for column in query_columns %}
            {% do query_types.append([column.name, column.type]) %}
        {% endfor %}
        {% set type_changes = scd2_audit._scd2_assert_type_changes(
            layout.types, query_types, query_sql=model['compiled_code'],
            table_relation=target_relation) %}
        {#- A column of another type holding only NULLs is read as the table's (as a typed
            NULL: Spark casts no bigint to a date), and so are integers whose values a double
            or float column holds exactly (a seed typed bigint on a day of whole numbers). -#}
        {% set casts = type_changes.null_only %}
        {% if casts or type_changes.exact %}
            {% set staging_query %}
                select
                    {%- for name in query_column_names %}
                    {%- set column = scd2_audit._scd2_quote(name) %}
                    {%- if name | lower in casts %}
                    cast(null as {{ casts[name | lower] }}) as {{ column }}
                    {%- elif name | lower in type_changes.exact %}
                    cast({{ column }} as {{ type_changes.exact[name | lower] }}) as {{ column }}
                    {%- else %}
                    {{ column }}
                    {%- endif %}{{ ',' if not loop.last }}
                    {%- endfor %}
                from (
                    {{ sql }}
                ) as scd2_query
            {% endset %}
        {% endif %}
    {% endif %}

    {% if not target_relation_exists %}

        {% set build_sql = build_snapshot_table(strategy, model['compiled_code']) %}
        {% set final_sql = scd2_audit._scd2_create_snapshot_table_sql(target_relation, build_sql, layout.managed, record_key=true) %}
        {% set record_key = not layout.managed %}

    {% elif invocation_args_dict.get('empty') %}

        {#- `--empty` makes the query's refs and sources return no rows, to check SQL and
            schemas. On an existing table dbt's staging would take every open version for
            deleted and close it (dbt-labs/dbt-adapters#1329); the delete guard would stop
            that, with a message about a truncated source. The checks above ran; nothing is
            written. A first run creates the table empty, as `--empty` does for models. -#}
        {{ log("Snapshot '" ~ model.name ~ "': --empty selects no source rows, so this run "
            ~ "writes nothing to " ~ target_relation ~ " (its config and the query's columns "
            ~ "were checked).", info=true) }}
        {% set final_sql = none %}

    {% elif type_changes.rebuild %}

        {#- A table with no version, whose columns' types the query changed: built again
            from the query, as a first run builds it, in one commit; not one partitioned by
            hand, whose layout that would drop (as below). -#}
        {% if not layout.managed and layout.partition_columns and config.get('partition_by') is none %}
            {% do exceptions.raise_compiler_error(
                "Snapshot '" ~ model.name ~ "': " ~ target_relation ~ " holds no version, and "
                ~ "the query changed the types of its columns; building it again from the "
                ~ "query would drop its partitioning by " ~ layout.partition_columns | join(', ')
                ~ ", set by hand (not by the snapshot's partition_by). Nothing was written. "
                ~ "Drop the empty table and run the snapshot again, then partition it again.") %}
        {% endif %}
        {% set build_sql = build_snapshot_table(strategy, model['compiled_code']) %}
        {% set kept_properties = table_properties %}
        {% set final_sql = scd2_audit._scd2_create_snapshot_table_sql(target_relation, build_sql, layout.managed, kept_properties, record_key=true) %}
        {% set record_key = record_key and not layout.managed %}

    {% else %}

        {% set staging_table = scd2_audit.spark_build_snapshot_staging_table(
            strategy, staging_query if staging_query is defined else sql, target_relation) %}

        {#- After the source checks (in the staging macro), which fail before anything is
            written. A run whose staging rows need new or wider columns, or that meets a
            table built before the open-partition layout, rewrites the table in one commit
            (`create or replace table ... as` the merged result): dbt's `alter table` before
            its MERGE left the columns added when the MERGE then failed. Every other run is
            dbt-spark's MERGE. -#}
        {% set schema_change = scd2_audit._scd2_schema_change(staging_table, target_relation) %}

        -- this may no-op if the database does not require column expansion
        {% do adapter.expand_target_column_types(from_relation=staging_table,
                                                 to_relation=target_relation) %}

        {#- A table partitioned by hand (a transform added with `alter table ... add
            partition field`, _scd2_snapshot_layout) keeps its layout; the rewrite below
            builds the table from the snapshot's config, and would drop it. -#}
        {% if schema_change.changed and not layout.managed and layout.partition_columns
                and config.get('partition_by') is none %}
            {% do exceptions.raise_compiler_error(
                "Snapshot '" ~ model.name ~ "': the source has new or wider columns ("
                ~ ((schema_change.added | map(attribute='name') | list)
                    + (schema_change.widened.keys() | list)) | join(', ')
                ~ "), and " ~ target_relation ~ " is partitioned by "
                ~ layout.partition_columns | join(', ') ~ ", set by hand (not by the "
                ~ "snapshot's partition_by), which the one-commit rewrite that adds them would "
                ~ "drop. Nothing was written. Add the columns first (alter table "
                ~ target_relation ~ " add columns ...; alter column ... type ...), then run "
                ~ "the snapshot again."
                ~ (" Iceberg changes no integer column to a float in place ("
                    ~ schema_change.retyped | join(', ') ~ "): select the new values under a "
                    ~ "new column name instead." if schema_change.retyped else "")) %}
        {% endif %}
        {% if schema_change.changed or (layout.managed and not layout.partitioned) %}
            {% set merged_sql = scd2_audit._scd2_merge_as_select_sql(target_relation, staging_table, schema_change) %}
            {% set kept_properties = table_properties %}
            {% set final_sql = scd2_audit._scd2_create_snapshot_table_sql(target_relation, merged_sql, layout.managed, kept_properties, record_key=true) %}
            {% set record_key = record_key and not layout.managed %}
        {% else %}
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

    {% endif %}

    {% if final_sql is none %}
        {% call noop_statement('main', 'NOTHING WRITTEN (--empty)', 'NOTHING WRITTEN', 0) %}
            -- dbt snapshot --empty: nothing is written to the existing table
        {% endcall %}
    {% else %}
        {#- The key the open versions were found unique under, where the write does not
            record it (_scd2_assert_open_keys_unique): a later run then reads no more. On an
            existing table before the write, so that a run killed after it leaves no stale
            record; a first run's table, after. -#}
        {% set key = scd2_audit._scd2_unique_key_property() %}
        {% set record_sql = 'alter table ' ~ target_relation ~ ' set tblproperties ('
            ~ scd2_audit._scd2_sql_string(key.name) ~ ' = '
            ~ scd2_audit._scd2_sql_string(key.value) ~ ')' %}
        {% if record_key and target_relation_exists %}
            {% do scd2_audit._scd2_run_sql(record_sql) %}
        {% endif %}
        {% call statement('main') %}
            {{ final_sql }}
        {% endcall %}
        {% if kept_properties is defined %}
            {% do scd2_audit._scd2_restore_sort_order(target_relation, kept_properties) %}
        {% endif %}
        {% if record_key and not target_relation_exists %}
            {% do scd2_audit._scd2_run_sql(record_sql) %}
        {% endif %}
    {% endif %}


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
{% endmacro %}
