{% macro _scd2_upstream_references(node) -%}
    {#-
        What `node` reads through ref() and source(), as [{'relation': ..., 'call': ...,
        'rendered': ...}]: each relation resolved as its query resolves it (with --defer, a ref
        to a model not built in the target's schema is the state's relation; the graph's
        relation_name would name the missing one), the call that names it in the project
        (`ref('orders')`, `source('raw', 'customers')`), for messages, and the name it has in
        the compiled query. An ephemeral model it reads is a CTE of that query, so what the
        ephemeral model reads (through more ephemeral models too) is added, from the graph:
        its relation_name and quoting, and the call with the model it comes through (without
        a package or version). The graph knows no --defer: a model the ephemeral one reads
        that is deferred to the state's relation is named in the query by that relation, so
        it is neither found there nor refreshed.
    -#}
    {%- set references = [] -%}
    {%- for reference in node.refs -%}
        {%- set args = [reference.get('package'), reference.name] if reference.get('package')
            else [reference.name] -%}
        {%- set version = reference.get('version') -%}
        {%- set relation = ref(*args, version=version) if version is not none else ref(*args) -%}
        {%- do references.append({
            'relation': relation,
            'call': "ref('" ~ args | join("', '") ~ "'"
                ~ (", version=" ~ version if version is not none else "") ~ ")",
            'rendered': relation | string,
        }) -%}
    {%- endfor -%}
    {%- for source_name, table_name in node.sources -%}
        {%- set relation = source(source_name, table_name) -%}
        {%- do references.append({
            'relation': relation,
            'call': "source('" ~ source_name ~ "', '" ~ table_name ~ "')",
            'rendered': relation | string,
        }) -%}
    {%- endfor -%}
    {#- Ephemeral models, level by level (a chain of more than 10 is left unread). -#}
    {%- set seen = [] -%}
    {%- set level = namespace(ids=[]) -%}
    {%- for unique_id in (node.depends_on or {}).get('nodes', []) -%}
        {%- do level.ids.append([unique_id, none]) -%}
    {%- endfor -%}
    {%- for _ in range(10) if level.ids -%}
        {%- set next_ids = [] -%}
        {%- for unique_id, via in level.ids if unique_id not in seen -%}
            {%- do seen.append(unique_id) -%}
            {%- set upstream = graph.nodes.get(unique_id) or graph.sources.get(unique_id) -%}
            {%- set ephemeral = upstream and upstream.resource_type == 'model'
                and upstream.config.materialized == 'ephemeral' -%}
            {%- if ephemeral -%}
                {%- for upstream_id in upstream.depends_on.nodes -%}
                    {%- do next_ids.append([upstream_id, upstream.name]) -%}
                {%- endfor -%}
            {%- elif upstream and via and upstream.relation_name -%}
                {%- set is_source = upstream.resource_type == 'source' -%}
                {%- set quoting = upstream.get('quoting') or {} -%}
                {%- do references.append({
                    'relation': api.Relation.create(schema=upstream.schema,
                        identifier=upstream.identifier if is_source else upstream.alias,
                        quote_policy={'schema': quoting.get('schema') or false,
                            'identifier': quoting.get('identifier') or false}),
                    'call': ("source('" ~ upstream.source_name ~ "', '" ~ upstream.name ~ "')"
                        if is_source else "ref('" ~ upstream.name ~ "')")
                        ~ " (read through the ephemeral model " ~ via ~ ")",
                    'rendered': upstream.relation_name,
                }) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- set level.ids = next_ids -%}
    {%- endfor -%}
    {{- return(references) -}}
{%- endmacro %}
