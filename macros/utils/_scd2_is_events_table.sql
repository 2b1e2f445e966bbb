{% macro _scd2_is_events_table(context, table_columns) -%}
    {#-
        Whether a history table was built by scd2_events (docs/events.md): an scd2_events
        model of the graph builds it (`context`, _scd2_snapshot_context), or the graph does
        not build it (a source() over another project's table, a copy) and it has the event
        columns (scd2_event_column_names; `table_columns` in lower case). Its versions then say
        how they were closed, where a snapshot's are read from the runs that closed and opened
        them.
    -#}
    {%- set names = scd2_audit.scd2_event_column_names() -%}
    {%- set missing = [names.opened_position, names.closed_position, names.closed_as]
        | map('lower') | reject('in', table_columns) | list -%}
    {{ return(context.is_events or (not missing and not context.is_snapshot)) }}
{%- endmacro %}
