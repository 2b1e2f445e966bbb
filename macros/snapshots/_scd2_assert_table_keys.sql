{% macro _scd2_assert_table_keys(relation, table_columns) -%}
    {#-
        Before a later run reads the table: each unique_key entry that is a column name (plain
        or quoted; an expression is left to Spark) must be a column of the existing table
        `relation` (`table_columns`, its column names). A key renamed in the config and the
        source (`id` to `cust_id`) passed the query's check (_scd2_assert_source_columns) and
        failed in the delete guard's or the staging's SQL with Spark's UNRESOLVED_COLUMN and
        its query plan, naming neither the snapshot nor the setting. The versions there are
        keyed by the old column, so the run cannot go on: the message says how to carry the
        key over.
    -#}
    {%- if not execute -%}{{ return(none) }}{%- endif -%}
    {%- set present = table_columns | map('lower') | list -%}
    {%- set missing = [] -%}
    {%- for field in scd2_audit._scd2_unique_key_fields(config.get('unique_key'))
            if field.column is not none and field.column | lower not in present -%}
        {%- do missing.append(field.column) -%}
    {%- endfor -%}
    {%- if missing -%}
        {{ exceptions.raise_compiler_error(
            "Snapshot '" ~ model.name ~ "': unique_key names " ~ missing | join(', ')
            ~ ", which the table " ~ relation ~ " does not have (its columns: "
            ~ table_columns | join(', ') ~ "). The versions there are keyed by other "
            ~ "columns, and a snapshot's key cannot change in place. Nothing was written. If "
            ~ "it is the same key under a new name, rename the table's column too (alter table "
            ~ relation ~ " rename column <old name> to " ~ scd2_audit._scd2_quote(missing[0])
            ~ "), or select it under "
            ~ "its old name and set unique_key back; if it is another key, snapshot into a new "
            ~ "table.") }}
    {%- endif -%}
{%- endmacro %}
