{% macro _scd2_upstream_relations(node) -%}
    {#-
        The relations `node` reads through ref() and source(), as their names render in SQL
        (the graph's `relation_name`); ephemeral models have none and are left out. Outside a
        run (parsing) the graph may be empty: then none.
    -#}
    {%- set names = [] -%}
    {%- set nodes = graph.get('nodes') or {} -%}
    {%- set sources = graph.get('sources') or {} -%}
    {%- for unique_id in node.depends_on.nodes -%}
        {%- set upstream = nodes.get(unique_id) or sources.get(unique_id) or {} -%}
        {%- if upstream.get('relation_name') and upstream.relation_name not in names -%}
            {%- do names.append(upstream.relation_name) -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(names) -}}
{%- endmacro %}
