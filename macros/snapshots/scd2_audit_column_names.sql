{% macro scd2_audit_column_names() -%}
    {{ return(adapter.dispatch('scd2_audit_column_names', 'scd2_audit')()) }}
{%- endmacro %}

{% macro default__scd2_audit_column_names() -%}
    {#-
        The one definition of the operational metadata columns: role -> column name.
        Roles are fixed (the overrides rely on them); names come from the project var
        `scd2_audit_column_names`, so a project can rename any of them in one place.
    -#}
    {{ return(scd2_audit._scd2_column_names('scd2_audit_column_names', {
        'insert_process_id': 'audit_insert_process_id',
        'update_process_id': 'audit_update_process_id',
        'insert_ts': 'audit_insert_ts',
        'update_ts': 'audit_update_ts',
        'effective_start_ts': 'effective_start_ts',
        'effective_end_ts': 'effective_end_ts',
    })) }}
{%- endmacro %}
