{% macro _scd2_schema_change(staging_relation, target_relation) -%}
    {#-
        How the snapshot table's columns must change for this run's staging rows
        (_scd2_column_changes, the rule scd2_events follows too), compared by name without
        regard to case (Spark's own rule; a Hive-backed view reports its columns in lower
        case, so dbt's case-sensitive get_missing_columns took an upper-case meta column for
        a new one and failed with FIELDS_ALREADY_EXISTS):
        - added: staging columns the table lacks (a new source column);
        - widened: {lower-case name: type} for table columns whose type must widen to hold
          the source's values, as Iceberg allows it in place: int to bigint, float to double,
          a decimal to a larger precision at the same scale; and integer columns whose source
          now brings floats or doubles, where the table's values allow it (checked on the
          snapshot's query before, _scd2_assert_type_changes): the rebuild casts them;
        - retyped: the names of those integer columns among them (no `alter table` makes
          them, which the message for a table partitioned by hand must not advise);
        - changed: whether either applies (the run then rebuilds the table in one commit,
          see _scd2_snapshot_materialization);
        - target_columns, staging_columns: the two relations' columns as described here, for
          that rebuild (_scd2_merge_as_select_sql) to use without describing them again.
        A source type the table's column holds as it is (a narrower int, float into double, a
        decimal that fits) changes nothing: values are cast on insert. Any other type change
        fails here (_scd2_assert_type_changes), before anything is written, naming the column
        and both types (the source's own columns were checked so before the staging view
        was built: its union with the table's rows mixes their types).
    -#}
    {#- The staging's own columns: dbt's change type, and the key's hash (as dbt_unique_key,
        which dbt-spark's materialization never adds either). -#}
    {%- set ignored = ['dbt_change_type', 'dbt_unique_key'] -%}
    {%- set target_columns = adapter.get_columns_in_relation(target_relation) -%}
    {%- set staging_columns = adapter.get_columns_in_relation(staging_relation) -%}
    {%- set target_types = {} -%}
    {%- for col in target_columns -%}
        {%- do target_types.update({col.name | lower: col.dtype}) -%}
    {%- endfor -%}
    {%- set new_columns = [] -%}
    {%- for col in staging_columns if (col.name | lower) not in ignored -%}
        {%- do new_columns.append([col.name, col.dtype]) -%}
    {%- endfor -%}
    {%- set classified = scd2_audit._scd2_assert_type_changes(
        target_types, new_columns, staging_relation) -%}
    {%- set change = {
        'added': staging_columns | selectattr('name', 'in', classified.added) | list,
        'widened': classified.widened,
        'retyped': classified.retyped | map(attribute=0) | list,
        'changed': false,
        'target_columns': target_columns,
        'staging_columns': staging_columns,
    } -%}
    {%- do change.update({
        'changed': (change.added | length > 0) or (change.widened | length > 0),
    }) -%}
    {{ return(change) }}
{%- endmacro %}
