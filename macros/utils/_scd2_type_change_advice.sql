{% macro _scd2_type_change_advice(changed, select_name) -%}
    {#-
        What to do about type changes the history cannot follow (`changed`: [name, table
        type, new type] triples), for the failure messages of the snapshots
        (_scd2_assert_type_changes) and scd2_events (_scd2_events_schema_change);
        `select_name` names the select to change ("the snapshot's select").
        A struct that gained, lost or renamed fields cannot be cast back: Spark casts a struct
        only to one of as many fields, so the advice to cast left a user with a struct that
        gained a field (a new attribute of a JSON source) nowhere to go. For such a column
        whose new struct still has every field of the table's, the advice shows the table's
        fields selected by name, which the history takes as it is.
    -#}
    {%- set examples = [] -%}
    {%- for name, table_type, new_type in changed -%}
        {%- set table_fields = scd2_audit._scd2_struct_fields(table_type) -%}
        {%- set new_fields = scd2_audit._scd2_struct_fields(new_type) -%}
        {%- if table_fields and new_fields -%}
            {%- set new_names = new_fields | map(attribute=0) | list -%}
            {%- set column = name if scd2_audit._scd2_is_plain_name(name)
                else scd2_audit._scd2_quote(name) -%}
            {%- set fields = [] -%}
            {%- for field, field_type in table_fields if field in new_names -%}
                {%- set reference = column ~ '.' ~ (field if scd2_audit._scd2_is_plain_name(field)
                    else scd2_audit._scd2_quote(field)) -%}
                {%- do fields.append("'" ~ field | replace("'", "\\'") ~ "', " ~ reference) -%}
            {%- endfor -%}
            {%- if fields | length == table_fields | length -%}
                {%- do examples.append('named_struct(' ~ fields | join(', ') ~ ') as ' ~ column) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set advice = "Cast the column back to the table's type in " ~ select_name ~ ", or "
        ~ "select the new values under a new column name." -%}
    {%- if examples -%}
        {%- set advice = advice ~ " A struct cannot be cast to one with other fields: select "
            ~ "the table's fields by name instead (each cast to its type in the table where "
            ~ "that changed), e.g. " ~ examples | join(', ') ~ "; the new fields can go "
            ~ "under a new column name." -%}
    {%- endif -%}
    {{ return(advice) }}
{%- endmacro %}
