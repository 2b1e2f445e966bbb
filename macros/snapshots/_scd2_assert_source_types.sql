{% macro _scd2_assert_source_types(query_columns) -%}
    {#-
        Fail before anything is written when a column type of the snapshot's query cannot be
        snapshotted, naming the columns and the fix, where Spark and Iceberg name neither the
        snapshot nor, for the first, the column:
        - an untyped NULL (`null as note`, Spark's void, also inside an array or struct):
          Iceberg cannot store it, and the run failed with "Not a supported type: void";
        - with the check strategy, a compared column that holds a map (at any depth: map<...>,
          array<map<...>>, struct<...: map<...>>). dbt's check strategy compares each check
          column of the open version with the source's (`!=`), which Spark cannot do for maps
          (maps have no order): the first run, which compares nothing, built the table, and
          every later run failed with DATATYPE_MISMATCH.INVALID_ORDERING_TYPE. The same rule
          as the events' (_scd2_events_context). check_cols='all' compares every column of
          the query; a list, the columns it names.
        `query_columns`: the query's columns and types (_scd2_query_columns).
    -#}
    {%- if not execute -%}{{ return(none) }}{%- endif -%}
    {%- set check_cols = config.get('check_cols') if config.get('strategy') == 'check' else [] -%}
    {%- set compared = [] -%}
    {%- if check_cols != 'all' -%}
        {%- for col in scd2_audit._scd2_column_list(check_cols) -%}
            {%- do compared.append(scd2_audit._scd2_unquoted_name(col) | lower) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- set voids = [] -%}
    {%- set maps = [] -%}
    {%- for column in query_columns -%}
        {%- set name = column.name if scd2_audit._scd2_is_plain_name(column.name)
            else scd2_audit._scd2_quote(column.name) -%}
        {%- set type = column.type | lower -%}
        {%- set described = column.name ~ ' (' ~ type ~ ')' -%}
        {%- if scd2_audit._scd2_type_holds(type, 'void') -%}
            {%- do voids.append([name, described]) -%}
        {%- elif scd2_audit._scd2_type_holds(type, 'map')
                and (check_cols == 'all' or (column.name | lower) in compared) -%}
            {%- do maps.append([name, described]) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set where = "Snapshot '" ~ model.name ~ "': " -%}
    {%- if voids -%}
        {{ exceptions.raise_compiler_error(
            where ~ "its query returns " ~ voids | map(attribute=1) | join(', ')
            ~ ", an untyped NULL, which Iceberg cannot store. Nothing was written. Give each "
            ~ "a type in the snapshot's select, e.g. cast(null as string) as "
            ~ voids[0][0] ~ ".") }}
    {%- endif -%}
    {%- if maps -%}
        {{ exceptions.raise_compiler_error(
            where ~ "the check strategy compares " ~ maps | map(attribute=1) | join(', ')
            ~ ", which hold a map: Spark cannot compare maps, so every run after the first "
            ~ "would fail. Nothing was written. Turn each into a comparable value in the "
            ~ "snapshot's select, e.g. array_sort(map_entries(" ~ maps[0][0] ~ ")) as "
            ~ maps[0][0] ~ ", or leave it out of check_cols (check_cols='all' compares every "
            ~ "column of the query).") }}
    {%- endif -%}
{%- endmacro %}
