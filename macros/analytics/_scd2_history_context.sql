{% macro _scd2_history_context(relation, unique_key=none) -%}
    {#-
        What the scd2_* analytics macros need to know about one snapshot table:
        - key_columns: the unique_key columns; read from the snapshot's config in the graph when
          `relation` is a snapshot (ref('my_snapshot')), else pass unique_key;
        - columns: dbt's column names (the snapshot's snapshot_meta_column_names applied);
        - audit: our metadata column names (scd2_audit_column_names());
        - data_columns: the keys, then every other column that is neither dbt's nor ours, in
          table order: the snapshotted source row;
        - metadata_columns: dbt's and our columns present in the table, in table order;
        - all_columns: every column, in table order;
        - deleted_flag: dbt's is-deleted column when the table has one (hard_deletes='new_record');
        - is_open: SQL that holds for open versions (dbt_valid_to null, or dbt_valid_to_current).
        Columns are read from the table. When it does not exist yet (dbt compile, sqlfluff, docs
        before the first snapshot), the columns documented in the snapshot's YAML stand in, so
        that the SQL still compiles to its real shape.
    -#}
    {%- set snapshot = _scd2_snapshot_config(relation) -%}
    {%- set columns = snapshot.columns -%}
    {%- set audit = scd2_audit_column_names() -%}
    {%- set found = {
        'unique_key': unique_key if unique_key is not none else snapshot.unique_key,
        'valid_to_current': snapshot.valid_to_current,
        'documented': snapshot.documented,
    } -%}
    {%- set table_columns = [] -%}
    {%- if execute -%}
        {%- if found.unique_key is none -%}
            {{ exceptions.raise_compiler_error(
                "scd2 analytics on " ~ relation ~ ": no snapshot of that name in this project, "
                ~ "and no unique_key given. Pass unique_key=[...] to the macro.") }}
        {%- endif -%}
        {%- for column in adapter.get_columns_in_relation(relation) -%}
            {%- do table_columns.append(column.name | lower) -%}
        {%- endfor -%}
        {%- if not table_columns -%}
            {%- do table_columns.extend(found.documented) -%}
        {%- endif -%}
        {%- if not table_columns -%}
            {{ exceptions.raise_compiler_error(
                "scd2 analytics on " ~ relation ~ ": the table does not exist (or has no "
                ~ "columns) and its YAML documents none. Run `dbt snapshot` first.") }}
        {%- endif -%}
    {%- endif -%}
    {%- set raw_keys = found.unique_key if found.unique_key | is_list else [found.unique_key] -%}
    {%- set keys = raw_keys | reject('none') | map('lower') | list -%}
    {%- set metadata_names = (columns.values() | map('lower') | list)
        + (audit.values() | list) -%}
    {%- set missing = keys | reject('in', table_columns) | list -%}
    {%- if execute and missing -%}
        {{ exceptions.raise_compiler_error(
            "scd2 analytics on " ~ relation ~ ": key column(s) " ~ missing
            ~ " not in the table (columns: " ~ table_columns ~ ").") }}
    {%- endif -%}
    {%- set data_columns = keys + (table_columns | reject('in', metadata_names + keys) | list) -%}
    {%- set open_sql -%}
        ({{ columns.dbt_valid_to }} is null
        {%- if found.valid_to_current %} or {{ columns.dbt_valid_to }} = {{ found.valid_to_current }}{% endif %})
    {%- endset -%}
    {{ return({
        'key_columns': keys,
        'columns': columns,
        'audit': audit,
        'data_columns': data_columns,
        'metadata_columns': table_columns | select('in', metadata_names) | list,
        'all_columns': table_columns,
        'deleted_flag': columns.dbt_is_deleted if (columns.dbt_is_deleted | lower) in table_columns else none,
        'is_open': open_sql,
    }) }}
{%- endmacro %}
