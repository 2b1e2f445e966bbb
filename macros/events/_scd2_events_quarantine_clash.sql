{% macro _scd2_events_quarantine_clash(quarantine) -%}
    {#-
        What the relation `quarantine`, the running scd2_events model's quarantine table, is
        besides in dbt's graph, as words for a message, or none: this model's own table,
        another model's, seed's or snapshot's table, a source's, or another scd2_events
        model's quarantine. The quarantine's first write adds its columns to the table it
        names and inserts the set-aside events there: into the model's own table (columns and
        a row that looked like an open version, then a failed write) or a source (which the
        next run then refused, for its scd2_ columns). Two models sharing one quarantine both
        created it in the same dbt run, and one failed with Iceberg's AlreadyExistsException.
        Tables outside dbt's graph are checked where the quarantine is written
        (_scd2_events_quarantine).
    -#}
    {%- set wanted = (quarantine.schema | lower, quarantine.identifier | lower) -%}
    {%- set clashes = [] -%}
    {%- for node in graph.nodes.values()
            if node.resource_type in ['model', 'seed', 'snapshot']
            and node.config.materialized != 'ephemeral' -%}
        {%- set identifier = node.alias or node.name -%}
        {%- if (node.schema | lower, identifier | lower) == wanted -%}
            {%- do clashes.append("this model's own table" if node.unique_id == model.unique_id
                else "the table of " ~ node.resource_type ~ " " ~ node.name) -%}
        {%- elif node.config.materialized == 'scd2_events' and node.unique_id != model.unique_id
                and (node.schema | lower, (node.config.get('event_quarantine')
                    or identifier ~ '__quarantine') | lower) == wanted -%}
            {%- do clashes.append("also the quarantine of scd2_events model " ~ node.name) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- for source in graph.sources.values()
            if (source.schema | lower, source.identifier | lower) == wanted -%}
        {%- do clashes.append("the table of source " ~ source.source_name ~ "." ~ source.name) -%}
    {%- endfor -%}
    {{ return(clashes | first if clashes else none) }}
{%- endmacro %}
