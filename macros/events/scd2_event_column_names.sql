{% macro scd2_event_column_names() -%}
    {{ return(adapter.dispatch('scd2_event_column_names', 'scd2_audit')()) }}
{%- endmacro %}

{% macro default__scd2_event_column_names() -%}
    {#-
        The one definition of the columns an scd2_events table adds beside dbt's and the
        audit columns: role -> column name, renamed through the project var
        `scd2_event_column_names` (docs/events.md):
        - opened_position: the ordering values (a struct of event_order_by) of the event that
          opened the version;
        - opened_op: that event's operation code;
        - closed_position: the ordering values of the event that closed it (null while open);
        - closed_as: how it was closed: 'update', 'delete' or 'key_change' (null while open);
        - previous_key: the key (a struct of the key columns) a key change moved the row from,
          on the version that change opened; null otherwise;
        - last_position: on the key's open version, the ordering values of the latest event of
          its key the table has taken in: the one that opened the version, or a later one
          that changed nothing (a no-op is recorded here so that an event older than it is
          recognised as late); a closed version keeps the value it had when it closed, one
          opened and closed by the same run its opening position.
    -#}
    {{ return(scd2_audit._scd2_column_names('scd2_event_column_names', {
        'opened_position': 'event_opened_position',
        'opened_op': 'event_opened_op',
        'closed_position': 'event_closed_position',
        'closed_as': 'event_closed_as',
        'previous_key': 'event_previous_key',
        'last_position': 'event_last_position',
    })) }}
{%- endmacro %}
