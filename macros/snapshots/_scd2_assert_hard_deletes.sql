{% macro _scd2_assert_hard_deletes(relation, table_columns, hard_deletes, where) -%}
    {#-
        Before a later run reads the table: its versions must be marked for the snapshot's
        hard_deletes, which can change after the table is built and is not stored in it.
        - new_record on a table without dbt_is_deleted (built with invalidate or ignore):
          dbt's staging query reads the open versions' dbt_is_deleted, and the run failed on
          an unresolved column with Spark's plan; stock dbt too, although its materialization
          adds the missing column after the staging query.
        - invalidate or ignore on a table holding open deletion records (built with
          new_record): such a record reads as a live row with the deleted row's values, so a
          key that came back with those values opened no version and stayed deleted.
        Fails naming the setting and the statement that makes the table what the new setting
        would have left; `where` starts the message ("Snapshot 'x': ").
    -#}
    {%- if not execute -%}{{ return(none) }}{%- endif -%}
    {%- set ctx = scd2_audit._scd2_snapshot_context() -%}
    {%- set is_deleted = ctx.columns.dbt_is_deleted | trim -%}
    {%- set has_column = is_deleted | lower in table_columns | map('lower') | list -%}
    {%- if hard_deletes == 'new_record' and not has_column -%}
        {{ exceptions.raise_compiler_error(
            where ~ "hard_deletes is 'new_record', but the table " ~ relation ~ " has no "
            ~ is_deleted ~ " column: it was built with hard_deletes 'invalidate' or 'ignore'. "
            ~ "Nothing was written. Set hard_deletes back, or add the column first: alter "
            ~ "table " ~ relation ~ " add column " ~ is_deleted ~ " string; update "
            ~ relation ~ " set " ~ is_deleted ~ " = 'False'. Keys deleted before then have "
            ~ "no deletion record.") }}
    {%- endif -%}
    {%- if hard_deletes != 'new_record' and has_column -%}
        {#- A table stock dbt built, upgraded by this run, has no process id columns yet. -#}
        {%- set open = scd2_audit._scd2_open_version_sql(with_process_id=(
            ctx.audit.update_process_id | lower in table_columns | map('lower') | list)) -%}
        {%- set query -%}
            select 1 from {{ relation }} where {{ open }} and {{ is_deleted }} = 'True' limit 1
        {%- endset -%}
        {%- if run_query(query).rows | length > 0 -%}
            {{ exceptions.raise_compiler_error(
                where ~ "hard_deletes is '" ~ hard_deletes ~ "', but the table " ~ relation
                ~ " holds open deletion records (" ~ is_deleted ~ " = 'True', from "
                ~ "hard_deletes='new_record'): each would read as a live row with the deleted "
                ~ "row's values, and a key that comes back with them would stay deleted. "
                ~ "Nothing was written. Set hard_deletes back to 'new_record', or remove them "
                ~ "first, which leaves each deleted key with its last version closed at its "
                ~ "delete, as 'invalidate' does: delete from " ~ relation ~ " where " ~ open
                ~ " and " ~ is_deleted ~ " = 'True'.") }}
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}
