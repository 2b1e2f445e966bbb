{% macro _scd2_audit_values(event, valid_from=none, valid_to=none) -%}
    {#-
        Select-list items for the audit columns of one staging or build row, in the fixed
        role order of scd2_audit_column_names(), so that every branch of the staging union
        lines up.
        event 'open':  the row inserts a version valid from `valid_from`, open-ended.
        event 'close': the row closes a version at `valid_to`; only the update_* and
                       effective_end columns are used, by the merge's `when matched` clause.
    -#}
    {%- set audit = scd2_audit_column_names() -%}
    {%- if event == 'open' -%}
        '{{ invocation_id }}' as {{ audit.insert_process_id }},
        cast(null as string) as {{ audit.update_process_id }},
        {{ snapshot_get_time() }} as {{ audit.insert_ts }},
        cast(null as timestamp) as {{ audit.update_ts }},
        {{ valid_from }} as {{ audit.effective_start_ts }},
        {{ scd2_high_end_ts() }} as {{ audit.effective_end_ts }}
    {%- elif event == 'close' -%}
        cast(null as string) as {{ audit.insert_process_id }},
        '{{ invocation_id }}' as {{ audit.update_process_id }},
        cast(null as timestamp) as {{ audit.insert_ts }},
        {{ snapshot_get_time() }} as {{ audit.update_ts }},
        cast(null as timestamp) as {{ audit.effective_start_ts }},
        {{ valid_to }} as {{ audit.effective_end_ts }}
    {%- else -%}
        {{ exceptions.raise_compiler_error("_scd2_audit_values: unknown event '" ~ event ~ "'") }}
    {%- endif -%}
{%- endmacro %}
