{% macro _scd2_assert_updated_at_column(relation, table_columns, where) -%}
    {#-
        Before a later run reads the table: it must have the dbt_updated_at column under the
        name snapshot_meta_column_names gives now. dbt's valid_snapshot_target checks only
        dbt_scd_id, dbt_valid_from and dbt_valid_to, so a name changed after the table was
        built passed: the check strategy took the old column for one the source lost and added
        the new one, NULL in every version so far and the old one NULL in every later one;
        the timestamp strategy failed on Spark's UNRESOLVED_COLUMN. Fails naming the setting
        and the statement that renames the column; `where` starts the message.
    -#}
    {%- if not execute -%}{{ return(none) }}{%- endif -%}
    {%- set updated_at = scd2_audit._scd2_snapshot_context().columns.dbt_updated_at | trim -%}
    {%- if updated_at | lower not in table_columns | map('lower') | list -%}
        {{ exceptions.raise_compiler_error(
            where ~ "the table " ~ relation ~ " has no column " ~ updated_at ~ ", the name "
            ~ "snapshot_meta_column_names gives dbt_updated_at: the table was built under "
            ~ "another name. Nothing was written. Set the name back, or rename the table's "
            ~ "column to it: alter table " ~ relation ~ " rename column <the name it was "
            ~ "built with> to " ~ updated_at ~ ".") }}
    {%- endif -%}
{%- endmacro %}
