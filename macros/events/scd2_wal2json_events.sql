{% macro scd2_wal2json_events(relation, table, key_columns, columns) -%}
    {{ return(adapter.dispatch('scd2_wal2json_events', 'scd2_audit')(
        relation, table, key_columns, columns)) }}
{%- endmacro %}

{% macro default__scd2_wal2json_events(relation, table, key_columns, columns) -%}
    {#-
        A select that flattens PostgreSQL's logical decoding as the wal2json plugin writes it
        with format-version=2 (one JSON object per line and per row change), include-lsn=1
        and include-timestamp=1, into the flat events an scd2_events model reads
        (docs/events.md, "PostgreSQL logical decoding (wal2json)"):
        - the lines of `table` ('schema.table', or 'table' for any schema; names as wal2json
          writes them, case included, a part holding a dot in double quotes) with action I, U
          or D; transactions' B and C lines, messages (M) and other tables' lines are left
          out. A truncate (T) names no rows: its operation says so, and the model fails it as
          malformed, as it does a line without `action` (wal2json's format-version 1 read
          under a declared schema, where it held no row of any table and a run applied
          nothing without a word; or a line that is not wal2json's);
        - `columns`, {PostgreSQL column name: Spark type}, the key columns among them: each
          is looked up by name in the line's `columns` (the row after an insert or update),
          a key of a delete in its `identity` (the replica identity's old values), and cast
          from the JSON value's text to its type (a `binary` from wal2json's hex). A value
          an update leaves out (PostgreSQL does not log an unchanged TOASTed value) is taken
          from `identity`, which holds the whole old row under REPLICA IDENTITY FULL, and
          otherwise makes the event malformed, naming it; so does a name the line does not
          hold, on any change, and a value that does not read as its type (a timestamp
          written under another DateStyle than ISO, a date BC, a decimal rounded in exponent
          form). Lines of the table without a schema (include-schemas=0), where `table` names
          one, are malformed too. Output names are plain (_scd2_plain_name);
        - op: c (I), u (U), d (D);
        - event_ts: the transaction's commit time (`timestamp`, text with its UTC offset),
          shared by its changes; event_lsn: the change's own LSN (`lsn`, text such as
          '0/16B6C50', its two halves in hexadecimal), as a bigint, which orders them;
        - before_<key>: an update's old key, from `identity`: wal2json writes the replica
          identity's old values where the key changed (or under FULL), and the new row's
          otherwise. Required in an scd2_events model (event_old_key_columns), since wal2json
          writes a key change as one update: without it, the old key would stay open.
        `relation`: a table or view of the JSON lines, e.g. a source over `create table ...
        using json location '<folder>'`. Use it as: event_order_by=['event_ts', 'event_lsn'],
        event_old_key_columns=['before_<key>', ...].
    -#}
    {%- set keys = scd2_audit._scd2_column_list(key_columns) -%}
    {%- set plain_keys = [] -%}
    {%- for name in keys -%}
        {%- do plain_keys.append(scd2_audit._scd2_plain_name(name)) -%}
    {%- endfor -%}
    {%- set names = columns.keys() | list -%}
    {%- set where = "scd2_wal2json_events(" ~ relation ~ ", " ~ table ~ "): " -%}
    {#- `table` as wal2json writes the names, matched exactly (case included): `schema.table`
        or `table`, a part in double quotes (`""` for a quote) where it holds a dot or a
        quote, as PostgreSQL quotes identifiers; unquoted, a name is not folded to lower case,
        since wal2json writes the names as the catalog holds them. -#}
    {%- set found = modules.re.fullmatch(
        '(?:"((?:[^"]|"")+)"|([^."]+))(?:[.](?:"((?:[^"]|"")+)"|([^."]+)))?', table) -%}
    {%- if found is none -%}
        {{ exceptions.raise_compiler_error(where ~ "`table` must be 'schema.table' or 'table', "
            ~ "each name as wal2json writes it (case included), in double quotes where it "
            ~ "holds a dot or a quote: '\"my.schema\".customers'.") }}
    {%- endif -%}
    {%- set names_found = [] -%}
    {%- for quoted, plain in [(found.group(1), found.group(2)), (found.group(3), found.group(4))]
            if quoted or plain -%}
        {%- do names_found.append(quoted.replace('""', '"') if quoted else plain) -%}
    {%- endfor -%}
    {%- set parts = names_found if names_found | length == 2 else [none, names_found[0]] -%}
    {%- if execute -%}
        {%- set missing = keys | reject('in', names) | list -%}
        {%- if missing -%}
            {{ exceptions.raise_compiler_error(where ~ "the key column(s) " ~ missing
                ~ " are not in `columns` (" ~ names | join(', ') ~ "): give every column, "
                ~ "the keys too, with its Spark type, e.g. {'id': 'int', 'name': 'string'}.") }}
        {%- endif -%}
        {%- set outputs = {} -%}
        {%- for name in names -%}
            {%- do outputs.setdefault(scd2_audit._scd2_plain_name(name), []).append(name) -%}
        {%- endfor -%}
        {%- for name in keys -%}
            {%- do outputs.setdefault('before_' ~ plain_keys[loop.index0], []).append(
                'before_' ~ name) -%}
        {%- endfor -%}
        {%- for added in ['op', 'event_ts', 'event_lsn'] -%}
            {%- do outputs.setdefault(added, []).append(added) -%}
        {%- endfor -%}
        {%- set clashes = scd2_audit._scd2_output_clashes(outputs) -%}
        {%- if clashes -%}
            {{ exceptions.raise_compiler_error(where ~ "these output columns would each come "
                ~ "from several columns: " ~ clashes | join('; ') ~ ". Names are made plain and "
                ~ "the select adds op, event_ts, event_lsn and before_<key>.") }}
        {%- endif -%}
        {%- if config.get('materialized') == 'scd2_events' -%}
            {#- The model pairs event_old_key_columns with its unique_key by position. -#}
            {%- set unique_key = scd2_audit._scd2_column_list(config.get('unique_key') or [])
                | map('lower') | list -%}
            {%- set lowered = plain_keys | map('lower') | list -%}
            {%- if unique_key | sort != lowered | sort -%}
                {{ exceptions.raise_compiler_error(where ~ "the model's unique_key "
                    ~ unique_key ~ " is not the macro's key columns " ~ lowered ~ ": give "
                    ~ "the same columns to both.") }}
            {%- endif -%}
            {%- set wanted = [] -%}
            {%- for name in unique_key -%}
                {%- do wanted.append('before_' ~ name) -%}
            {%- endfor -%}
            {%- set given = scd2_audit._scd2_column_list(
                config.get('event_old_key_columns') or []) | map('lower') | list -%}
            {%- if given != wanted -%}
                {{ exceptions.raise_compiler_error(where ~ "wal2json writes a change of the "
                    ~ "key as one update, whose old key the model must read: set "
                    ~ "event_old_key_columns=" ~ wanted ~ " (it is " ~ given ~ ").") }}
            {%- endif -%}
        {%- endif -%}
    {%- endif -%}
    {#- The files as they are now. -#}
    {%- do scd2_audit._scd2_refresh_unless_upstream(relation) -%}
    {%- do scd2_audit._scd2_full_type_texts() -%}
    {%- set relation_columns = scd2_audit._scd2_column_types(relation) -%}
    {%- if execute -%}
        {%- if 'change' in relation_columns and 'action' not in relation_columns -%}
            {{ exceptions.raise_compiler_error(where ~ "the lines are wal2json's "
                ~ "format-version 1 (one object per transaction, its changes in `change`), "
                ~ "which this macro does not read: have wal2json write format-version=2.") }}
        {%- endif -%}
        {%- set absent = (['action', 'table', 'timestamp', 'lsn'] + (['schema']
            if parts[0] is not none else [])) | reject('in', relation_columns) | list -%}
        {%- if absent -%}
            {{ exceptions.raise_compiler_error(where ~ "the relation has no column(s) "
                ~ absent | join(', ') ~ " (its columns: " ~ relation_columns | join(', ')
                ~ "): have wal2json write format-version=2 with include-timestamp=1 and "
                ~ "include-lsn=1 (and include-schemas, its default, for a table named with its "
                ~ "schema), and declare the relation's schema, so that a batch without changes "
                ~ "of the table reads alike (docs/events.md).") }}
        {%- endif -%}
    {%- endif -%}
    {#- A batch without updates and deletes has no `identity` for Spark to infer, one of
        deletes only no `columns`: read as none. -#}
    {%- set sides = {} -%}
    {%- for side in ['columns', 'identity'] -%}
        {%- if side in relation_columns or not execute -%}
            {%- do sides.update({side: 'map_from_entries(transform(' ~ scd2_audit._scd2_quote(side)
                ~ ', c -> struct(c.name, cast(c.value as string))))'}) -%}
        {%- else -%}
            {%- do sides.update({side: 'cast(null as map<string, string>)'}) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set unsent = [] -%}
    {%- set unread = [] -%}
    {%- set typed = {} -%}
    {%- set before = {} -%}
    {%- for name in names -%}
        {%- set text = scd2_audit._scd2_sql_string(name) -%}
        {%- set in_new = "coalesce(map_contains_key(scd2_new, " ~ text ~ "), false)" -%}
        {%- set in_old = "coalesce(map_contains_key(scd2_old, " ~ text ~ "), false)" -%}
        {#- A value the line does not hold: a name not as wal2json writes it (case included),
            or an update's unchanged TOASTed value, which identity holds under FULL only. -#}
        {%- if name in keys -%}
            {%- set raw = "if(scd2_action = 'D', scd2_old[" ~ text ~ "], scd2_new["
                ~ text ~ "])" -%}
            {%- do unsent.append("case when if(scd2_action = 'D', not " ~ in_old ~ ", not "
                ~ in_new ~ ") then " ~ text ~ " end") -%}
        {%- else -%}
            {%- set raw = "case when scd2_action = 'D' then null when map_contains_key(scd2_new, "
                ~ text ~ ") then scd2_new[" ~ text ~ "] else scd2_old[" ~ text ~ "] end" -%}
            {%- do unsent.append("case when scd2_action != 'D' and not " ~ in_new ~ " and not "
                ~ in_old ~ " then " ~ text ~ " end") -%}
        {%- endif -%}
        {%- set type = columns[name] | lower -%}
        {#- Spark's cast reads a date or time up to a space, so PostgreSQL's `... BC` would
            load as its year AD; a decimal in exponent form is a number wal2json wrote bare,
            which Spark's JSON reader rounded through a double (PostgreSQL writes no
            exponent), and one with a digit other than 0 beyond the column's scale, Spark's
            cast rounds. All read as values their type cannot hold. -#}
        {%- set decimal = modules.re.fullmatch(
            '(?:decimal|numeric|dec)(?:[(]\\s*[0-9]+\\s*(?:,\\s*([0-9]+)\\s*)?[)])?', type) -%}
        {%- if type.startswith('date') or type.startswith('timestamp') -%}
            {%- set cast = "if(" ~ raw ~ " like '% BC', null, try_cast(" ~ raw ~ " as " ~ type
                ~ "))" -%}
        {%- elif decimal is not none -%}
            {%- set cast = "if(" ~ raw ~ " rlike '[eE]|[.][0-9]{" ~ (decimal.group(1) or 0)
                ~ "}[0-9]*[1-9]', null, try_cast(" ~ raw ~ " as " ~ type ~ "))" -%}
        {%- elif type == 'binary' -%}
            {%- set cast = 'unhex(' ~ raw ~ ')' -%}
        {%- else -%}
            {%- set cast = 'try_cast(' ~ raw ~ ' as ' ~ type ~ ')' -%}
        {%- endif -%}
        {%- do typed.update({name: cast}) -%}
        {#- An update's old key: identity (wal2json writes the new row's key there where the
            key did not change); the new row's key where a line has no identity at all. -#}
        {%- if name in keys -%}
            {%- set old = "case scd2_action when 'U' then if(scd2_has_identity, scd2_old[" ~ text
                ~ "], scd2_new[" ~ text ~ "]) when 'D' then scd2_old[" ~ text ~ "] end" -%}
            {%- do before.update({name: cast | replace(raw, old)}) -%}
        {%- endif -%}
        {%- do unread.append("case when " ~ raw ~ " is not null and " ~ cast ~ " is null then "
            ~ "concat(" ~ text ~ ", ' ', to_json(array(" ~ raw ~ "))) end") -%}
    {%- endfor -%}
    {%- set code = "case scd2_action when 'I' then 'c' when 'U' then 'u' when 'D' then 'd' end" %}
    select
        {%- for name in names %}
        {{ typed[name] }} as {{ scd2_audit._scd2_plain_name(name) }},
        {%- endfor %}
        case
            when scd2_action is null then {{ scd2_audit._scd2_sql_string(
                "a line without wal2json's `action`: format-version 1 (one object per "
                ~ "transaction, its changes in `change`), or a line that is not wal2json's: "
                ~ "have wal2json write format-version=2") }}
            {%- if parts[0] is not none %}
            when scd2_schema is null then {{ scd2_audit._scd2_sql_string(
                "a line of the table without its schema: set wal2json's include-schemas=1 "
                ~ "(its default), or give `table` without a schema") }}
            {%- endif %}
            when scd2_action = 'T' then {{ scd2_audit._scd2_sql_string("T: a TRUNCATE of the "
                ~ "table, which names no rows: apply it by hand, or leave truncates out with "
                ~ "wal2json's actions=insert,update,delete") }}
            {%- if unsent %}
            when concat_ws(', ', {{ unsent | join(', ') }}) != '' then concat({{ code }},
                ': a change without the value of ', concat_ws(', ', {{ unsent | join(', ') }}),
                ' (the line holds: ', coalesce(array_join(map_keys(scd2_new), ', '),
                    array_join(map_keys(scd2_old), ', '), ''),
                {{ scd2_audit._scd2_sql_string("). Name the columns as wal2json writes them, "
                    ~ "case included; an update leaves out its unchanged TOASTed values unless "
                    ~ "the table's REPLICA IDENTITY is FULL: log them at the source, or leave "
                    ~ "the column out of `columns`") }})
            {%- endif %}
            when concat_ws(', ', {{ unread | join(', ') }}) != '' then concat({{ code }},
                ': values that do not read as their column type: ',
                concat_ws(', ', {{ unread | join(', ') }}),
                {{ scd2_audit._scd2_sql_string(" (dates and times in DateStyle ISO, AD; "
                    ~ "decimals within the column's scale; a number in exponent form was "
                    ~ "written bare and rounded by Spark's JSON reader: set wal2json's "
                    ~ "numeric-data-types-as-string=1)") }})
            else {{ code }}
        end as op,
        cast(scd2_timestamp as timestamp) as event_ts,
        cast(conv(concat(split_part(scd2_lsn, '/', 1), lpad(split_part(scd2_lsn, '/', 2), 8, '0')),
            16, 10) as bigint) as event_lsn
        {%- for name in keys %},
        {{ before[name] }} as before_{{ plain_keys[loop.index0] }}
        {%- endfor %}
    from (
        select
            `action` as scd2_action,
            {{ sides['columns'] }} as scd2_new,
            {{ sides['identity'] }} as scd2_old,
            {{ '`identity` is not null' if 'identity' in relation_columns or not execute
                else 'false' }} as scd2_has_identity,
            `timestamp` as scd2_timestamp,
            `lsn` as scd2_lsn{{ ',' if parts[0] is not none }}
            {%- if parts[0] is not none %}
            `schema` as scd2_schema
            {%- endif %}
        from {{ relation }}
        where
            `action` is null
            or `action` in ('I', 'U', 'D', 'T')
            and `table` = {{ scd2_audit._scd2_sql_string(parts[1]) }}
            {%- if parts[0] is not none %}
            and (`schema` = {{ scd2_audit._scd2_sql_string(parts[0]) }} or `schema` is null)
            {%- endif %}
    ) as lines
{%- endmacro %}
