{% macro _scd2_count_input_values(query_sql, changes) -%}
    {#-
        For type changes of a history's input (`changes`: [name, table type, input type]
        triples) and the query they come from (`query_sql`), one count over the query: per
        change, [how many values the column holds, how many of its integers lie beyond the
        bound up to which the table's double or float type holds every integer, where a cast
        would round them]. The second is 0 for an integer type whose largest value lies within
        that bound, and none where the table's type is no floating-point one or the input's
        no integer. For the snapshots (_scd2_assert_type_changes) and scd2_events
        (_scd2_events_schema_change).
    -#}
    {%- set integers = scd2_audit._scd2_integer_types() -%}
    {%- set counts -%}
        select
            {%- for name, table_type, input_type in changes %}
            {%- set column = scd2_audit._scd2_quote(name) %}
            {%- set bound = scd2_audit._scd2_exact_integer_bound(table_type) %}
            count({{ column }}),
            {%- if bound and input_type | lower in integers %}
            {%- if scd2_audit._scd2_rounds_integers(input_type, table_type) %}
            count_if({{ column }} not between -{{ bound }} and {{ bound }})
            {%- else %}
            cast(0 as bigint)
            {%- endif %}
            {%- else %}
            cast(null as bigint)
            {%- endif %}{{ ',' if not loop.last }}
            {%- endfor %}
        from (
            {{ query_sql }}
        ) as scd2_query
    {%- endset -%}
    {%- set values = run_query(counts).rows[0] -%}
    {%- set counted = [] -%}
    {%- for change in changes -%}
        {%- do counted.append([values[2 * loop.index0], values[2 * loop.index0 + 1]]) -%}
    {%- endfor -%}
    {{ return(counted) }}
{%- endmacro %}
