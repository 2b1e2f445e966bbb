{% macro _scd2_events_closing_columns(ctx) -%}
    {#-
        The columns a later scd2_events run sets on an open version it closes (from its
        'close' row, _scd2_events_versions_sql): dbt's dbt_valid_to, the closing run's audit
        columns and the event metadata of the closing event. The one list read by both of its
        writes (_scd2_events_overwrite_sql, _scd2_events_merge_sql).
    -#}
    {{ return([
        ctx.columns.dbt_valid_to,
        ctx.audit.update_process_id,
        ctx.audit.update_ts,
        ctx.audit.effective_end_ts,
        ctx.events.closed_position,
        ctx.events.closed_as,
    ] | map('lower') | list) }}
{%- endmacro %}
