{% macro _scd2_assert_comparable_check_cols(source_sql) -%}
    {#-
        Fail before anything is written when the check strategy compares a column that holds a
        map (at any depth: map<...>, array<map<...>>, struct<...: map<...>>). dbt's check
        strategy compares each check column of the open version with the source's (`!=`),
        which Spark cannot do for maps (maps have no order): the first run, which compares
        nothing, built the table, and every later run failed with Spark's
        DATATYPE_MISMATCH.INVALID_ORDERING_TYPE, naming neither the snapshot nor the fix.
        The same as the events' rule for map columns (_scd2_events_context). check_cols='all'
        compares every column of the snapshot's query; a list, the columns it names.
    -#}
    {%- if not execute or config.get('strategy') != 'check' -%}{{ return(none) }}{%- endif -%}
    {%- set check_cols = config.get('check_cols') -%}
    {%- set compared = [] -%}
    {%- if check_cols != 'all' -%}
        {%- for col in scd2_audit._scd2_column_list(check_cols) -%}
            {%- do compared.append(scd2_audit._scd2_unquoted_name(col) | lower) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- set maps = [] -%}
    {%- set described = [] -%}
    {%- for row in run_query('describe query ' ~ source_sql).rows
            if 'map<' in row[1] | lower
            and (check_cols == 'all' or (row[0] | lower) in compared) -%}
        {%- do maps.append(row[0]) -%}
        {%- do described.append(row[0] ~ ' (' ~ row[1] ~ ')') -%}
    {%- endfor -%}
    {%- if maps -%}
        {%- set name = maps[0] if modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', maps[0])
            else '`' ~ maps[0] ~ '`' -%}
        {{ exceptions.raise_compiler_error(
            "Snapshot '" ~ model.name ~ "': the check strategy compares "
            ~ described | join(', ') ~ ", which hold a map: Spark cannot "
            ~ "compare maps, so every run after the first would fail. Nothing was written. "
            ~ "Turn each into a comparable value in the snapshot's select, e.g. "
            ~ "array_sort(map_entries(" ~ name ~ ")) as " ~ name ~ ", or leave it out of "
            ~ "check_cols (check_cols='all' compares every column of the query).") }}
    {%- endif -%}
{%- endmacro %}
