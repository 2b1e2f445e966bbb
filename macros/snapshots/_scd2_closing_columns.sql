{% macro _scd2_closing_columns() -%}
    {#-
        The columns a run sets on a version it closes (from its staged 'update' or 'delete'
        row): dbt's dbt_valid_to and the audit columns of the closing run. The one list read
        by the MERGE (spark__snapshot_merge_sql) and by its one-commit form for runs that
        change the table's columns (_scd2_merge_as_select_sql).
    -#}
    {%- set columns = config.get('snapshot_table_column_names')
        or get_snapshot_table_column_names() -%}
    {%- set audit = scd2_audit.scd2_audit_column_names() -%}
    {{ return([
        columns.dbt_valid_to,
        audit.update_process_id,
        audit.update_ts,
        audit.effective_end_ts,
    ]) }}
{%- endmacro %}
