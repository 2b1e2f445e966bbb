{% macro _scd2_open_version_sql(relation_alias=none, with_process_id=true) -%}
    {#-
        SQL that is true for an open version of the snapshot being run: in the open partition
        (audit update_process_id is null, see _scd2_snapshot_layout) and open as dbt's staging
        query defines it (dbt_valid_to NULL, or equal to dbt_valid_to_current when that is set).
        The one definition read by the staging query, the delete-share guard and the rebuild
        of a table whose schema changes, so that they all mean the versions a run can close.
        `relation_alias` qualifies the columns (e.g. 'DBT_INTERNAL_DEST'). with_process_id=false
        for a table without the audit columns yet (built by stock dbt, upgraded by this run):
        dbt's rule alone.
    -#}
    {%- set columns = config.get('snapshot_table_column_names') or get_snapshot_table_column_names() -%}
    {%- set audit = scd2_audit_column_names() -%}
    {%- set prefix = (relation_alias ~ '.') if relation_alias else '' -%}
    {%- set valid_to = prefix ~ (columns.dbt_valid_to | trim) -%}
    {%- if config.get('dbt_valid_to_current') -%}
        {%- set dbt_open = '(' ~ equals(valid_to, config.get('dbt_valid_to_current') | trim)
            ~ ' or ' ~ valid_to ~ ' is null)' -%}
    {%- else -%}
        {%- set dbt_open = valid_to ~ ' is null' -%}
    {%- endif -%}
    {%- if not with_process_id -%}{{ return(dbt_open) }}{%- endif -%}
    {{ return(prefix ~ audit.update_process_id ~ ' is null and ' ~ dbt_open) }}
{%- endmacro %}
