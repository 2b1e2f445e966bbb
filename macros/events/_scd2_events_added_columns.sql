{% macro _scd2_events_added_columns(problems) -%}
    {#-
        dbt's column names for an events model (get_snapshot_table_column_names, renamed by
        its `snapshot_meta_column_names`), checked as for snapshots
        (_scd2_assert_snapshot_config), each problem appended to `problems`: a role dbt does
        not know was ignored without a word, and two columns the table adds with one name
        (dbt's, audit and event columns), or a name that needs quoting, failed in Spark.
    -#}
    {%- set columns = get_snapshot_table_column_names() -%}
    {%- set renamed = config.get('snapshot_meta_column_names') or {} -%}
    {%- if renamed is not mapping -%}
        {%- do problems.append("snapshot_meta_column_names must be a mapping of dbt's roles to "
            ~ "column names, got " ~ renamed) -%}
        {%- set renamed = {} -%}
    {%- endif -%}
    {%- set unknown = renamed.keys() | reject('in', columns) | list -%}
    {%- if unknown -%}
        {%- do problems.append("snapshot_meta_column_names names " ~ unknown | join(', ')
            ~ ", which dbt does not know; its roles are " ~ columns.keys() | join(', ')) -%}
    {%- endif -%}
    {%- for role, column in renamed.items() if column and role in columns -%}
        {%- do columns.update({role: column | string}) -%}
    {%- endfor -%}
    {%- set audit = scd2_audit.scd2_audit_column_names() -%}
    {%- set events = scd2_audit.scd2_event_column_names() -%}
    {%- set added = (columns.values() | list) + (audit.values() | list)
        + (events.values() | list) -%}
    {%- set twice = scd2_audit._scd2_repeated_names(added) -%}
    {%- set bad_names = [] -%}
    {%- for column in added if not scd2_audit._scd2_is_plain_name(column) -%}
        {%- do bad_names.append(column) -%}
    {%- endfor -%}
    {%- if twice -%}
        {%- do problems.append("the columns the table adds would have the name(s) "
            ~ twice | join(', ') ~ " twice (dbt's, audit and event columns, compared without "
            ~ "regard to case): give each its own name in snapshot_meta_column_names") -%}
    {%- endif -%}
    {%- if bad_names -%}
        {%- do problems.append("snapshot_meta_column_names gives column name(s) " ~ bad_names
            ~ " that need quoting: use letters, digits and underscores") -%}
    {%- endif -%}
    {{ return(columns) }}
{%- endmacro %}
