{% macro scd2_debezium_events(
    relation,
    key_columns,
    value_columns=none,
    sequence=['lsn'],
    unavailable_value='__debezium_unavailable_value'
) -%}
    {{ return(adapter.dispatch('scd2_debezium_events', 'scd2_audit')(
        relation, key_columns, value_columns, sequence, unavailable_value)) }}
{%- endmacro %}

{% macro default__scd2_debezium_events(
    relation, key_columns, value_columns, sequence, unavailable_value
) -%}
    {#-
        A select that flattens Debezium change events, as Kafka Connect's JSON converter
        writes them (one JSON object per line, with or without its `schema`/`payload`
        envelope), into the flat events an scd2_events model reads (docs/events.md):
        - the key columns: from `after`, or from `before` for a delete (whose `after` is null);
          a batch whose lines all lack one side (see below) reads them from the other;
        - the value columns (default: every field of `after`): from `after`, null for a delete;
        - op: Debezium's code, c (create), u (update), d (delete), r (read, a snapshot row);
          t (truncate) is none of them and fails the model as malformed, as it should, its
          operation saying what to do;
        - event_ts: the source database's change time (source.ts_ms, milliseconds), the first
          ordering column; then event_<field> for each `sequence` field of `source` (default
          lsn, PostgreSQL's log sequence number) as tie-breakers;
        - before_<key>: the key before the change, for event_old_key_columns. Left out in an
          scd2_events model that does not set event_old_key_columns: there it would become a
          value column, which a create leaves null and an update fills (with MySQL's binlog
          or PostgreSQL's REPLICA IDENTITY FULL), so an update that changes nothing after a
          create would add a version.
        Where the lines carry Kafka Connect's schema (the `schema`/`payload` envelope), a
        field whose JSON value encodes another type is decoded into it
        (`_scd2_debezium_kind`): Debezium's dates and timestamps, decimals, bytes.
        A value Debezium did not have (its placeholder, `unavailable_value`) makes the event
        malformed, naming the fields (`_scd2_debezium_unsent`); none turns the check off.
        Tombstones are left out: the null record Kafka Connect writes after each delete (for
        log compaction; Debezium's tombstones.on.delete, on by default) carries no change,
        and Spark reads its `null` line as a row of NULLs. A line Spark cannot parse reads
        the same unless the relation has Spark's `_corrupt_record` column, which holds the
        line's text (`null` for a tombstone): with it, such a line is kept and fails the
        model as malformed, its operation being its text, and so does a line Spark read only
        in part (a field of another type than the schema's); without it, the first cannot be
        told from a tombstone, and the second is read with NULLs for such fields.
        `relation`: a table or view of the JSON lines, e.g. a source over
        `create table ... using json location '<folder>'`.
        Use it as: event_order_by=['event_ts', 'event_lsn'].
        Output names are plain (`_scd2_plain_name`): the events SQL writes its columns
        unquoted, and a model cannot rename the columns of this select, so a field such as
        `e-Mail` (legal in JSON and in most databases) is read quoted and named `e_mail`. Two
        fields that would get one name, or a field named like a column the select adds (op,
        event_ts, event_<sequence>, before_<key>), fail the model with their names.
    -#}
    {%- set keys = scd2_audit._scd2_column_list(key_columns) | map('lower') | list -%}
    {#- The topic's files as they are now. -#}
    {%- do scd2_audit._scd2_refresh_unless_upstream(relation) -%}
    {%- do scd2_audit._scd2_full_type_texts() -%}
    {%- set column_types = scd2_audit._scd2_column_types(relation) -%}
    {%- set columns = column_types.keys() | list -%}
    {%- if execute and not columns and scd2_audit._scd2_relation_exists(relation) == false -%}
        {{ exceptions.raise_compiler_error("scd2_debezium_events(" ~ relation ~ "): the "
            ~ "relation does not exist. Create it over the topic's files first (create table "
            ~ "... using json location '...', docs/events.md), or build what makes it.") }}
    {%- endif -%}
    {%- set p = 'payload.' if 'payload' in columns else '' -%}
    {%- set envelope = ['op', 'before', 'after', 'source'] -%}
    {#- Lines with the envelope and lines without it in one relation: Spark infers both
        shapes' columns, and reading one would take the others' lines for tombstones. -#}
    {%- if execute and p and envelope | select('in', columns) | list -%}
        {{ exceptions.raise_compiler_error("scd2_debezium_events(" ~ relation ~ "): the "
            ~ "relation mixes lines with Kafka Connect's schema/payload envelope and lines "
            ~ "without it (its columns: " ~ columns | join(', ') ~ "), and the lines of one "
            ~ "shape would be read as tombstones and left out. Point it at the files of one "
            ~ "converter setting (schemas.enable), or flatten the two shapes in a union of "
            ~ "your own.") }}
    {%- endif -%}
    {#- Spark infers a JSON table's schema from its lines: a batch of tombstones alone gives
        no column (or only _corrupt_record), and one of `{"schema":null,"payload":null}`
        lines a `payload` of text, whose fields Spark cannot read
        (INVALID_EXTRACT_BASE_FIELD_TYPE). -#}
    {%- set declare = " Declare the relation's schema, so that it does not depend on the "
        ~ "batch, e.g. create table ... (op string, before struct<id: bigint, ...>, after "
        ~ "struct<id: bigint, ...>, source struct<ts_ms: bigint, lsn: bigint>) using json "
        ~ "location '...' (within a payload struct, where the lines have the envelope)." -%}
    {%- if execute and (columns | reject('equalto', '_corrupt_record') | list | length == 0
            or (p and not (column_types['payload'] | lower).startswith('struct<'))) -%}
        {{ exceptions.raise_compiler_error("scd2_debezium_events(" ~ relation ~ "): no line "
            ~ "of the relation holds a change (its columns: " ~ (columns | join(', ')
                or 'none') ~ (", payload: " ~ column_types['payload'] if p else "")
            ~ "): Spark inferred its schema from lines that are all null, such as a batch of "
            ~ "tombstones alone." ~ declare) }}
    {%- endif -%}
    {%- if execute and not p and envelope | reject('in', columns) | list -%}
        {{ exceptions.raise_compiler_error("scd2_debezium_events(" ~ relation ~ "): the "
            ~ "relation has neither Debezium's op, before, after and source columns nor a "
            ~ "payload holding them (its columns: " ~ columns | join(', ') ~ "). Point it at "
            ~ "the JSON lines Kafka Connect wrote for the topic.") }}
    {%- endif -%}
    {%- set sequence = scd2_audit._scd2_column_list(sequence) | map('lower') | list -%}
    {#- The fields of `after`, `before` and `source` with their types, checked against the
        keys and the sequence: a wrong guess (MySQL has no lsn but binlog file and pos) gets
        what to write. Where the relation's schema was inferred from the lines (a JSON table
        without a declared schema), a batch in which every `after` is null (deletes only) has
        `after` as a string, and so has `before` in a batch of creates and snapshot reads
        only (Debezium's first batch): the rows' fields then come from the other one. Such a
        string column is read as the JSON text of a row with the other side's fields
        (`from_json`): in a table whose schema Spark fixed when it was created over the
        topic's folder, at such a first batch, it holds the later lines' rows as text (a
        delete's `before`, its key), where in a batch inferred alone it holds only NULLs.
        Keys are taken from `after`, else from `before`, whichever holds the row. -#}
    {%- set fields = {'after': {}, 'before': {}, 'source': {}} -%}
    {%- set kinds = {} -%}
    {#- Per side, its fields as a schema for from_json: `name` type, ... -#}
    {%- set schemas = {} -%}
    {%- if execute -%}
        {%- for column in scd2_audit._scd2_query_columns('select ' ~ p ~ 'after as after, '
            ~ p ~ 'before as before, ' ~ p ~ 'source as source from ' ~ relation) -%}
            {%- do kinds.update({column.name | lower: column.type | lower}) -%}
        {%- endfor -%}
        {%- for side in fields if kinds[side].startswith('struct<') -%}
            {%- set ddl = [] -%}
            {%- for column in scd2_audit._scd2_query_columns(
                'select ' ~ p ~ side ~ '.* from ' ~ relation) -%}
                {%- do fields[side].update({column.name | lower: column.type}) -%}
                {%- do ddl.append(scd2_audit._scd2_quote(column.name) ~ ' ' ~ column.type) -%}
            {%- endfor -%}
            {%- do schemas.update({side: ddl | join(', ')}) -%}
        {%- endfor -%}
        {%- if not fields['after'] and not fields['before'] -%}
            {#- Text that some line holds is no null inferred as text: JSON documents, as
                Debezium's MongoDB connector writes them (asked only on this failing path). -#}
            {%- set held = run_query('select count(' ~ p ~ 'after) from ' ~ relation).rows[0][0]
                if kinds['after'] == 'string' else 0 -%}
            {%- if held -%}
                {%- set why = "after holds text, such as the JSON documents of Debezium's "
                    ~ "MongoDB connector, which this macro does not read: flatten them with "
                    ~ "Debezium's ExtractNewDocumentState transform, or with from_json in a "
                    ~ "select of your own (docs/events.md, \"Debezium's envelope\")." -%}
            {%- else -%}
                {%- set why = "Spark inferred the relation's schema from lines where both are "
                    ~ "null (tombstones, truncates)." ~ declare -%}
            {%- endif -%}
            {{ exceptions.raise_compiler_error("scd2_debezium_events(" ~ relation ~ "): "
                ~ "neither after nor before is a struct (after: " ~ kinds['after']
                ~ ", before: " ~ kinds['before'] ~ "), so no line holds a row: " ~ why) }}
        {%- endif -%}
    {%- endif -%}
    {%- set row_side = 'after' if fields['after'] or not fields['before'] else 'before' -%}
    {#- The types the fields' JSON values encode, where the lines carry their schema. -#}
    {%- set semantics = scd2_audit._scd2_debezium_semantics(relation, column_types)
        if execute else {} -%}
    {%- set row_fields = fields[row_side] -%}
    {%- if execute -%}
        {%- set problems = [] -%}
        {%- set no_keys = keys | reject('in', row_fields) | list -%}
        {%- if no_keys -%}
            {%- do problems.append("the rows (" ~ p ~ row_side ~ ") have no key field(s) "
                ~ no_keys ~ " (their fields: " ~ row_fields | join(', ') ~ ")") -%}
        {%- endif -%}
        {%- set no_sequence = (['ts_ms'] + sequence) | reject('in', fields['source']) | list -%}
        {%- if no_sequence -%}
            {%- do problems.append(p ~ "source has no field(s) " ~ no_sequence ~ " (its fields: "
                ~ fields['source'] | join(', ') ~ "): pass as `sequence` the fields that order "
                ~ "the database's changes, e.g. sequence=['lsn'] for PostgreSQL, "
                ~ "sequence=['file', 'pos', 'row'] for MySQL, sequence=['scn'] for Oracle; "
                ~ "SQL Server's need a select over this one (docs/events.md, \"Debezium's "
                ~ "envelope\")") -%}
        {%- endif -%}
        {%- if value_columns is not none and not fields['after'] -%}
            {%- set no_values = value_columns | map('lower') | reject('in', row_fields) | list -%}
            {%- if no_values -%}
                {%- do problems.append("every after is null here (" ~ p ~ "after is "
                    ~ kinds['after'] ~ "), and before has no field(s) " ~ no_values
                    ~ " to type them by: declare the relation's schema") -%}
            {%- endif -%}
        {%- endif -%}
        {%- if problems -%}
            {{ exceptions.raise_compiler_error("scd2_debezium_events(" ~ relation ~ "): "
                ~ problems | join('; ') ~ ".") }}
        {%- endif -%}
    {%- endif -%}
    {%- if value_columns is none -%}
        {%- set values = row_fields.keys() | reject('in', keys) | list -%}
    {%- else -%}
        {%- set values = value_columns | map('lower') | list -%}
    {%- endif -%}
    {%- set old_keys = config.get('materialized') != 'scd2_events'
        or config.get('event_old_key_columns') -%}
    {#- Each field as its quoted reference and its output name. -#}
    {%- set ref = {} -%}
    {%- set name = {} -%}
    {%- for field in keys + values + sequence -%}
        {%- do ref.update({field: scd2_audit._scd2_quote(field)}) -%}
        {%- do name.update({field: scd2_audit._scd2_plain_name(field)}) -%}
    {%- endfor -%}
    {%- set outputs = {} -%}
    {%- for field in keys -%}
        {%- do outputs.setdefault(name[field], []).append(row_side ~ '.' ~ field) -%}
        {%- if old_keys -%}
            {%- do outputs.setdefault('before_' ~ name[field], []).append('before.' ~ field) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- for field in values -%}
        {%- do outputs.setdefault(name[field], []).append(row_side ~ '.' ~ field) -%}
    {%- endfor -%}
    {%- do outputs.setdefault('op', []).append('op') -%}
    {%- do outputs.setdefault('event_ts', []).append('source.ts_ms') -%}
    {%- for field in sequence -%}
        {%- do outputs.setdefault('event_' ~ name[field], []).append('source.' ~ field) -%}
    {%- endfor -%}
    {%- set clashes = scd2_audit._scd2_output_clashes(outputs) -%}
    {%- if clashes and execute -%}
        {{ exceptions.raise_compiler_error("scd2_debezium_events(" ~ relation ~ "): these "
            ~ "output columns would each come from several fields: " ~ clashes | join('; ')
            ~ ". Field names are made plain (letters, digits, underscores) and the select adds"
            ~ " op, event_ts, event_<sequence field> and before_<key>: leave one of each"
            ~ " pair out with value_columns=[...], or flatten the relation yourself.") }}
    {%- endif %}
    {#- Each field's expression, decoded where its schema says what it encodes. -#}
    {%- set decoded = {} -%}
    {%- for field in keys + values -%}
        {%- set kind = semantics.get(field) -%}
        {%- set wire_type = row_fields.get(field, '') -%}
        {%- for side in ['after', 'before'] -%}
            {%- set other = 'before' if side == 'after' else 'after' -%}
            {%- if fields[side] or not execute -%}
                {%- set expression = p ~ side ~ '.' ~ ref[field] -%}
            {%- elif kinds[side] == 'string' -%}
                {%- set expression = 'from_json(' ~ p ~ side ~ ', '
                    ~ scd2_audit._scd2_sql_string(schemas[other]) ~ ').' ~ ref[field] -%}
            {%- else -%}
                {%- set expression = 'cast(null as ' ~ wire_type ~ ')' -%}
            {%- endif -%}
            {%- do decoded.update({side ~ '.' ~ field: scd2_audit._scd2_debezium_decoded(
                expression, kind, wire_type) if kind else expression}) -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- set selected = [] -%}
    {%- for key in keys -%}
        {%- do selected.append('coalesce(' ~ decoded['after.' ~ key] ~ ', '
            ~ decoded['before.' ~ key] ~ ') as ' ~ name[key]) -%}
    {%- endfor -%}
    {%- for value in values -%}
        {%- do selected.append(decoded['after.' ~ value] ~ ' as ' ~ name[value]) -%}
    {%- endfor -%}
    {#- A line Spark read only in part (PERMISSIVE: a field of another type than the
        relation's schema is NULL, the rest is read) has its text in _corrupt_record, as one
        it could not read at all: its operation is that text, so that the model fails it as
        malformed, naming it, where the half-read event was applied with NULLs. -#}
    {#- A truncate names no rows: its operation says what to do, as the model fails it. -#}
    {%- set op_cases = ["when " ~ p ~ "op = 't' then " ~ scd2_audit._scd2_sql_string(
        "t: a TRUNCATE of the table, which names no rows: close its keys' open versions by "
        ~ "hand, or leave truncates out with Debezium's skipped.operations=t")] -%}
    {%- if '_corrupt_record' in columns -%}
        {%- do op_cases.append("when coalesce(trim(_corrupt_record), 'null') != 'null'"
            ~ " then concat('a line Spark could not read whole: ', left(_corrupt_record, 300))") -%}
        {#- A line Spark read whole that holds none of the fields is no tombstone (its
            _corrupt_record is `null`, its text): most likely a line of the other converter
            setting (schemas.enable) in a relation whose schema was fixed by one, whose change
            would be lost without a word. -#}
        {%- do op_cases.append("when " ~ p ~ "op is null and " ~ p ~ "before is null and "
            ~ p ~ "after is null and _corrupt_record is null then " ~ scd2_audit._scd2_sql_string(
                "a line without Debezium's op, before and after" ~ (
                    " in a payload: a line without Kafka Connect's schema/payload envelope in a "
                    ~ "relation of lines with it (or a tombstone as Kafka Connect before 2.2 "
                    ~ 'wrote it, {"schema":null,"payload":null})' if p else
                    ": a line with Kafka Connect's schema/payload envelope in a relation of "
                    ~ "lines without it") ~ ". Point the relation at the files of one converter "
                ~ "setting (schemas.enable), or flatten both shapes in a union of your own")) -%}
    {%- endif -%}
    {%- set unsent = scd2_audit._scd2_debezium_unsent(p, values, fields['after'], ref,
        unavailable_value) if unavailable_value is not none and fields['after'] else '' -%}
    {%- if unsent -%}
        {%- do op_cases.append(unsent) -%}
    {%- endif -%}
    {%- if op_cases -%}
        {%- do selected.append('case ' ~ op_cases | join(' ') ~ ' else ' ~ p ~ 'op end as op') -%}
    {%- else -%}
        {%- do selected.append(p ~ 'op as op') -%}
    {%- endif -%}
    {%- do selected.append('timestamp_millis(' ~ p ~ 'source.ts_ms) as event_ts') -%}
    {#- Oracle's connector writes its scn and commit_scn as text: ordered as text, '1000'
        came before '999' and misordered a key's changes within a second. On its lines
        (source.connector 'oracle'), a sequence field of digits alone is padded with zeros on
        the left to 38 digits (an SCN has at most 20), so that text order is number order.
        Other connectors' text (SQL Server's fixed-width LSNs, MySQL's binlog file names)
        already orders as it is, and is left so. -#}
    {%- set oracle = "source.connector = 'oracle'" if 'connector' in fields['source'] else none -%}
    {%- for field in sequence -%}
        {%- set raw = p ~ 'source.' ~ ref[field] -%}
        {%- if oracle and (fields['source'].get(field) or '') | lower == 'string' -%}
            {%- do selected.append("case when " ~ p ~ oracle ~ " and " ~ raw ~ " rlike "
                ~ "'^[0-9]{1,38}$' then lpad(" ~ raw ~ ", 38, '0') else " ~ raw ~ " end as event_"
                ~ name[field]) -%}
        {%- else -%}
            {%- do selected.append(raw ~ ' as event_' ~ name[field]) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- for key in keys if old_keys -%}
        {%- do selected.append(decoded['before.' ~ key] ~ ' as before_' ~ name[key]) -%}
    {%- endfor %}
    select
        {%- for expression in selected %}
        {{ expression }}{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ relation }}
    where
        {{ p }}op is not null
        or {{ p }}before is not null
        or {{ p }}after is not null
        {%- if '_corrupt_record' in columns %}
        or not (trim(_corrupt_record) <=> 'null')
        {%- endif %}
{%- endmacro %}
