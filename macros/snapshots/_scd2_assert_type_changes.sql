{% macro _scd2_assert_type_changes(
    table_types, new_columns, staging_relation=none, query_sql=none, table_relation=none
) -%}
    {#-
        The snapshot table's columns (`table_types`: {lower-case name: Spark type}) against
        the columns a run brings (`new_columns`: [name, type] pairs), by the one rule
        _scd2_column_changes applies; returns its verdict. A type change the history cannot
        follow fails, naming each column and both types, before anything is written (the
        staging view, when given, is dropped first).
        Called twice: on the snapshot's query before the staging view is built (a string
        column whose source turned boolean made the view itself fail, with Spark's
        DATA_DIFF_TYPES, and one turned bigint passed, see _scd2_schema_change), then on the
        staging view's columns (dbt's own, whose types follow updated_at).
        With `query_sql` (the query the columns come from), a column of another type that
        holds only NULLs there is no change: an empty extract's seed types every column
        bigint (dbt's type for a column without values), and its NULLs go into any column.
        That costs one count over the query, only when a type differs. Such columns are
        returned as `null_only` ({lower-case name: table type}; empty without `query_sql`):
        the run must read them as the table's type, since a bigint NULL is compared with a
        date, a boolean or a timestamp (the check strategy's test, a deletion record's
        values) only by Spark's error.
        With `table_relation` (the snapshot table), a type change is no failure when the
        table holds no version at all (a first run on an empty extract, whose seed typed every
        column bigint: every later run failed, and the message's advice, to cast the values
        back to bigint, would have lost them): the verdict has `rebuild` true, and the run
        builds the table again from the query, as a first run does, in one commit. One more
        query, only when a type change is found.
    -#}
    {%- set classified = scd2_audit._scd2_column_changes(table_types, new_columns) -%}
    {%- set changed = classified.incompatible -%}
    {%- set null_only = {} -%}
    {%- if changed and query_sql is not none -%}
        {%- set counts -%}
            select
                {%- for name, table_type, source_type in changed %}
                count({{ scd2_audit._scd2_quote(name) }}){{ ',' if not loop.last }}
                {%- endfor %}
            from (
                {{ query_sql }}
            ) as scd2_query
        {%- endset -%}
        {%- set values = run_query(counts).rows[0] -%}
        {%- set with_values = [] -%}
        {%- for change in changed -%}
            {%- if values[loop.index0] > 0 -%}
                {%- do with_values.append(change) -%}
            {%- else -%}
                {%- do null_only.update({change[0] | lower: change[1]}) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- set changed = with_values -%}
    {%- endif -%}
    {%- set incompatible = [] -%}
    {%- for name, table_type, source_type in changed -%}
        {%- do incompatible.append(name ~ " is " ~ table_type
            ~ " in the snapshot table but " ~ source_type ~ " in the snapshot's query") -%}
    {%- endfor -%}
    {%- if incompatible and table_relation is not none -%}
        {%- set found = run_query('select 1 from ' ~ table_relation ~ ' limit 1') -%}
        {%- if found.rows | length == 0 -%}
            {%- do classified.update({'null_only': {}, 'rebuild': true}) -%}
            {{ return(classified) }}
        {%- endif -%}
    {%- endif -%}
    {%- if incompatible -%}
        {%- if staging_relation is not none -%}
            {%- do adapter.drop_relation(staging_relation) -%}
        {%- endif -%}
        {{ exceptions.raise_compiler_error(
            "Snapshot '" ~ model.name ~ "': a source column changed type in a way the history "
            ~ "cannot follow: " ~ incompatible | join('; ') ~ ". In place, a snapshot column "
            ~ "can only widen (int to bigint, float to double, a decimal to a larger precision "
            ~ "at the same scale). Nothing was written; the snapshot table is unchanged. "
            ~ scd2_audit._scd2_type_change_advice(changed, "the snapshot's select")) }}
    {%- endif -%}
    {%- do classified.update({'null_only': null_only, 'rebuild': false}) -%}
    {{ return(classified) }}
{%- endmacro %}
