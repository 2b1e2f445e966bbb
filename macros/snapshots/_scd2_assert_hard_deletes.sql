{% macro _scd2_assert_hard_deletes(relation, table_columns, hard_deletes, where) -%}
    {#-
        Before a later run reads the table: its versions must be marked for the snapshot's
        hard_deletes, which can change after the table is built and is not stored in it:
        new_record on a table without dbt_is_deleted (built with invalidate or ignore):
        dbt's staging query reads the open versions' dbt_is_deleted, and the run failed on an
        unresolved column with Spark's plan; stock dbt too, although its materialization adds
        the missing column after the staging query. Fails naming the setting and the
        statements that add the column; `where` starts the message ("Snapshot 'x': ").
        The other way (new_record to invalidate or ignore) needs no check: the staging query
        reads open deletion records as such whenever the table has the column.
    -#}
    {%- if not execute -%}{{ return(none) }}{%- endif -%}
    {%- set ctx = scd2_audit._scd2_snapshot_context() -%}
    {%- set is_deleted = ctx.columns.dbt_is_deleted | trim -%}
    {%- set has_column = is_deleted | lower in table_columns | map('lower') | list -%}
    {%- if hard_deletes == 'new_record' and not has_column -%}
        {{ exceptions.raise_compiler_error(
            where ~ "hard_deletes is 'new_record', but the table " ~ relation ~ " has no "
            ~ is_deleted ~ " column: it was built with hard_deletes 'invalidate' or 'ignore', "
            ~ "or with another name for dbt_is_deleted in snapshot_meta_column_names. Nothing "
            ~ "was written. Set hard_deletes (or the name) back. Where the table has the "
            ~ "column under another name, rename it: alter table " ~ relation ~ " rename "
            ~ "column <that name> to " ~ is_deleted ~ ". Where it has none, add it: alter "
            ~ "table " ~ relation ~ " add column " ~ is_deleted ~ " string; update "
            ~ relation ~ " set " ~ is_deleted ~ " = 'False'. Keys deleted before then have "
            ~ "no deletion record.") }}
    {%- endif -%}
{%- endmacro %}
