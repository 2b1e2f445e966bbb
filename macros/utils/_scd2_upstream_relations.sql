{% macro _scd2_upstream_relations(node) -%}
    {#-
        The relations `node` reads through ref() and source(), resolved as its query resolves
        them (with --defer, a ref to a model not built in the target's schema is the state's
        relation; the graph's relation_name would name the missing one).
    -#}
    {%- set relations = [] -%}
    {%- for reference in node.refs -%}
        {%- set args = [reference.get('package'), reference.name] if reference.get('package')
            else [reference.name] -%}
        {%- if reference.get('version') is not none -%}
            {%- do relations.append(ref(*args, version=reference.get('version'))) -%}
        {%- else -%}
            {%- do relations.append(ref(*args)) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- for source_name, table_name in node.sources -%}
        {%- do relations.append(source(source_name, table_name)) -%}
    {%- endfor -%}
    {{- return(relations) -}}
{%- endmacro %}
