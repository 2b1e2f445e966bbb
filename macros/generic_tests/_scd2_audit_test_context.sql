{% macro _scd2_audit_test_context(model, unique_key, valid_to_current, test_name) -%}
    {#-
        The context (_scd2_snapshot_context) of a generic test that reads the audit columns,
        returned once the tested table is known to have them and dbt's validity columns. A
        snapshot built without the package's snapshot macros (a project that installed the
        package without its dispatch block) has none, and the test failed on Spark's
        UNRESOLVED_COLUMN, naming neither the table nor the fix. A table not built yet is
        left to the test's own run.
    -#}
    {%- set ctx = scd2_audit._scd2_snapshot_context(
        model, unique_key, valid_to_current,
        remedy='Pass `unique_key: [col, ...]` in the test\'s arguments.'
    ) -%}
    {%- set types = scd2_audit._scd2_column_types(model) -%}
    {%- set a = ctx.audit -%}
    {%- set dbt_missing = [ctx.columns.dbt_valid_from, ctx.columns.dbt_valid_to]
        | map('lower') | reject('in', types) | list -%}
    {%- set audit_missing = [a.effective_start_ts, a.effective_end_ts, a.insert_process_id,
        a.insert_ts, a.update_process_id, a.update_ts] | map('lower') | reject('in', types)
        | list -%}
    {%- set missing = dbt_missing or audit_missing -%}
    {%- if types and missing -%}
        {{ exceptions.raise_compiler_error(
            "scd2_audit." ~ test_name ~ " on " ~ model ~ ": the table has no column(s) "
            ~ missing | join(', ') ~ " (its columns: " ~ types.keys() | join(', ') ~ ")"
            ~ ((". A snapshot whose dbt columns were renamed (snapshot_meta_column_names) is "
                ~ "tested through the snapshot itself, whose config gives their names; a copy "
                ~ "of one cannot be. Attach the test to the snapshot.")
            if dbt_missing else
                (", so it is no SCD2 history of this package. "
                ~ scd2_audit._scd2_stock_built_advice()))) }}
    {%- endif -%}
    {#- An scd2_events table the graph does not build is known by its columns, as the
        analyst macros know it: read as a snapshot's, a key deleted and created again in one
        run showed a gap where none is. -#}
    {%- do ctx.update({'is_events': scd2_audit._scd2_is_events_table(ctx, types.keys() | list)}) -%}
    {%- do return(ctx) -%}
{%- endmacro %}
