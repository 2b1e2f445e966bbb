{% macro _scd2_valueless_columns_advice(changed, table_relation, table_columns) -%}
    {#-
        For type changes the history cannot follow (`changed`: [name, table type, new type]
        triples, from _scd2_assert_type_changes and _scd2_events_schema_change, on their way to
        failing), the advice for those columns that hold no value in any version of the table
        `table_relation` (one count over it; `table_columns`: its column names in order), or ''
        for none. Such a column took its type from a first extract without values (dbt types a
        seed column of empty cells bigint, Spark a JSON field null on every line string), and
        the usual advice, to cast the new values back to that type, would lose them. Iceberg
        changes no type in place but by widening; a column dropped and added again holds NULL in
        every version, which is what it held: nothing is lost, and the next run takes the new
        values. It is moved back to its place, since an scd2_events table must end with its
        metadata columns.
    -#}
    {%- if not changed -%}
        {{ return('') }}
    {%- endif -%}
    {%- set counted = [] -%}
    {%- for name, table_type, new_type in changed -%}
        {%- do counted.append('count(' ~ scd2_audit._scd2_quote(name) ~ ')') -%}
    {%- endfor -%}
    {%- set held = run_query('select ' ~ counted | join(', ') ~ ' from '
        ~ table_relation).rows[0] -%}
    {%- set valueless = [] -%}
    {%- for name, table_type, new_type in changed -%}
        {%- if held[loop.index0] == 0 -%}
            {%- do valueless.append([name, new_type]) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if not valueless -%}
        {{ return('') }}
    {%- endif -%}
    {%- set ordered = table_columns | map('lower') | list -%}
    {%- set names = [] -%}
    {%- set drops = [] -%}
    {%- set adds = [] -%}
    {%- set moves = [] -%}
    {%- for name, new_type in valueless -%}
        {%- set column = scd2_audit._scd2_quote(name) -%}
        {%- set position = ordered.index(name | lower) -%}
        {%- do names.append(name) -%}
        {%- do drops.append('alter table ' ~ table_relation ~ ' drop column ' ~ column) -%}
        {%- do adds.append(column ~ ' ' ~ new_type) -%}
        {%- do moves.append('alter table ' ~ table_relation ~ ' alter column ' ~ column ~ ' '
            ~ ('after ' ~ scd2_audit._scd2_quote(table_columns[position - 1])
                if position > 0 else 'first')) -%}
    {%- endfor -%}
    {%- set statements = drops + ['alter table ' ~ table_relation ~ ' add columns ('
        ~ adds | join(', ') ~ ')'] + moves -%}
    {{ return(" But " ~ names | join(', ') ~ " hold(s) no value in any version of "
        ~ table_relation ~ ": the type came from a first extract without values (dbt types a "
        ~ "seed column of empty cells bigint, which a seed's column_types pins; Spark a JSON "
        ~ "field null on every line string), and a cast back would lose the new values. "
        ~ "Give the column the new type by hand instead, which loses nothing (it held only "
        ~ "NULLs): " ~ statements | join('; ') ~ ". Then run again.") }}
{%- endmacro %}
