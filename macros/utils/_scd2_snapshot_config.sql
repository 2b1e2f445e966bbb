{% macro _scd2_snapshot_config(relation) -%}
    {#-
        The config of the snapshot that builds `relation`, read from the graph, for macros that
        work on snapshot tables (generic tests, analytics) so that they need no arguments and
        cannot drift from the snapshot: unique_key, dbt_valid_to_current, dbt's column names
        with snapshot_meta_column_names applied, and the columns its YAML documents.
        unique_key is none when no snapshot builds `relation` (or before execution).
    -#}
    {%- set found = {
        'unique_key': none,
        'valid_to_current': none,
        'documented': [],
        'columns': get_snapshot_table_column_names(),
    } -%}
    {%- if execute -%}
        {%- for node in graph.nodes.values() if node.resource_type == 'snapshot'
                and node.schema == relation.schema
                and (node.alias or node.name) == relation.identifier -%}
            {%- do found.update({
                'unique_key': node.config.unique_key,
                'valid_to_current': node.config.get('dbt_valid_to_current'),
                'documented': node.columns.keys() | map('lower') | list,
            }) -%}
            {%- for role, name in (node.config.get('snapshot_meta_column_names') or {}).items() if name -%}
                {%- do found.columns.update({role: name}) -%}
            {%- endfor -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(found) }}
{%- endmacro %}
