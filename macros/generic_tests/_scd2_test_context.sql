{% macro _scd2_test_context(model, unique_key=none, valid_to_current=none) -%}
    {#-
        What the scd2_* generic tests need to know about the table under test: its key columns,
        dbt's column names, our metadata names, and how an open version looks.
        Applied to a snapshot, everything is read from the snapshot's own config in the graph
        (unique_key, snapshot_meta_column_names, dbt_valid_to_current), so the YAML needs no
        arguments and cannot drift from the snapshot. Applied to anything else (a copy, a
        source), pass unique_key (and valid_to_current if used).
    -#}
    {%- set snapshot = _scd2_snapshot_config(model) -%}
    {%- set columns = snapshot.columns -%}
    {%- set found = {
        'unique_key': unique_key if unique_key is not none else snapshot.unique_key,
        'valid_to_current': valid_to_current if valid_to_current is not none else snapshot.valid_to_current,
    } -%}
    {%- if execute and found.unique_key is none -%}
        {{ exceptions.raise_compiler_error(
            "scd2 generic test on " ~ model ~ ": no unique_key given and no snapshot found "
            ~ "for this relation. Pass `unique_key: [col, ...]` in the test's arguments.") }}
    {%- endif -%}
    {%- set keys = found.unique_key if found.unique_key | is_list else [found.unique_key] -%}
    {%- set open_sql -%}
        ({{ columns.dbt_valid_to }} is null
        {%- if found.valid_to_current %} or {{ columns.dbt_valid_to }} = {{ found.valid_to_current }}{% endif %})
    {%- endset -%}
    {{ return({
        'keys': keys,
        'key_list': keys | join(', '),
        'columns': columns,
        'audit': scd2_audit_column_names(),
        'is_open': open_sql,
    }) }}
{%- endmacro %}
