{% macro _scd2_upstream_references(node) -%}
    {#-
        What `node` reads through ref() and source(), as [{'relation': ..., 'call': ...}]: each
        relation resolved as its query resolves it (with --defer, a ref to a model not built in
        the target's schema is the state's relation; the graph's relation_name would name the
        missing one), and the call that names it in the project (`ref('orders')`,
        `source('raw', 'customers')`), for messages.
    -#}
    {%- set references = [] -%}
    {%- for reference in node.refs -%}
        {%- set args = [reference.get('package'), reference.name] if reference.get('package')
            else [reference.name] -%}
        {%- set version = reference.get('version') -%}
        {%- do references.append({
            'relation': ref(*args, version=version) if version is not none else ref(*args),
            'call': "ref('" ~ args | join("', '") ~ "'"
                ~ (", version=" ~ version if version is not none else "") ~ ")",
        }) -%}
    {%- endfor -%}
    {%- for source_name, table_name in node.sources -%}
        {%- do references.append({
            'relation': source(source_name, table_name),
            'call': "source('" ~ source_name ~ "', '" ~ table_name ~ "')",
        }) -%}
    {%- endfor -%}
    {{- return(references) -}}
{%- endmacro %}
