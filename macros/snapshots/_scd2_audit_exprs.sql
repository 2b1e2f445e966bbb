{% macro _scd2_audit_exprs(event, valid_from=none, valid_to=none, valid_type=none) -%}
    {#-
        SQL expressions for the audit columns of one version, by role (the keys of
        scd2_audit_column_names()), for the one `event` a staging or build row stands for:
        event 'open':  the row inserts a version valid from `valid_from`, open-ended.
        event 'close': the row closes a version at `valid_to`; only the update_* and
                       effective_end roles are used, by the merge's `when matched` clause.
        `valid_type`: the validity's Spark type; a date or timestamp_ntz end becomes the
        effective end read as UTC (_scd2_utc_instant_sql), whatever the session's time zone.
    -#}
    {%- if event == 'open' -%}
        {{ return({
            'insert_process_id': "'" ~ invocation_id ~ "'",
            'update_process_id': 'cast(null as string)',
            'insert_ts': snapshot_get_time(),
            'update_ts': 'cast(null as timestamp)',
            'effective_start_ts': valid_from,
            'effective_end_ts': scd2_audit.scd2_high_end_ts(),
        }) }}
    {%- elif event == 'close' -%}
        {#- effective_start_ts untyped: a closing row sits beside opening rows, whose
            valid_from gives it its type (a date, where updated_at is one). -#}
        {{ return({
            'insert_process_id': 'cast(null as string)',
            'update_process_id': "'" ~ invocation_id ~ "'",
            'insert_ts': 'cast(null as timestamp)',
            'update_ts': snapshot_get_time(),
            'effective_start_ts': 'null',
            'effective_end_ts': scd2_audit._scd2_utc_instant_sql(valid_to, valid_type),
        }) }}
    {%- else -%}
        {{ exceptions.raise_compiler_error("_scd2_audit_exprs: unknown event '" ~ event ~ "'") }}
    {%- endif -%}
{%- endmacro %}
