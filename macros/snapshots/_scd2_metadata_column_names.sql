{% macro _scd2_metadata_column_names(hard_deletes) -%}
    {#-
        The columns a snapshot adds to its query's columns, as configured: dbt's own
        (snapshot_meta_column_names; dbt_is_deleted only with hard_deletes='new_record') and
        the audit columns. Read by the source-column check, with 'new_record' (a source column
        may not take one of these names, dbt_is_deleted included), and by the staging query (a
        table column the source lacks, and not one of these, is a column the source lost).
    -#}
    {%- set columns = config.get('snapshot_table_column_names')
        or get_snapshot_table_column_names() -%}
    {%- set names = [] -%}
    {%- for role, name in columns.items()
            if role != 'dbt_is_deleted' or hard_deletes == 'new_record' -%}
        {%- do names.append(name) -%}
    {%- endfor -%}
    {%- do names.extend(scd2_audit.scd2_audit_column_names().values() | list) -%}
    {{ return(names) }}
{%- endmacro %}
