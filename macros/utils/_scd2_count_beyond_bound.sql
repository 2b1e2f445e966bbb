{% macro _scd2_count_beyond_bound(relation, changes) -%}
    {#-
        For integer columns about to become a double or float (`changes`: [name, integer
        type, new type] triples), how many values of `relation` lie beyond the bound up to
        which the new type holds every integer (_scd2_exact_integer_bound), where a cast
        would round them: {name: count}, for the columns with any. One query over the table,
        for the snapshots (_scd2_assert_type_changes), scd2_events
        (_scd2_events_schema_change) and its quarantine (_scd2_events_quarantine).
    -#}
    {#- An integer type whose largest value lies within the bound needs no count. -#}
    {%- set counted = [] -%}
    {%- for change in changes
            if scd2_audit._scd2_rounds_integers(change[1], change[2]) -%}
        {%- do counted.append(change) -%}
    {%- endfor -%}
    {%- set changes = counted -%}
    {%- if not changes -%}{{ return({}) }}{%- endif -%}
    {%- set counts -%}
        select
            {%- for name, table_type, new_type in changes %}
            {%- set bound = scd2_audit._scd2_exact_integer_bound(new_type) %}
            count_if({{ scd2_audit._scd2_quote(name) }} not between -{{ bound }} and {{ bound }})
            {{- ',' if not loop.last }}
            {%- endfor %}
        from {{ relation }}
    {%- endset -%}
    {%- set values = run_query(counts).rows[0] -%}
    {%- set beyond = {} -%}
    {%- for change in changes -%}
        {%- if values[loop.index0] != 0 -%}
            {%- do beyond.update({change[0]: values[loop.index0]}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(beyond) }}
{%- endmacro %}
