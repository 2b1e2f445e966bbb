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
        In the same count, integers into a `double` or `float` column (a seed column typed
        double on one day and bigint on the next, when its values are all whole numbers, as
        dbt infers them): where every value of the query lies within the range where the
        type holds every integer (2^53 for a double, 2^24 for a float), the column is no
        change either, and is returned in `exact` ({lower-case name: table type}), which the
        run casts to the table's type, as stock dbt-spark's MERGE does; a value outside it
        fails the run, counted (the cast might round it).
        With `table_relation` (the snapshot table), a type change is no failure when the
        table holds no version at all (a first run on an empty extract, whose seed typed every
        column bigint: every later run failed, and the message's advice, to cast the values
        back to bigint, would have lost them): the verdict has `rebuild` true, and the run
        builds the table again from the query, as a first run does, in one commit. One more
        query, only when a type change is found; and one to fail with, for the columns that
        hold no value in the table (_scd2_valueless_columns_advice).
    -#}
    {%- set classified = scd2_audit._scd2_column_changes(table_types, new_columns) -%}
    {#- What keeps its type, by why: a key column (keys are matched by their text,
        _scd2_key_hash_sql, where 12 and 12.0 differ), a column a unique_key expression names
        (its text changed too: every key looked deleted and new), and one partition_by names
        (Iceberg buckets or truncates no double). A column named in an expression is found by
        its name as a word, which may also find it in a string: then it keeps its type too. -#}
    {%- set kept_by = [] -%}
    {%- for field in scd2_audit._scd2_unique_key_fields(config.get('unique_key')) -%}
        {%- do kept_by.append([field.column, "a key column"] if field.column
            else [field.key, "named in the unique_key " ~ field.key]) -%}
    {%- endfor -%}
    {%- set partition_by = config.get('partition_by') -%}
    {%- for entry in ([partition_by] if partition_by is string else partition_by or []) -%}
        {%- do kept_by.append([entry, "named in the partition_by " ~ entry]) -%}
    {%- endfor -%}
    {%- set changed = classified.incompatible | list -%}
    {%- set retypes = [] -%}
    {%- set kept = {} -%}
    {%- for change in classified.retyped -%}
        {%- set lower_name = change[0] | lower -%}
        {%- set word = '(?<![A-Za-z0-9_])' ~ modules.re.escape(change[0]) ~ '(?![A-Za-z0-9_])' -%}
        {%- for text, reason in kept_by if lower_name not in kept
                and modules.re.search(word, text, modules.re.IGNORECASE) -%}
            {%- do kept.update({lower_name: reason}) -%}
        {%- endfor -%}
        {%- do (changed if lower_name in kept else retypes).append(change) -%}
    {%- endfor -%}
    {%- set null_only = {} -%}
    {%- set exact = {} -%}
    {%- set inexact = {} -%}
    {%- set beyond = {} -%}
    {%- if (changed or retypes) and query_sql is not none -%}
        {%- set counted = changed + retypes -%}
        {%- set values = scd2_audit._scd2_count_input_values(query_sql, counted) -%}
        {%- set with_values = [] -%}
        {%- set retypes_with_values = [] -%}
        {%- for change in counted -%}
            {%- set changed_values = values[loop.index0][1] -%}
            {%- if values[loop.index0][0] == 0 -%}
                {%- do null_only.update({change[0] | lower: change[1]}) -%}
            {%- elif change in retypes -%}
                {%- do retypes_with_values.append(change) -%}
            {%- elif changed_values == 0 -%}
                {%- do exact.update({change[0] | lower: change[1]}) -%}
            {%- else -%}
                {%- if changed_values is not none -%}
                    {%- do inexact.update({change[0] | lower: changed_values}) -%}
                {%- endif -%}
                {%- do with_values.append(change) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- set changed = with_values -%}
        {%- set retypes = retypes_with_values -%}
    {%- endif -%}
    {#- An integer column whose source now brings floats or doubles: the run's one-commit
        rewrite casts the values the table holds to the new type (_scd2_schema_change), where
        each lies within the bound up to which that type holds every integer: one count over
        the table, for an integer type with values beyond it (an int into a double needs
        none). -#}
    {%- if retypes and table_relation is not none -%}
        {%- for name, count in scd2_audit._scd2_count_beyond_bound(table_relation, retypes)
                .items() -%}
            {%- do beyond.update({name | lower: count}) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- for change in retypes -%}
        {%- if change[0] | lower in beyond -%}
            {%- do changed.append(change) -%}
        {%- else -%}
            {%- do classified.widened.update({change[0] | lower: change[2]}) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set incompatible = [] -%}
    {%- for change in changed -%}
        {%- set lower_name = change[0] | lower -%}
        {%- do incompatible.append(scd2_audit._scd2_type_change_problem(change,
            "the snapshot table", "the snapshot's query", inexact.get(lower_name),
            beyond.get(lower_name), kept.get(lower_name))) -%}
    {%- endfor -%}
    {%- if incompatible and table_relation is not none -%}
        {%- set found = run_query('select 1 from ' ~ table_relation ~ ' limit 1') -%}
        {%- if found.rows | length == 0 -%}
            {%- do classified.update({'null_only': {}, 'exact': {}, 'rebuild': true}) -%}
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
            ~ "at the same scale), an integer source goes into a double or float column "
            ~ "only where its values lie within ±2^53 (±2^24 for a float), and an integer "
            ~ "column takes a double or float source, rewritten as one, only where the values "
            ~ "it holds lie within those bounds and no key or partition_by names it. Nothing was "
            ~ "written; the snapshot table is unchanged. "
            ~ scd2_audit._scd2_type_change_advice(changed, "the snapshot's select")
            ~ (scd2_audit._scd2_valueless_columns_advice(changed, table_relation,
                table_types.keys() | list) if table_relation is not none else '')) }}
    {%- endif -%}
    {%- do classified.update({'null_only': null_only, 'exact': exact, 'rebuild': false}) -%}
    {{ return(classified) }}
{%- endmacro %}
