{% macro _scd2_debezium_unsent(p, values, after_fields, ref, unavailable_value) -%}
    {#-
        The `when ... then ...` of scd2_debezium_events' operation for an event holding
        Debezium's placeholder for a value it did not have (`unavailable_value`, Debezium's
        unavailable.value.placeholder): PostgreSQL leaves an update's unchanged TOASTed values
        (large text, bytes, arrays) out of its log unless the table's REPLICA IDENTITY is FULL,
        and Oracle its unchanged LOBs. Taken as the value, the history would hold the
        placeholder's text as the row's; the event's operation says so instead, after its own
        code (so that a quarantined event keeps it), naming every such field, and the model
        fails it as malformed (or sets it aside, on_malformed_event='quarantine'). Looked for
        in `after`'s text fields (`after_fields`: {field: Spark type}; a bytes field arrives
        as the base64 of the placeholder's bytes) and arrays of text; an empty string when no
        value column is of those types.
    -#}
    {%- set placeholder = scd2_audit._scd2_sql_string(unavailable_value) -%}
    {%- set unsent = [] -%}
    {%- for value in values -%}
        {%- set wire_type = (after_fields.get(value) or '') | lower -%}
        {%- set raw = p ~ 'after.' ~ ref[value] -%}
        {%- if wire_type == 'string' -%}
            {%- set test = raw ~ ' in (' ~ placeholder ~ ', base64(encode(' ~ placeholder
                ~ ", 'UTF-8')))" -%}
        {%- elif wire_type == 'array<string>' -%}
            {%- set test = 'array_contains(' ~ raw ~ ', ' ~ placeholder ~ ')' -%}
        {%- else -%}
            {%- set test = none -%}
        {%- endif -%}
        {%- if test -%}
            {%- do unsent.append('case when ' ~ test ~ ' then '
                ~ scd2_audit._scd2_sql_string(value) ~ ' end') -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if not unsent -%}
        {{ return('') }}
    {%- endif -%}
    {%- set names = "concat_ws(', ', " ~ unsent | join(', ') ~ ")" -%}
    {{ return('when ' ~ names ~ " != '' then concat(" ~ p ~ "op, "
        ~ scd2_audit._scd2_sql_string(": a change without the value of ") ~ ", " ~ names ~ ", "
        ~ scd2_audit._scd2_sql_string(" (Debezium's placeholder " ~ unavailable_value ~ "): "
            ~ "the database did not log the unchanged value (PostgreSQL's TOASTed values "
            ~ "unless the table's REPLICA IDENTITY is FULL, Oracle's LOBs); log it at the "
            ~ "source, or leave the column out with value_columns") ~ ")") }}
{%- endmacro %}
