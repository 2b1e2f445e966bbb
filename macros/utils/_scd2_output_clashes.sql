{% macro _scd2_output_clashes(outputs) -%}
    {#-
        The output columns of a flattening select (scd2_debezium_events, scd2_wal2json_events)
        that would each come from several inputs: `outputs` is {output name: [the inputs it
        would come from]}; returns "<output> (from <input>, <input>)" for each such output, for
        the caller's message.
    -#}
    {%- set clashes = [] -%}
    {%- for output, sources in outputs.items() if sources | length > 1 -%}
        {%- do clashes.append(output ~ " (from " ~ sources | join(', ') ~ ")") -%}
    {%- endfor -%}
    {{- return(clashes) -}}
{%- endmacro %}
