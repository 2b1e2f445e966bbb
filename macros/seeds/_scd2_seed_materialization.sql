{% macro _scd2_seed_materialization() %}
    {#-
        dbt's seed materialization (dbt-adapters `materialization seed, default` with
        dbt-spark's `spark__reset_csv_table`, `spark__create_csv_table` and
        `spark__load_csv_rows`), rebuilt around one atomic statement:

        - Loading: Spark's own CSV reader reads the file where Spark can see it
          (`seed_load_method`, see `_scd2_seed_load_method`); elsewhere dbt's agate rows are
          sent as escaped SQL literals (`_scd2_seed_row_batches`; dbt-spark's session method
          does not escape its bindings, so an apostrophe broke the seed). Both give text
          columns; `_scd2_seed_select` types them as stock dbt would (dbt's NULL rule,
          `column_types`, else dbt's type inference) and fails on a value its type cannot
          hold, where stock dbt loads a NULL (the other differences: docs/seeds.md).
        - Writing: stock dbt-spark drops the table, creates it and inserts batches, so a
          failed or killed seed leaves no table or an empty one, and the next snapshot sees
          an empty source. Here one `create or replace table ... as select` replaces the
          table's schema and rows in one Iceberg (or Delta) commit: a seed that fails for any
          reason leaves the previous table, its rows and its snapshot history as they were.
          Like stock dbt-spark, every run re-creates the table from the file (new columns and
          types included), with or without `--full-refresh`. Formats that cannot replace a
          table in place (parquet, hive...) keep dbt-spark's drop and create, after a pass
          that runs the seed's checks, so that a bad value leaves their table too.
        - dbt's `agate_table` result (for `dbt seed --show`) is a sample read back from the
          table, so the file is never read into Python on the fast path.
    -#}
    {%- do scd2_audit._scd2_assert_demo_at_home("Seed '" ~ model['name'] ~ "'") -%}
    {%- do scd2_audit._scd2_assert_dispatch("Seed '" ~ model['name'] ~ "'") -%}
    {%- set identifier = model['alias'] -%}
    {%- set full_refresh_mode = should_full_refresh() -%}
    {%- set old_relation = adapter.get_relation(
        database=database, schema=schema, identifier=identifier) -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- set grant_config = config.get('grants') -%}
    {%- set file_format = config.get('file_format', validator=validation.any[basestring]) -%}
    {#- Compared without regard to case, as Spark reads a provider's name: `Iceberg` built an
        Iceberg table through the path for other formats, and every later run was refused as
        a switch of format. -#}
    {%- set format_name = (file_format or 'parquet') | lower -%}

    {%- if old_relation is not none and old_relation.is_view -%}
        {{ exceptions.raise_compiler_error(
            "Cannot seed to '{}', it is a view".format(old_relation.render())) }}
    {%- endif -%}
    {#- An Iceberg or Delta table is never dropped for another format: its drop leaves its
        folder, where Spark creates no managed table (LOCATION_ALREADY_EXISTS), and the seed
        was lost. -#}
    {%- if old_relation is not none and (old_relation.is_iceberg or old_relation.is_delta)
            and format_name not in ['iceberg', 'delta'] -%}
        {{ exceptions.raise_compiler_error(
            "Seed '" ~ model['name'] ~ "' (" ~ model['original_file_path'] ~ "): "
            ~ old_relation ~ " is an " ~ ('Iceberg' if old_relation.is_iceberg else 'Delta')
            ~ " table, and the seed's file_format is now '" ~ file_format ~ "'. A seed "
            ~ "replaces such a table in one commit but cannot turn it into another format: "
            ~ "dropped, it leaves its folder, where Spark creates no managed table. Nothing "
            ~ "was written; the seed table is unchanged. Set file_format back, or drop the "
            ~ "table (drop table " ~ old_relation ~ " purge), delete its folder, and seed "
            ~ "again.") }}
    {%- endif -%}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}

    {%- set load_method = scd2_audit._scd2_seed_load_method(model) -%}
    {%- set column_types = model['config'].get('column_types') or {} -%}
    {%- set source = scd2_audit._scd2_run_view_name(target_relation, 'seed') -%}
    {%- set rows_read = none -%}
    {%- set loaded = none -%}
    {%- if load_method == 'spark_csv' -%}
        {%- set read = scd2_audit._scd2_seed_csv_view(model, source) -%}
        {%- set columns = read['columns'] -%}
        {%- set rows_read = read['rows'] -%}
        {%- set views = [source] -%}
        {%- set source = read['relation'] -%}
    {%- else -%}
        {%- set loaded = scd2_audit._scd2_seed_row_batches(model, source) -%}
        {%- set columns = loaded['columns'] -%}
        {%- set views = loaded['views'] -%}
        {%- set source = loaded['relation'] -%}
    {%- endif -%}
    {%- do scd2_audit._scd2_seed_warn_column_types(model, columns, column_types) -%}
    {%- do scd2_audit._scd2_seed_assert_column_types(model, columns, column_types,
        format_name) -%}
    {%- set inferred = [] -%}
    {%- for name in columns if name not in column_types -%}
        {%- do inferred.append(name) -%}
    {%- endfor -%}
    {#- Types of the columns without column_types: agate's, where dbt read the file; else from
        one pass of Spark over the text (no pass when every column is pinned). -#}
    {%- if loaded is not none -%}
        {%- set types = loaded['inferred_types'] -%}
    {%- else -%}
        {#- From the view as read, without the check of each record's width: run by
            run_query, a record that fails it failed as dbt's "Unhandled error", in 5 KB of
            Java trace (Spark runs a select when its rows are fetched, which dbt does outside
            its error handling); the build below fails on it with the message alone. Such a
            record's cells do not change a file's types, which it fails. -#}
        {%- set types = scd2_audit._scd2_seed_infer_types(views[0], inferred) -%}
    {%- endif -%}
    {%- for name in columns -%}
        {%- if name in column_types -%}
            {%- do types.update({name: column_types[name]}) -%}
        {%- endif -%}
    {%- endfor -%}

    {%- set replace_in_place = format_name in ['iceberg', 'delta']
        and (old_relation is none or old_relation.is_iceberg or old_relation.is_delta) -%}
    {%- set select_sql = scd2_audit._scd2_seed_select(model, source, columns, types, inferred,
        decoded_by_spark=load_method == 'spark_csv') -%}
    {#- A table of another format at a location of its own (location_root): its drop leaves
        its files, where Spark creates no table as a select (a non-empty folder), so the seed
        dropped the table and then failed, on every run. Such a table (external, at the
        location the config gives now) has its files overwritten instead, by column name,
        where the file's columns and types are the table's (others fail before writing,
        saying what to do). Another table (managed, or moved by a changed location_root) is
        dropped and created, as before. -#}
    {%- set overwrite = false -%}
    {%- if old_relation is not none and not replace_in_place and config.get('location_root') -%}
        {%- set described = {} -%}
        {%- for row in run_query('describe table extended ' ~ old_relation).rows -%}
            {%- do described.update({(row[0] or '') | trim: (row[1] or '') | trim}) -%}
        {%- endfor -%}
        {#- Both as paths: without a file: scheme, repeated or trailing slashes. -#}
        {%- set paths = [] -%}
        {%- for path in [described.get('Location', ''),
                config.get('location_root') ~ '/' ~ target_relation.identifier] -%}
            {%- set path = modules.re.sub('^file:(//)?|/+$', '', path) -%}
            {%- do paths.append(modules.re.sub('(?<!:)/{2,}', '/', path)) -%}
        {%- endfor -%}
        {%- set overwrite = described.get('Type', '') | upper == 'EXTERNAL'
            and paths[0] == paths[1] -%}
    {%- endif -%}
    {%- if old_relation is not none and not replace_in_place -%}
        {#- A table Spark cannot replace in one commit is dropped, then created (or its files
            overwritten): the seed's checks run first, over every cell (the sum of a hash of
            the whole row: Spark prunes the columns of a count, even of a hash), so that a bad
            value leaves the table as it was, as the message says (an Iceberg or Delta table
            is never dropped for another format, see above). -#}
        {#- Cached, which runs the query as its statement runs: a select runs when dbt
            fetches its rows, outside its error handling, and a bad value failed as dbt's
            "Unhandled error" in 5 KB of Java trace. -#}
        {%- set checked = scd2_audit._scd2_run_view_name(target_relation, 'seed_checked') -%}
        {%- do scd2_audit._scd2_run_sql('cache table ' ~ checked ~ ' as select sum(hash(*)) '
            ~ 'as scd2_hash from (' ~ select_sql ~ ') as scd2_seed_checked') -%}
        {%- do scd2_audit._scd2_run_sql('drop view if exists ' ~ checked) -%}
        {%- if overwrite -%}
            {#- Types too: the insert would cast the file's values to the table's types
                (fractions into a bigint column truncated), or fail on one beyond them after
                the overwrite had deleted the files. -#}
            {%- set held = [] -%}
            {%- for name, type in scd2_audit._scd2_column_types(old_relation).items() -%}
                {%- do held.append(name ~ ' ' ~ type) -%}
            {%- endfor -%}
            {%- set given = [] -%}
            {%- for column in scd2_audit._scd2_query_columns(select_sql) -%}
                {%- do given.append(column.name | lower ~ ' ' ~ column.type | lower) -%}
            {%- endfor -%}
            {%- if held | sort != given | sort -%}
                {{ exceptions.raise_compiler_error(
                    "Seed '" ~ model['name'] ~ "' (" ~ model['original_file_path'] ~ "): "
                    ~ old_relation ~ " is a " ~ format_name ~ " table at a location of its "
                    ~ "own (location_root), with the columns " ~ held | join(', ')
                    ~ ", and the file gives " ~ given | join(', ') ~ ". Its files can be "
                    ~ "overwritten, not its columns changed: dropped, it leaves them in its "
                    ~ "folder, where Spark creates no new table. Nothing was written; the "
                    ~ "seed table is unchanged. Pin the types in column_types, or drop the "
                    ~ "table, delete its folder, and seed again (or use file_format: iceberg, "
                    ~ "which replaces a table in one commit).") }}
            {%- endif -%}
            {#- Every partition replaced: in dynamic mode (dbt-spark's insert_overwrite
                models set it for the session) partitions the file no longer has kept their
                rows. Put back after the insert. -#}
            {%- set mode_key = 'spark.sql.sources.partitionOverwriteMode' -%}
            {%- set mode = run_query('set ' ~ mode_key).rows[0][1] -%}
            {%- do scd2_audit._scd2_run_sql('set ' ~ mode_key ~ '=static') -%}
        {%- else -%}
            {#- What Spark refuses only as it creates the table (a column name the Hive
                metastore cannot hold, such as one with a comma; a partition or bucket column
                the file lacks; a bad option) failed after the drop, and the table was lost:
                the same definition, without rows and in the warehouse, is created and
                dropped first. -#}
            {%- set probe = target_relation.incorporate(
                path={'identifier': target_relation.identifier ~ '__scd2_seed_probe'}) -%}
            {#- Purged: a probe in Iceberg (a parquet seed turned iceberg) leaves its folder
                otherwise, where the next managed probe cannot be created. -#}
            {%- do scd2_audit._scd2_run_sql('drop table if exists ' ~ probe ~ ' purge') -%}
            {#- Its columns declared, not a select's: a create as select writes its folder
                before the metastore refuses the table, and the folder left there blocks the
                next probe (LOCATION_ALREADY_EXISTS). -#}
            {%- set declared = [] -%}
            {%- for column in scd2_audit._scd2_query_columns(select_sql) -%}
                {%- do declared.append(scd2_audit._scd2_quote(column.name) ~ ' ' ~ column.type) -%}
            {%- endfor -%}
            {%- do scd2_audit._scd2_run_sql('create table ' ~ probe ~ ' ('
                ~ declared | join(', ') ~ ') ' ~ file_format_clause() ~ ' ' ~ options_clause()
                ~ ' ' ~ tblproperties_clause() ~ ' ' ~ partition_cols(label='partitioned by')
                ~ ' ' ~ clustered_cols(label='clustered by')) -%}
            {%- do scd2_audit._scd2_run_sql('drop table ' ~ probe ~ ' purge') -%}
            {%- do adapter.drop_relation(old_relation) -%}
        {%- endif -%}
    {%- endif -%}
    {%- set build_sql -%}
        {%- if overwrite %}
        insert overwrite table {{ target_relation }} by name
        {{ select_sql }}
        {%- else %}
        {{ 'create or replace table' if replace_in_place else 'create table' }} {{ target_relation }}
        {{ file_format_clause() }}
        {{ options_clause() }}
        {{ tblproperties_clause() }}
        {{ partition_cols(label="partitioned by") }}
        {{ clustered_cols(label="clustered by") }}
        {{ location_clause() }}
        {{ comment_clause() }}
        as
        {{ select_sql }}
        {%- endif %}
    {%- endset -%}
    {%- call statement('scd2_seed_build') -%}
        {{ build_sql }}
    {%- endcall -%}
    {%- if overwrite -%}
        {%- do scd2_audit._scd2_run_sql('set ' ~ mode_key ~ '=' ~ mode) -%}
    {%- endif -%}

    {%- for view in views -%}
        {%- do scd2_audit._scd2_run_sql('drop view if exists ' ~ view) -%}
    {%- endfor -%}

    {#- The count the CSV scan made where it could (every record read was written: a bad one
        fails the build); else a count of the table. -#}
    {%- if rows_read is none -%}
        {%- set rows_affected = run_query('select count(*) from ' ~ target_relation).rows[0][0] -%}
    {%- else -%}
        {%- set rows_affected = rows_read -%}
    {%- endif -%}
    {#- dbt seed --show prints a sample, dbt show --select <seed> the rows up to its --limit
        (stock dbt: the whole file); otherwise the build's own (empty) result serves. -#}
    {%- if invocation_args_dict.get('which') == 'show' -%}
        {%- set limit = invocation_args_dict.get('limit') -%}
        {%- set sample = run_query('select * from ' ~ target_relation
            ~ (' limit ' ~ limit if limit is number and limit >= 0 else '')) -%}
    {%- elif invocation_args_dict.get('show') -%}
        {%- set sample = run_query('select * from ' ~ target_relation ~ ' limit 100') -%}
    {%- else -%}
        {%- set sample = load_result('scd2_seed_build').table -%}
    {%- endif -%}
    {%- do store_result('agate_table', response='OK', agate_table=sample) -%}
    {%- set code = 'CREATE' if full_refresh_mode or old_relation is none else 'INSERT' -%}
    {#- The runtime SQL dbt writes to target/run: without the rows' literals, as stock dbt's
        shows its insert without its bindings. -#}
    {%- if loaded is not none -%}
        {%- set build_sql = build_sql | replace(source, "(/* the seed's rows as SQL literals */)") -%}
    {%- endif -%}
    {% call noop_statement('main', code ~ ' ' ~ rows_affected, code, rows_affected) %}
        {{ build_sql }}
    {% endcall %}

    {%- set should_revoke = should_revoke(old_relation, full_refresh_mode) -%}
    {%- do apply_grants(target_relation, grant_config, should_revoke=should_revoke) -%}
    {%- do persist_docs(target_relation, model) -%}

    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {{ adapter.commit() }}
    {{ run_hooks(post_hooks, inside_transaction=False) }}

    {{ return({'relations': [target_relation]}) }}
{% endmacro %}
