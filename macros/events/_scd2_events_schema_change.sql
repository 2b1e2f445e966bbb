{% macro _scd2_events_schema_change(ctx, relation, table_columns, event_types, events_sql) -%}
    {#-
        Before a later run reads anything: how the existing table (its `table_columns`, dbt
        Column objects, in table order) must change for this run's events (`event_types`:
        lower-case name -> Spark type), with the rules of the snapshots
        (_scd2_column_changes, docs/snapshot-metadata.md "When the source changes shape"):
        - added: value columns the events have and the table lacks (a new source column):
          added to the table, NULL in the versions already there;
        - removed: columns of the table the events no longer carry: kept with their history,
          NULL in the versions opened from now on, and not compared (an event is a change
          only through the columns it has);
        - widened: table columns whose type must widen to hold the events' values, as Iceberg
          allows in place (int to bigint, float to double, a decimal to a larger precision at
          the same scale); a narrower type is cast on insert;
        - changed: added or widened: the run then writes the table's new schema and its
          versions in one `create or replace table ... as` (_scd2_events_overwrite_sql), so a
          failed run leaves no column added.
        Fails, naming both lists, when the table does not end with the metadata columns this
        run writes (a table not built by scd2_events, or the model's settings changed), when a
        key column is missing from the table (the unique_key changed), and, naming the column
        and both types, on a type change the history cannot follow.
        A column whose type the table cannot take but which holds no value in this run's
        events (`events_sql`, counted only then) is read as the table's type instead.
        Returns {'added': {name: type}, 'removed': {name: type}, 'widened': {name: type},
        'recast': {name: the table's type, for the events' all-NULL columns of another type
        and their narrower ones}, 'read_as': {name: the expression reading it so},
        'changed': bool, 'columns': the column names the run writes, in the table's order
        after the run (the table's, then the added ones before the metadata columns)}.
    -#}
    {%- set metadata = scd2_audit._scd2_events_metadata_columns(ctx) -%}
    {%- set actual = table_columns | map(attribute='name') | map('lower') | list -%}
    {%- set types = {} -%}
    {%- for column in table_columns -%}
        {%- do types.update({column.name | lower: column.dtype}) -%}
    {%- endfor -%}
    {%- set data_count = actual | length - metadata | length -%}
    {%- set data = actual[:data_count] if data_count > 0 else [] -%}
    {%- set wanted = ctx.key_columns + ctx.value_columns -%}
    {%- set missing_keys = ctx.key_columns | reject('in', data) | list -%}
    {%- if data_count <= 0 or actual[data_count:] != metadata or missing_keys -%}
        {%- set expected = wanted + metadata -%}
        {{ exceptions.raise_compiler_error(
            "scd2_events model " ~ ctx.name ~ ": the table " ~ relation ~ " does not have the "
            ~ "columns this run writes (not in the table: "
            ~ expected | reject('in', actual) | list ~ "; only in the table: "
            ~ actual | reject('in', expected) | list ~ "; expected, in order: " ~ expected
            ~ "). The model's settings changed (its unique_key, hard_deletes or the column "
            ~ "names), or the table was not built by scd2_events. Nothing was written. Restore "
            ~ "the settings, or rebuild with --full-refresh from a relation holding every "
            ~ "event.") }}
    {%- endif -%}
    {%- set data_types = {} -%}
    {%- for name in data -%}
        {%- do data_types.update({name: types[name]}) -%}
    {%- endfor -%}
    {%- set new_columns = [] -%}
    {%- for name in wanted -%}
        {%- do new_columns.append([name, event_types.get(name) or '']) -%}
    {%- endfor -%}
    {%- set classified = scd2_audit._scd2_column_changes(data_types, new_columns) -%}
    {#- An integer column whose events now bring floats or doubles is refused, where the
        snapshots rewrite the table to follow it (_scd2_assert_type_changes): the events'
        quarantine, which holds the same columns, changes types in place only
        (_scd2_events_quarantine), and Iceberg changes no integer to a float. -#}
    {%- do classified.incompatible.extend(classified.retyped) -%}
    {%- set change = {
        'added': {}, 'removed': {}, 'widened': classified.widened, 'changed': false,
    } -%}
    {%- for name in classified.added -%}
        {%- do change.added.update({name: event_types.get(name) or ''}) -%}
    {%- endfor -%}
    {#- The struct columns the table derives from the events' columns: the positions hold
        event_order_by's columns (the first one is also dbt_valid_from's type), the previous
        key the key's. Their fields follow those columns' types as a value column does:
        widened with them (the run then rewrites the table, as for a widened value column), a
        narrower type cast on insert, any other change refused. Unchecked, a wider tie-breaker
        failed only at the write, with Spark's overflow error, and an event time changed from
        date to timestamp was cut to dates, so that a replayed batch was no longer recognised.
        A changed event_order_by (a tie-breaker added, dropped or renamed) would compare
        positions of two shapes: refused, naming both lists. -#}
    {%- set e = ctx.events -%}
    {%- set positions = [e.opened_position, e.closed_position]
        + ([e.last_position] if e.last_position is defined else []) -%}
    {%- set derived = [
        [e.opened_position, ctx.order_by, 'event_order_by', positions],
        [e.previous_key, ctx.key_columns, 'unique_key', [e.previous_key]],
    ] -%}
    {%- set derived_incompatible = [] -%}
    {%- set reshaped = [] -%}
    {%- for column, expected, setting, followers in derived if types.get(column | lower) -%}
        {%- set fields = scd2_audit._scd2_struct_fields(types[column | lower]) or [] -%}
        {%- set names = fields | map('first') | list -%}
        {%- if names != expected -%}
            {%- do reshaped.append(column ~ " holds " ~ setting ~ " " ~ names
                ~ " but the model's " ~ setting ~ " is " ~ expected) -%}
        {%- else -%}
            {%- set new_fields = [] -%}
            {%- set widens = namespace(any=false) -%}
            {%- for name, field_type in fields -%}
                {%- set event_type = event_types.get(name) or field_type -%}
                {%- set verdict = scd2_audit._scd2_type_change(field_type, event_type) -%}
                {%- set widens.any = widens.any or verdict == 'widen' -%}
                {%- do new_fields.append(name ~ ':'
                    ~ (event_type if verdict == 'widen' else field_type)) -%}
                {#- A key column's own check reports its change. -#}
                {%- if verdict in ['incompatible', 'retype'] and setting == 'event_order_by' -%}
                    {%- do derived_incompatible.append(name ~ " (" ~ setting ~ ", held in "
                        ~ column ~ (" and " ~ ctx.columns.dbt_valid_from if loop.first
                            else "") ~ ") is " ~ field_type ~ " in the table but "
                        ~ event_type ~ " in the events") -%}
                {%- endif -%}
            {%- endfor -%}
            {%- for follower in followers if widens.any -%}
                {%- do change.widened.update(
                    {follower | lower: 'struct<' ~ new_fields | join(',') ~ '>'}) -%}
            {%- endfor -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if reshaped -%}
        {{ exceptions.raise_compiler_error(
            "scd2_events model " ~ ctx.name ~ ": the table " ~ relation ~ " was built with "
            ~ "other ordering or key columns: " ~ reshaped | join('; ') ~ ". Positions "
            ~ "of two shapes cannot be compared. Nothing was written. Restore the setting, or "
            ~ "rebuild with --full-refresh from a relation holding every event.") }}
    {%- endif -%}
    {#- A column of another type that holds no value in this batch is no type change: Spark
        types a JSON field that is null on every line of a batch as a string. It is read as
        the table's type (recast). -#}
    {%- set recast = {} -%}
    {%- set nulled = [] -%}
    {#- A narrower column the table holds as it is (a decimal that fits, a narrower int) is
        read as the table's type too, and so is an event_order_by column narrower than the
        positions' field: the run compares the events' values and positions with the table's
        as structs, and Spark finds no common type for structs whose decimals differ
        (DATATYPE_MISMATCH, where a decimal(12,2) column met a decimal(10,2) table). The
        table's widened columns are read as their new type (_scd2_events_materialization). -#}
    {%- for name in wanted if name in data_types and event_types.get(name)
            and scd2_audit._scd2_type_change(data_types[name], event_types[name]) == 'fits' -%}
        {%- do recast.update({name: data_types[name]}) -%}
    {%- endfor -%}
    {%- set position_column = e.opened_position | lower -%}
    {%- for name, field_type in (scd2_audit._scd2_struct_fields(types.get(position_column) or '')
            or []) if name in ctx.order_by and event_types.get(name)
            and scd2_audit._scd2_type_change(field_type, event_types[name]) == 'fits' -%}
        {%- do recast.update({name: field_type}) -%}
    {%- endfor -%}
    {%- if classified.incompatible -%}
        {%- set counts -%}
            select
                {%- for name, table_type, event_type in classified.incompatible %}
                count({{ name }}){{ ',' if not loop.last }}
                {%- endfor %}
            from (
                {{ events_sql }}
            ) as scd2_events
        {%- endset -%}
        {%- set valued = run_query(counts).rows[0] -%}
        {%- for name, table_type, event_type in classified.incompatible -%}
            {%- if valued[loop.index0] == 0 -%}
                {%- do recast.update({name: table_type}) -%}
                {%- do nulled.append(name) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {#- How the run reads each recast column: a cast, or, for one that holds no value, a NULL
        of the table's type (Spark casts no string to an array or a struct), which fails the
        run should a value have come since it was counted. -#}
    {%- set read_as = {} -%}
    {%- for name, table_type in recast.items() -%}
        {%- do read_as.update({name: ('case when ' ~ name ~ ' is null then cast(null as '
            ~ table_type ~ ') else raise_error(' ~ scd2_audit._scd2_sql_string(
                "scd2_events model " ~ ctx.name ~ ": the events' column " ~ name ~ " held no "
                ~ "value when the run began and holds one now: the events changed while it "
                ~ "ran. Nothing was written; run it again.") ~ ') end')
            if name in nulled else 'cast(' ~ name ~ ' as ' ~ table_type ~ ')'}) -%}
    {%- endfor -%}
    {%- set incompatible = [] -%}
    {%- for name, table_type, event_type in classified.incompatible if name not in recast -%}
        {%- do incompatible.append(name ~ " is " ~ table_type ~ " in the table but "
            ~ event_type ~ " in the events") -%}
    {%- endfor -%}
    {%- do incompatible.extend(derived_incompatible) -%}
    {%- set unfollowed = classified.incompatible | rejectattr(0, 'in', recast) | list -%}
    {%- if incompatible -%}
        {{ exceptions.raise_compiler_error(
            "scd2_events model " ~ ctx.name ~ ": an event column changed type in a way the "
            ~ "history cannot follow: " ~ incompatible | join('; ') ~ ". In place, a column "
            ~ "can only widen (int to bigint, float to double, a decimal to a larger precision "
            ~ "at the same scale). Nothing was written; the table is unchanged. "
            ~ scd2_audit._scd2_type_change_advice(unfollowed, "the model's select")
            ~ " (Spark types a JSON field that was null on every line of the "
            ~ "first batch as a string: declare the JSON relation's schema, create table ... "
            ~ "(op string, before struct<...>, ...) using json location ..., so that every "
            ~ "batch reads alike.)"
            ~ scd2_audit._scd2_valueless_columns_advice(unfollowed, relation,
                table_columns | map(attribute='name') | list)) }}
    {%- endif -%}
    {%- for name in data if name not in wanted -%}
        {%- do change.removed.update({name: types[name]}) -%}
    {%- endfor -%}
    {%- do change.update({
        'recast': recast,
        'read_as': read_as,
        'changed': (change.added | length > 0) or (change.widened | length > 0),
        'columns': data + (change.added.keys() | list) + metadata,
    }) -%}
    {#- dbt's incremental setting (_scd2_events_context), read as dbt reads it for a table
        it cannot follow. -#}
    {%- if ctx.on_schema_change == 'fail'
            and (change.added or change.widened or change.removed) -%}
        {{ exceptions.raise_compiler_error(
            "scd2_events model " ~ ctx.name ~ ": on_schema_change='fail', and the events' "
            ~ "columns differ from " ~ relation ~ "'s: new " ~ (change.added.keys() | list)
            ~ ", wider " ~ (change.widened.keys() | list) ~ ", gone "
            ~ (change.removed.keys() | list) ~ ". Nothing was written; the table is "
            ~ "unchanged. Unset on_schema_change (or set 'append_new_columns') for the "
            ~ "history to follow them (docs/events.md, \"When the events change shape\").") }}
    {%- endif -%}
    {{ return(change) }}
{%- endmacro %}
