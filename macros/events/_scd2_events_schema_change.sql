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
          the same scale), and the retyped ones; a narrower type is cast on insert;
        - retyped: integer value columns whose events now bring doubles or floats, where the
          table's values lie within the new type's exact-integer bound: rewritten as that
          type (Iceberg changes none in place);
        - changed: added or widened: the run then writes the table's new schema and its
          versions in one `create or replace table ... as` (_scd2_events_overwrite_sql), so a
          failed run leaves no column added.
        Fails, naming both lists, when the table does not end with the metadata columns this
        run writes (a table not built by scd2_events, or the model's settings changed; where
        columns added by hand follow them, naming those and the statements that move them
        before the metadata columns), when a key column is missing from the table (the unique_key changed), and, naming the column
        and both types, on a type change the history cannot follow.
        A column whose type the table cannot take but which holds no value in this run's
        events (`events_sql`, counted only then) is read as the table's type instead.
        Returns {'added': {name: type}, 'removed': {name: type}, 'widened': {name: type},
        'retyped': {name: type, also in widened},
        'recast': {name: the table's type, for the events' all-NULL columns of another type,
        their narrower ones, and integers within the bound of a double or float column},
        'read_as': {name: the expression reading it so},
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
    {#- Columns after the metadata columns, the metadata columns all there in order: columns
        added by hand (`alter table ... add columns` appends), which the run would take for
        metadata. Said so, with the statements that put them where a run adds its own. -#}
    {%- set first_metadata = actual.index(metadata[0]) if metadata[0] in actual else -1 -%}
    {%- set after_metadata = first_metadata + metadata | length -%}
    {%- set trailing = actual[after_metadata:] if first_metadata > 0 else [] -%}
    {#- dbt's own columns are none a user adds: one left by other settings (dbt_is_deleted,
        after hard_deletes='new_record') is the settings' change, said below. -#}
    {%- set dbt_names = ctx.columns.values() | map('lower') | list -%}
    {%- if trailing and actual[first_metadata:after_metadata] == metadata
            and not trailing | select('in', dbt_names) | list and not missing_keys -%}
        {%- set moves = [] -%}
        {%- set previous = namespace(name=actual[first_metadata - 1]) -%}
        {%- for name in trailing -%}
            {%- do moves.append("alter table " ~ relation ~ " alter column " ~ name ~ " after "
                ~ previous.name) -%}
            {%- set previous.name = name -%}
        {%- endfor -%}
        {{ exceptions.raise_compiler_error(
            "scd2_events model " ~ ctx.name ~ ": the table " ~ relation ~ " has column(s) "
            ~ trailing ~ " after its metadata columns (" ~ metadata[0] ~ " to " ~ metadata[-1]
            ~ "), where the model's columns come before them: added by hand (alter table "
            ~ "... add columns puts a column at the end). Nothing was written. Move them: "
            ~ moves | join('; ') ~ ".") }}
    {%- endif -%}
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
    {#- An integer value column whose events now bring floats or doubles (a JSON field of
        whole numbers in one batch, which Spark reads as bigint, with fractions in a later
        one) is followed as the snapshots follow it (_scd2_assert_type_changes): the run's
        one-commit rewrite casts the table's values to the new type, where each lies within
        the bound up to which that type holds every integer (checked below, once the events
        that hold no value there are read as the table's type instead). A key column keeps
        its type: keys are compared by value and written into event_previous_key, and a key
        that became a double is no longer the key it was. -#}
    {%- set keys = ctx.key_columns | map('lower') | list -%}
    {%- set retypes = [] -%}
    {%- for change in classified.retyped -%}
        {%- do classified.incompatible.append(change) -%}
        {%- if change[0] | lower not in keys -%}
            {%- do retypes.append(change) -%}
        {%- endif -%}
    {%- endfor -%}
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
    {#- In the same count, integers into a double or float column (a JSON field with
        fractions in one batch, whole numbers only in a later one, which Spark reads as
        bigint): where every value lies within the bound up to which the table's type holds
        every integer, they are read as that type (exact), as a snapshot reads them; a value
        beyond fails the run, counted. -#}
    {%- set exact = {} -%}
    {%- set inexact = {} -%}
    {%- if classified.incompatible -%}
        {%- set valued = scd2_audit._scd2_count_input_values(events_sql,
            classified.incompatible) -%}
        {%- for name, table_type, event_type in classified.incompatible -%}
            {%- set beyond_bound = valued[loop.index0][1] -%}
            {%- if valued[loop.index0][0] == 0 -%}
                {%- do recast.update({name: table_type}) -%}
                {%- do nulled.append(name) -%}
            {%- elif beyond_bound == 0 -%}
                {%- do recast.update({name: table_type}) -%}
                {%- do exact.update({name: event_type}) -%}
            {%- elif beyond_bound is not none -%}
                {%- do inexact.update({name: beyond_bound}) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {#- How the run reads each recast column: a cast, or, for one that holds no value, a NULL
        of the table's type (Spark casts no string to an array or a struct), and for integers
        into a floating-point column, a cast of the values within the bound: either fails the
        run should a value have come since it was counted. -#}
    {%- set read_as = {} -%}
    {%- for name, table_type in recast.items() -%}
        {%- if name in nulled or name in exact -%}
            {%- set changed_meanwhile = "scd2_events model " ~ ctx.name ~ ": the events' "
                ~ "column " ~ name ~ (" held no value" if name in nulled
                    else " held no integer beyond ±"
                        ~ scd2_audit._scd2_exact_integer_bound(table_type))
                ~ " when the run began and holds one now: the events changed while it ran. "
                ~ "Nothing was written; run it again." -%}
        {%- endif -%}
        {%- if name in nulled -%}
            {%- do read_as.update({name: 'case when ' ~ name ~ ' is null then cast(null as '
                ~ table_type ~ ') else raise_error(' ~ scd2_audit._scd2_sql_string(
                    changed_meanwhile) ~ ') end'}) -%}
        {%- elif name in exact -%}
            {%- do read_as.update({name: scd2_audit._scd2_exact_cast_sql(
                name, exact[name], table_type, changed_meanwhile)}) -%}
        {%- else -%}
            {%- do read_as.update({name: 'cast(' ~ name ~ ' as ' ~ table_type ~ ')'}) -%}
        {%- endif -%}
    {%- endfor -%}
    {#- The retyped columns that hold values in the events: one count over the table, for
        an integer type with values beyond the new type's bound (an int into a double needs
        none); a column with such values keeps its type, and the run fails. -#}
    {%- set beyond = scd2_audit._scd2_count_beyond_bound(relation,
        retypes | rejectattr(0, 'in', recast) | list) -%}
    {%- set retyped = {} -%}
    {%- for name, table_type, event_type in retypes
            if name not in recast and name not in beyond -%}
        {%- do retyped.update({name | lower: event_type}) -%}
        {%- do change.widened.update({name | lower: event_type}) -%}
    {%- endfor -%}
    {%- set incompatible = [] -%}
    {%- for change in classified.incompatible
            if change[0] not in recast and change[0] | lower not in retyped -%}
        {%- do incompatible.append(scd2_audit._scd2_type_change_problem(change,
            "the table", "the events", inexact.get(change[0]), beyond.get(change[0]),
            "a key column" if change in classified.retyped and change[0] | lower in keys
                else none)) -%}
    {%- endfor -%}
    {%- do incompatible.extend(derived_incompatible) -%}
    {%- set unfollowed = classified.incompatible | rejectattr(0, 'in', recast)
        | rejectattr(0, 'in', retyped.keys() | list) | list -%}
    {%- if incompatible -%}
        {{ exceptions.raise_compiler_error(
            "scd2_events model " ~ ctx.name ~ ": an event column changed type in a way the "
            ~ "history cannot follow: " ~ incompatible | join('; ') ~ ". In place, a column "
            ~ "can only widen (int to bigint, float to double, a decimal to a larger precision "
            ~ "at the same scale), integers go into a double or float column only where "
            ~ "their values lie within ±2^53 (±2^24 for a float), and an integer column "
            ~ "takes doubles or floats, rewritten as one, only where the values it holds lie "
            ~ "within those bounds and it is no key column. Nothing was written; the table is "
            ~ "unchanged. "
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
        'retyped': retyped,
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
            ~ ", wider " ~ (change.widened.keys() | reject('in', retyped) | list)
            ~ ((", integer now floating-point " ~ (retyped.keys() | list)) if retyped else "")
            ~ ", gone "
            ~ (change.removed.keys() | list) ~ ". Nothing was written; the table is "
            ~ "unchanged. Unset on_schema_change (or set 'append_new_columns') for the "
            ~ "history to follow them (docs/events.md, \"When the events change shape\").") }}
    {%- endif -%}
    {{ return(change) }}
{%- endmacro %}
