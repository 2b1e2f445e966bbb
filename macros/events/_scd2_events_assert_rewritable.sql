{% macro _scd2_events_assert_rewritable(ctx, relation, schema_change) -%}
    {#-
        A run whose events have new or wider columns (`schema_change`, from
        _scd2_events_schema_change) rewrites the table in one commit; a table whose
        partitioning was changed by hand (not by audit_update_process_id alone) is written by
        a MERGE instead, which cannot change its schema in the same commit. Fails then, before
        anything is written, naming the columns and what to do (an integer column turned a
        double cannot be altered in place).
    -#}
    {%- if schema_change.changed
            and not scd2_audit._scd2_snapshot_layout(relation, true).partitioned -%}
        {%- set retyped = schema_change.retyped.keys() | list -%}
        {%- set altered = (schema_change.added.keys() | list)
            + (schema_change.widened.keys() | reject('in', retyped) | list) -%}
        {#- The statements themselves: a column added by hand goes at the table's end, after
            the metadata columns, where a later run finds a table it did not build (its data
            columns come first); `after` puts it where this run would have. A widened struct
            (the positions) widens field by field, left to the reader. -#}
        {%- set statements = [] -%}
        {%- for name, type in schema_change.added.items() -%}
            {%- set at = schema_change.columns.index(name) -%}
            {%- do statements.append("alter table " ~ relation ~ " add column " ~ name ~ " "
                ~ type ~ " after " ~ schema_change.columns[at - 1]) -%}
        {%- endfor -%}
        {%- for name, type in schema_change.widened.items() if name not in retyped -%}
            {%- do statements.append("alter table " ~ relation ~ " alter column " ~ name
                ~ " type " ~ (type if not type.startswith('struct<') else type ~ " (field by "
                    ~ "field: alter column " ~ name ~ ".<field> type ...)")) -%}
        {%- endfor -%}
        {%- set advice = [] -%}
        {%- if altered -%}
            {%- do advice.append("add or widen " ~ altered ~ " first, where this run would: "
                ~ statements | join('; ')) -%}
        {%- endif -%}
        {%- if retyped -%}
            {%- do advice.append("cast " ~ retyped ~ " back to the table's type in the model's "
                ~ "select, losing their fractions (Iceberg changes no integer column to a "
                ~ "float in place)") -%}
        {%- endif -%}
        {%- set advice = advice | join('; and ') -%}
        {{ exceptions.raise_compiler_error(
            "scd2_events model " ~ ctx.name ~ ": the events have new, wider or retyped "
            ~ "columns (" ~ (altered + retyped) ~ "), and " ~ relation ~ " is not partitioned by "
            ~ ctx.audit.update_process_id ~ " alone (its partitioning was changed by hand),"
            ~ " so this run cannot change its schema and write its versions in one commit."
            ~ " Nothing was written. " ~ advice[0] | upper ~ advice[1:]
            ~ ", or rebuild with --full-refresh from a relation holding every event.") }}
    {%- endif -%}
{%- endmacro %}
