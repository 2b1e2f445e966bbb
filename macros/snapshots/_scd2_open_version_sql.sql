{% macro _scd2_open_version_sql() -%}
    {#-
        SQL that is true for an open version of the snapshot being run: in the open partition
        (audit update_process_id is null, see _scd2_snapshot_layout) and open as dbt's staging
        query defines it (dbt_valid_to NULL, or equal to dbt_valid_to_current when that is set).
        The one definition read by the staging query and the delete-share guard, so that the
        guard counts exactly the versions the run can close.
    -#}
    {%- set columns = config.get('snapshot_table_column_names') or get_snapshot_table_column_names() -%}
    {%- set audit = scd2_audit_column_names() -%}
    {%- set valid_to = columns.dbt_valid_to | trim -%}
    {%- if config.get('dbt_valid_to_current') -%}
        {%- set dbt_open = '(' ~ equals(valid_to, config.get('dbt_valid_to_current') | trim)
            ~ ' or ' ~ valid_to ~ ' is null)' -%}
    {%- else -%}
        {%- set dbt_open = valid_to ~ ' is null' -%}
    {%- endif -%}
    {{ return(audit.update_process_id ~ ' is null and ' ~ dbt_open) }}
{%- endmacro %}
