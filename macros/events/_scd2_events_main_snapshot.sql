{% macro _scd2_events_main_snapshot(relation) -%}
    {#- The id of the Iceberg snapshot the table's main branch is at (none without one). -#}
    {%- set rows = run_query(
        "select snapshot_id from " ~ relation ~ ".refs where name = 'main'").rows -%}
    {{ return(rows[0][0] if rows | length else none) }}
{%- endmacro %}
