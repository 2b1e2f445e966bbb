{% macro _scd2_type_change_problem(
    change, table_name, input_name, inexact=none, beyond=none, kept=none
) -%}
    {#-
        One type change the history cannot follow (`change`: [name, table type, new type]),
        described for the failure messages of the snapshots (_scd2_assert_type_changes) and
        scd2_events (_scd2_events_schema_change): `table_name` and `input_name` say where
        each type is ("the snapshot table", "the snapshot's query"); `inexact` counts the
        input's integers a double or float column would round, `beyond` the table's integers
        the new type would round, and `kept` says why the column keeps its type.
    -#}
    {%- set name, table_type, new_type = change -%}
    {{ return(name ~ " is " ~ table_type ~ " in " ~ table_name ~ " but " ~ new_type ~ " in "
        ~ input_name
        ~ ((", where " ~ inexact ~ " value(s) lie beyond ±"
            ~ scd2_audit._scd2_exact_integer_bound(table_type) ~ ", past which a "
            ~ table_type ~ " stops holding every integer (a cast in the select rounds them)")
            if inexact else "")
        ~ ((", where " ~ beyond ~ " value(s) of the table lie beyond ±"
            ~ scd2_audit._scd2_exact_integer_bound(new_type) ~ ", past which a "
            ~ new_type ~ " stops holding every integer (the table's values cast to it "
            ~ "would be rounded)") if beyond else "")
        ~ ((", " ~ kept ~ ", so it keeps its type") if kept else "")) }}
{%- endmacro %}
