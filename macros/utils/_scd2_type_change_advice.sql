{% macro _scd2_type_change_advice(changed, select_name) -%}
    {#-
        What to do about type changes the history cannot follow (`changed`: [name, table
        type, new type] triples), for the failure messages of the snapshots
        (_scd2_assert_type_changes) and scd2_events (_scd2_events_schema_change);
        `select_name` names the select to change ("the snapshot's select").
        A struct that gained, lost or renamed fields cannot be cast back: Spark casts a struct
        only to one of as many fields, so the advice to cast left a user with a struct that
        gained a field (a new attribute of a JSON source) nowhere to go. For a struct column
        whose new type is a struct too, the advice shows the table's fields selected by name,
        in the table's types (a field the source lost as a NULL of its type), which the
        history takes as it is.
    -#}
    {%- set examples = [] -%}
    {%- for name, table_type, new_type in changed -%}
        {%- set table_fields = scd2_audit._scd2_struct_fields(table_type) -%}
        {%- set new_fields = scd2_audit._scd2_struct_fields(new_type) -%}
        {%- if table_fields and new_fields -%}
            {%- set new_types = {} -%}
            {%- for field, field_type in new_fields -%}
                {%- do new_types.update({field: field_type}) -%}
            {%- endfor -%}
            {%- set column = name if scd2_audit._scd2_is_plain_name(name)
                else scd2_audit._scd2_quote(name) -%}
            {%- set fields = [] -%}
            {%- for field, field_type in table_fields -%}
                {%- set reference = column ~ '.' ~ (field if scd2_audit._scd2_is_plain_name(field)
                    else scd2_audit._scd2_quote(field)) -%}
                {%- if field not in new_types -%}
                    {%- set value = 'cast(null as ' ~ field_type ~ ')' -%}
                {%- elif new_types[field] != field_type -%}
                    {%- set value = 'cast(' ~ reference ~ ' as ' ~ field_type ~ ')' -%}
                {%- else -%}
                    {%- set value = reference -%}
                {%- endif -%}
                {%- do fields.append(scd2_audit._scd2_sql_string(field) ~ ', ' ~ value) -%}
            {%- endfor -%}
            {%- do examples.append('named_struct(' ~ fields | join(', ') ~ ') as ' ~ column) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set advice = "Cast the column back to the table's type in " ~ select_name ~ ", or "
        ~ "select the new values under a new column name." -%}
    {#- An integer column whose values now have fractions (a seed column of whole numbers on
        its first day, which dbt types bigint): cast back, they would lose them. -#}
    {%- set fractional = [] -%}
    {%- for name, table_type, new_type in changed
            if table_type | lower in scd2_audit._scd2_integer_types()
            and (new_type | lower in ['float', 'double']
                or (new_type | lower).startswith('decimal(')) -%}
        {%- do fractional.append(name) -%}
    {%- endfor -%}
    {%- if fractional -%}
        {%- set advice = advice ~ " Casting " ~ fractional | join(', ') ~ " back would drop "
            ~ "the fractions of its new values; to keep them, select them under a new column "
            ~ "name. A column that may hold fractions is best typed so from its first run (a "
            ~ "seed's column_types: dbt types a column of whole numbers bigint)." -%}
    {%- endif -%}
    {%- if examples -%}
        {%- set advice = advice ~ " A struct cannot be cast to one with other fields: select "
            ~ "the table's fields by name instead, as " ~ examples | join(', ') ~ " (a field "
            ~ "the source lost as NULL); new fields can go under a new column name." -%}
    {%- endif -%}
    {{ return(advice) }}
{%- endmacro %}
