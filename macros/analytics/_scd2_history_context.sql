{% macro _scd2_history_context(
    relation, unique_key=none, needs_audit=false, valid_to_current=none
) -%}
    {#-
        The snapshot context (_scd2_snapshot_context: keys, dbt's and our column names, the
        open-version predicate) of the snapshot that builds `relation`, plus what the scd2_*
        analytics macros need from the table itself:
        - key_columns: the keys, lower case;
        - data_columns: the keys, then every other column that is neither dbt's nor ours, in
          table order: the snapshotted source row;
        - metadata_columns: dbt's and our columns present in the table, in table order;
        - all_columns: every column, in table order;
        - is_deletion_record: SQL that is true on dbt's deletion records (hard_deletes=
          'new_record': a deleted key's open row, holding its last values), false elsewhere and
          on a table without dbt's is-deleted column: no state holds a deleted key;
        - events: the event column names (scd2_event_column_names()) on a table an
          scd2_events model builds (or, outside the graph, one holding its positions and
          closed_as), whose versions say how they were opened and closed; none on a
          snapshot, whose columns of those names are data columns (a source may have an
          `event_opened_op`: read as the events' own, it left the views without a word).
        - effective_start: the effective start as an instant (_scd2_utc_instant_sql: a date
          or timestamp_ntz validity read as UTC, as its effective end was written), for
          comparisons with the end or with a moment that the session's zone cannot shift;
        - types: each column's Spark type by its lower-case name ({} before the table
          exists);
        - quoted: the same lists (key_columns, data_columns, metadata_columns, all_columns)
          as Spark identifiers, spelled as the table spells them, for the SQL: a column such
          as `e-Mail` or `Cust Id` needs the quotes.
        Columns are read from the table. When it does not exist yet (dbt compile, sqlfluff, docs
        before the first snapshot), the columns documented in the snapshot's YAML stand in, so
        that the SQL still compiles to its real shape (when they are all documented; with none,
        see below).
        Keys given quoted, as dbt's unique_key takes a name that needs quoting
        (``unique_key='`Cust Id`'``), are read without their quotes.
        `needs_audit`: the macro reads the audit columns (effective range, runs); a table
        without them (a plain dbt snapshot, a seed) fails naming what is missing (a table
        not there yet compiles from its YAML, as above), before a missing unique_key.
        Anything but a relation (a table's name as text) fails, saying what to pass.
        A relation of none (adapter.get_relation of a table not there) fails at execution
        only: at parse time dbt's adapter calls return none for every relation.
    -#}
    {%- if relation is none and execute -%}
        {{ exceptions.raise_compiler_error(
            "scd2 analytics: the relation is none (a table that does not exist?). Pass a "
            ~ "snapshot, e.g. ref('my_snapshot').") }}
    {%- endif -%}
    {%- if execute and relation is not none and relation.identifier is not defined -%}
        {{ exceptions.raise_compiler_error(
            "scd2 analytics: expected a relation, got '" ~ (relation | string)[:200]
            ~ "'. Pass ref('my_snapshot'), source(...), or "
            ~ "adapter.get_relation(database=..., schema=..., identifier=...) for a table "
            ~ "outside the project; the table's name as text does not say which snapshot "
            ~ "config (keys, column names) it follows.") }}
    {%- endif -%}
    {%- set snapshot = scd2_audit._scd2_snapshot_context(relation, unique_key, valid_to_current) -%}
    {%- set columns = snapshot.columns -%}
    {%- set audit = snapshot.audit -%}
    {#- Names are compared in lower case, and selected as the table spells them: a table
        built of the select of a snapshot whose source column is `Name` has a `Name`
        column, not `name`. -#}
    {%- set types = {} -%}
    {%- set spelled = {} -%}
    {%- for name, type in scd2_audit._scd2_column_types(relation, keep_case=true).items() -%}
        {%- do types.update({name | lower: type}) -%}
        {%- do spelled.update({name | lower: name}) -%}
    {%- endfor -%}
    {%- set table_columns = types.keys() | list -%}
    {#- The table's columns before its key: a relation that is no history (a seed, a model)
        was first asked for a unique_key, and only then found to have no validity. -#}
    {%- set dbt_absent = [columns.dbt_valid_from, columns.dbt_valid_to] | map('lower')
        | reject('in', table_columns) | list -%}
    {%- set absent = dbt_absent + ([
        audit.effective_start_ts, audit.effective_end_ts, audit.insert_process_id,
        audit.insert_ts, audit.update_process_id, audit.update_ts] | map('lower')
        | reject('in', table_columns) | list if needs_audit else []) -%}
    {%- if execute and types and absent -%}
        {{ exceptions.raise_compiler_error(
            "scd2 analytics on " ~ relation ~ ": the table has no column(s) " ~ absent
            ~ " (its columns: " ~ table_columns ~ "), so it is no SCD2 history this macro"
            ~ " reads. "
            ~ (scd2_audit._scd2_stock_built_advice()
                if snapshot.is_snapshot and not dbt_absent
                else "Pass a snapshot of this package (or an scd2_events model), e.g."
                ~ " ref('my_snapshot'); for one whose dbt columns were renamed, the snapshot"
                ~ " itself, whose config gives their names.")) }}
    {%- endif -%}
    {%- if execute and not snapshot.key_columns -%}
        {%- do scd2_audit._scd2_snapshot_context(
            relation, unique_key, valid_to_current, remedy='Pass unique_key=[...] to the macro.') -%}
    {%- endif -%}
    {%- set keys = [] -%}
    {%- for key in snapshot.key_columns -%}
        {%- do keys.append(scd2_audit._scd2_unquoted_name(key) | lower) -%}
    {%- endfor -%}
    {%- if execute -%}
        {%- if not table_columns -%}
            {%- do table_columns.extend(snapshot.documented) -%}
        {%- endif -%}
        {#- `dbt compile` and `dbt docs generate` on a fresh project, before any snapshot
            ran, of a snapshot whose YAML documents no column: the SQL is compiled with the
            key columns alone, as dbt_utils' star() compiles to `*` there, where these
            commands failed; every command that runs the SQL still fails. -#}
        {%- if not table_columns and keys and flags.WHICH in ['compile', 'generate'] -%}
            {{ log("scd2 analytics on " ~ relation ~ ": the table does not exist yet and its "
                ~ "YAML documents no column, so this SQL selects its key columns alone. Run "
                ~ "`dbt snapshot` (or document the snapshot's columns) for its real shape.",
                info=true) }}
            {%- do table_columns.extend(keys) -%}
        {%- endif -%}
        {%- if not table_columns -%}
            {{ exceptions.raise_compiler_error(
                "scd2 analytics on " ~ relation ~ ": the table does not exist (or has no "
                ~ "columns) and its YAML documents none. Run `dbt snapshot` first.") }}
        {%- endif -%}
    {%- endif -%}
    {%- set event_columns = scd2_audit.scd2_event_column_names() -%}
    {%- set is_events = scd2_audit._scd2_is_events_table(snapshot, table_columns) -%}
    {%- set metadata_names = (columns.values() | map('lower') | list)
        + (audit.values() | list) + (event_columns.values() | list if is_events else []) -%}
    {#- A unique_key entry that is an SQL expression (unique_key="coalesce(region, 'NA')"),
        which a snapshot takes: these macros select, group and join on key columns. -#}
    {%- set expressions = scd2_audit._scd2_unique_key_fields(snapshot.unique_key)
        | selectattr('column', 'none') | map(attribute='key') | list -%}
    {%- if execute and expressions -%}
        {{ exceptions.raise_compiler_error(
            "scd2 analytics on " ~ relation ~ ": the unique_key holds SQL expression(s) "
            ~ expressions | join(', ') ~ ", where these macros need the key's columns (they "
            ~ "select, group and join on them). Pass unique_key=[...] to the macro with the "
            ~ "column(s) of the table that identify a key, e.g. the columns the expression "
            ~ "is computed from, where distinct values of them give distinct keys: under "
            ~ "lower(email), a change of 'A@x.org' to 'a@x.org' is one key's update, which "
            ~ "the columns read as a delete and an insert.") }}
    {%- endif -%}
    {%- set missing = keys | reject('in', table_columns) | list -%}
    {%- if execute and missing -%}
        {{ exceptions.raise_compiler_error(
            "scd2 analytics on " ~ relation ~ ": key column(s) " ~ missing
            ~ " not in the table (columns: " ~ table_columns ~ ").") }}
    {%- endif -%}
    {%- set data_columns = keys + (table_columns | reject('in', metadata_names + keys) | list) -%}
    {%- set deleted_flag = columns.dbt_is_deleted
        if (columns.dbt_is_deleted | lower) in table_columns else none -%}
    {%- set metadata_columns = table_columns | select('in', metadata_names) | list -%}
    {%- set quoted = {} -%}
    {%- for name, names in [('key_columns', keys), ('data_columns', data_columns),
            ('metadata_columns', metadata_columns), ('all_columns', table_columns)] -%}
        {%- set identifiers = [] -%}
        {%- for column in names -%}
            {%- do identifiers.append(scd2_audit._scd2_quote(spelled.get(column, column))) -%}
        {%- endfor -%}
        {%- do quoted.update({name: identifiers}) -%}
    {%- endfor -%}
    {#- dbt_valid_to_current is SQL that the view would evaluate in its reader's session: a
        timestamp written without its zone (`to_timestamp('9999-12-31')`), or a date beside
        a timestamp validity, names another instant in a session of another zone, which no
        open version holds, and the current state of a Paris session was empty. The instant
        is taken once, here, in the session of the dbt run that compiles the view, as the
        snapshot's runs took it (their check of the table's marks refuses a run in another
        zone), and written as one that no zone shifts. -#}
    {%- set is_open = snapshot.is_open -%}
    {%- if execute and snapshot.valid_to_current
            and types.get(columns.dbt_valid_to | lower) == 'timestamp' -%}
        {%- set micros = run_query('select unix_micros(cast(' ~ snapshot.valid_to_current
            ~ ' as timestamp))').rows[0][0] -%}
        {%- if micros is not none -%}
            {%- set fixed = {} -%}
            {%- do fixed.update(snapshot) -%}
            {%- do fixed.update({'valid_to_current': 'timestamp_micros(' ~ micros ~ ')'}) -%}
            {%- set is_open = scd2_audit._scd2_open_version_sql(none, false, fixed) -%}
        {%- endif -%}
    {%- endif -%}
    {{ return({
        'key_columns': keys,
        'columns': columns,
        'audit': audit,
        'data_columns': data_columns,
        'metadata_columns': metadata_columns,
        'all_columns': table_columns,
        'is_deletion_record': scd2_audit._scd2_is_deleted_sql(deleted_flag)
            if deleted_flag else 'false',
        'events': event_columns if is_events else none,
        'is_open': is_open,
        'high_end': snapshot.high_end,
        'quoted': quoted,
        'types': types,
        'effective_start': scd2_audit._scd2_utc_instant_sql(
            audit.effective_start_ts, types.get(audit.effective_start_ts | lower)),
    }) }}
{%- endmacro %}
