{% macro _scd2_history_context(relation, unique_key=none) -%}
    {#-
        The snapshot context (_scd2_snapshot_context: keys, dbt's and our column names, the
        open-version predicate) of the snapshot that builds `relation`, plus what the scd2_*
        analytics macros need from the table itself:
        - key_columns: the keys, lower case;
        - data_columns: the keys, then every other column that is neither dbt's nor ours, in
          table order: the snapshotted source row;
        - metadata_columns: dbt's and our columns present in the table, in table order;
        - all_columns: every column, in table order;
        - is_deletion_record: SQL that is true on dbt's deletion records (hard_deletes=
          'new_record': a deleted key's open row, holding its last values), false elsewhere and
          on a table without dbt's is-deleted column: no state holds a deleted key;
        - events: the event column names (scd2_event_column_names()) on a table an
          scd2_events model builds (or one holding those columns), whose versions say how
          they were opened and closed; none on a snapshot.
        Columns are read from the table. When it does not exist yet (dbt compile, sqlfluff, docs
        before the first snapshot), the columns documented in the snapshot's YAML stand in, so
        that the SQL still compiles to its real shape.
    -#}
    {%- if relation is none -%}
        {{ exceptions.raise_compiler_error(
            "scd2 analytics: the relation is none (a table that does not exist?). Pass a "
            ~ "snapshot, e.g. ref('my_snapshot').") }}
    {%- endif -%}
    {%- set snapshot = scd2_audit._scd2_snapshot_context(
        relation, unique_key, remedy='Pass unique_key=[...] to the macro.') -%}
    {%- set columns = snapshot.columns -%}
    {%- set audit = snapshot.audit -%}
    {%- set table_columns = [] -%}
    {%- if execute -%}
        {%- for column in adapter.get_columns_in_relation(relation) -%}
            {%- do table_columns.append(column.name | lower) -%}
        {%- endfor -%}
        {%- if not table_columns -%}
            {%- do table_columns.extend(snapshot.documented) -%}
        {%- endif -%}
        {%- if not table_columns -%}
            {{ exceptions.raise_compiler_error(
                "scd2 analytics on " ~ relation ~ ": the table does not exist (or has no "
                ~ "columns) and its YAML documents none. Run `dbt snapshot` first.") }}
        {%- endif -%}
    {%- endif -%}
    {%- set keys = snapshot.key_columns | map('lower') | list -%}
    {%- set event_columns = scd2_audit.scd2_event_column_names() -%}
    {%- set metadata_names = (columns.values() | map('lower') | list)
        + (audit.values() | list) + (event_columns.values() | list) -%}
    {%- set missing = keys | reject('in', table_columns) | list -%}
    {%- if execute and missing -%}
        {{ exceptions.raise_compiler_error(
            "scd2 analytics on " ~ relation ~ ": key column(s) " ~ missing
            ~ " not in the table (columns: " ~ table_columns ~ ").") }}
    {%- endif -%}
    {%- set data_columns = keys + (table_columns | reject('in', metadata_names + keys) | list) -%}
    {%- set deleted_flag = columns.dbt_is_deleted
        if (columns.dbt_is_deleted | lower) in table_columns else none -%}
    {%- set has_event_columns = [event_columns.opened_position, event_columns.closed_position,
        event_columns.closed_as] | map('lower') | reject('in', table_columns) | list
        | length == 0 -%}
    {{ return({
        'key_columns': keys,
        'columns': columns,
        'audit': audit,
        'data_columns': data_columns,
        'metadata_columns': table_columns | select('in', metadata_names) | list,
        'all_columns': table_columns,
        'is_deletion_record': ('coalesce(cast(' ~ deleted_flag ~ " as string) = 'True', false)")
            if deleted_flag else 'false',
        'events': event_columns if snapshot.is_events or has_event_columns else none,
        'is_open': snapshot.is_open,
        'high_end': snapshot.high_end,
    }) }}
{%- endmacro %}
