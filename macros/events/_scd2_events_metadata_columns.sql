{% macro _scd2_events_metadata_columns(ctx) -%}
    {#-
        The columns an scd2_events table holds after the key and value columns, in table
        order: dbt's (dbt_is_deleted only with hard_deletes='new_record'), the audit columns,
        the event metadata columns (scd2_event_column_names).
    -#}
    {%- set cols = ctx.columns -%}
    {%- set names = [
        cols.dbt_scd_id, cols.dbt_updated_at, cols.dbt_valid_from, cols.dbt_valid_to,
    ] -%}
    {%- if ctx.hard_deletes == 'new_record' -%}
        {%- do names.append(cols.dbt_is_deleted) -%}
    {%- endif -%}
    {%- do names.extend(ctx.audit.values() | list) -%}
    {%- do names.extend(ctx.events.values() | list) -%}
    {{ return(names | map('lower') | list) }}
{%- endmacro %}
