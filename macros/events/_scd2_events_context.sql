{% macro _scd2_events_context(event_columns=none, event_types=none) -%}
    {#-
        The one definition of an scd2_events model's configuration, read from its config and
        validated (docs/events.md), for the model being run:
        - key_columns (unique_key as a list), op (event_op_column), codes (event_op_codes:
          role -> code, roles create, update, delete and read), order_by (event_order_by: the
          event time first, then tie-breakers), old_key_columns (event_old_key_columns, aligned
          with key_columns, or []), old_key_values (the old key columns as SQL of their
          key's type), hard_deletes, on_late ('quarantine' or 'fail'),
          on_malformed ('fail' or 'quarantine'), on_schema_change (dbt's, 'ignore' when
          unset, as dbt's default), quarantine (the quarantine table's relation);
        - columns, audit, events: dbt's, the audit and the event metadata column names;
          high_end: the high-end timestamp as SQL; valid_to_current: dbt_valid_to_current,
          as for snapshots (the open versions' dbt_valid_to), or none;
        - with `event_columns` (the events relation's column names, lower case): value_columns
          (event_value_columns, default every column that is not a key, the operation, an
          ordering or an old-key column), checked against those columns; identity_columns:
          the key, operation, ordering, old-key and value columns in the events' order, which
          make an event what it is (_scd2_events_event_id: two deliveries of one change that
          differ in other columns, a load time or a file name, are one event); with `event_types`
          (lower-case name -> Spark type), the event time must be a timestamp or a date (it
          becomes dbt_valid_from) and no column may hold a map (Spark can neither hash nor
          compare maps, so duplicates and no-ops could not be recognised) or be an untyped
          NULL (void, which Iceberg cannot store); no column may start with scd2_ (the run's
          working columns);
        - added_columns, removed_columns: empty here; a later run on a table whose columns
          differ from the events' sets them (_scd2_events_schema_change).
        Every problem is a compiler error that names the setting and what to write instead.
    -#}
    {%- set name = model.alias or model.name -%}
    {%- set problems = [] -%}

    {%- set keys = scd2_audit._scd2_column_list(config.get('unique_key'))
        | map('lower') | list -%}
    {%- if not keys -%}
        {%- do problems.append("unique_key is required: the column(s) that identify a row, "
            ~ "e.g. unique_key=['id']") -%}
    {%- endif -%}

    {%- set op = (config.get('event_op_column') or 'op') | trim | lower -%}

    {%- set default_codes = {'create': 'c', 'update': 'u', 'delete': 'd', 'read': 'r'} -%}
    {%- set configured_codes = config.get('event_op_codes') or {} -%}
    {%- set codes = {} -%}
    {%- if configured_codes is not mapping -%}
        {%- do problems.append("event_op_codes must be a mapping of create/update/delete/read "
            ~ "to the operation code, e.g. {'create': 'I', 'update': 'U', 'delete': 'D'}; got "
            ~ configured_codes) -%}
    {%- else -%}
        {%- set unknown = configured_codes.keys() | reject('in', default_codes.keys()) | list -%}
        {%- if unknown -%}
            {%- do problems.append("event_op_codes has unknown operation(s) " ~ unknown
                ~ "; they are create, update, delete and read") -%}
        {%- endif -%}
        {%- for role, code in default_codes.items() -%}
            {%- set given = configured_codes.get(role, code) -%}
            {%- if given is none or given | string | trim == '' -%}
                {#- Read as the text 'None', every event of the role was unknown. -#}
                {%- do problems.append("event_op_codes gives " ~ role ~ " no code ("
                    ~ (given if given is none else "'" ~ given ~ "'") ~ "): give its code, or "
                    ~ "leave " ~ role ~ " out for the default '" ~ code ~ "'") -%}
            {%- endif -%}
            {%- do codes.update({role: given | string}) -%}
        {%- endfor -%}
        {%- if codes.values() | unique | list | length != 4 -%}
            {%- do problems.append("event_op_codes gives two operations the same code: "
                ~ codes) -%}
        {%- endif -%}
    {%- endif -%}

    {%- set order_by = scd2_audit._scd2_column_list(config.get('event_order_by'))
        | map('lower') | list -%}
    {%- if not order_by -%}
        {%- do problems.append("event_order_by is required: the event time column, then any "
            ~ "tie-breakers (a log sequence number, an offset), e.g. "
            ~ "event_order_by=['changed_at', 'lsn']") -%}
    {%- endif -%}

    {%- set old_keys = scd2_audit._scd2_column_list(config.get('event_old_key_columns'))
        | map('lower') | list -%}
    {%- if old_keys and old_keys | length != keys | length -%}
        {%- do problems.append("event_old_key_columns must name one column per unique_key "
            ~ "column, in the same order (" ~ keys | length ~ "), got " ~ old_keys) -%}
    {%- endif -%}

    {%- if old_keys and old_keys == keys | map('lower') | list -%}
        {%- do problems.append("event_old_key_columns names the unique_key columns themselves "
            ~ old_keys ~ ": an update's old key is the key it applied to before, in columns "
            ~ "of its own (e.g. Debezium's before.id), so no key change could be seen; name "
            ~ "those columns, or leave the setting out where the events change no key") -%}
    {%- endif -%}
    {%- for setting, names in [('unique_key', keys), ('event_order_by', order_by),
            ('event_old_key_columns', old_keys)] if names | unique | list | length != names | length -%}
        {%- do problems.append(setting ~ " names a column twice: " ~ names) -%}
    {%- endfor -%}

    {%- set hard_deletes = (config.get('hard_deletes') or 'invalidate') | lower -%}
    {%- if hard_deletes not in ['invalidate', 'new_record', 'ignore'] -%}
        {%- do problems.append("hard_deletes must be 'invalidate', 'new_record' or 'ignore', got '"
            ~ hard_deletes ~ "'") -%}
    {%- endif -%}
    {%- set on_late = (config.get('on_late_event') or 'quarantine') | lower -%}
    {%- if on_late not in ['quarantine', 'fail'] -%}
        {%- do problems.append("on_late_event must be 'quarantine' or 'fail', got '"
            ~ on_late ~ "'") -%}
    {%- endif -%}
    {%- set on_malformed = (config.get('on_malformed_event') or 'fail') | lower -%}
    {%- if on_malformed not in ['fail', 'quarantine'] -%}
        {%- do problems.append("on_malformed_event must be 'fail' or 'quarantine', got '"
            ~ on_malformed ~ "'") -%}
    {%- endif -%}
    {%- set quarantine_name = config.get('event_quarantine') or (name ~ '__quarantine') -%}
    {%- if quarantine_name is not string or '.' in quarantine_name or '`' in quarantine_name
            or quarantine_name | trim != quarantine_name -%}
        {#- Checked only when an event was set aside, a schema in it failed there with
            Spark's REQUIRES_SINGLE_PART_NAMESPACE. -#}
        {%- do problems.append("event_quarantine is the quarantine table's name, in the "
            ~ "model's schema (no schema, catalog or quotes): got '" ~ quarantine_name ~ "'") -%}
    {%- else -%}
        {%- set clash = scd2_audit._scd2_events_quarantine_clash(api.Relation.create(
            schema=model.schema, identifier=quarantine_name)) -%}
        {%- if clash -%}
            {%- set other_name = name ~ ('__quarantine' if quarantine_name | lower
                != (name ~ '__quarantine') | lower else '__set_aside') -%}
            {%- do problems.append("the quarantine table " ~ model.schema ~ "."
                ~ quarantine_name ~ " (event_quarantine, default <model>__quarantine) is "
                ~ clash ~ ": the events set aside would go into that table, with columns of "
                ~ "their own. Give the model a quarantine of its own, e.g. "
                ~ "event_quarantine='" ~ other_name ~ "'") -%}
        {%- endif -%}
    {%- endif -%}
    {%- if config.get('event_value_columns') is not none
            and not scd2_audit._scd2_column_list(config.get('event_value_columns')) -%}
        {%- do problems.append("event_value_columns is empty: name the columns a change is "
            ~ "compared on, or leave it unset for every column that is not a key, the "
            ~ "operation, an ordering or an old-key column") -%}
    {%- endif -%}
    {#- Settings of dbt's snapshots that an events model has its own way of saying: set on
        one, they were ignored without a word. -#}
    {%- set snapshot_only = {
        'strategy': 'the events are versions as they come, ordered by event_order_by',
        'check_cols': 'every value column (event_value_columns) is compared',
        'updated_at': 'the event time is the first column of event_order_by',
        'invalidate_hard_deletes': "write hard_deletes='invalidate'",
    } -%}
    {%- for setting in ['partition_by', 'clustered_by', 'buckets']
            if config.get(setting) is not none -%}
        {%- do problems.append(setting ~ " is not read by scd2_events, which partitions the "
            ~ "table by its audit update process id, so that a run reads and rewrites the open "
            ~ "versions alone: remove it") -%}
    {%- endfor -%}
    {#- dbt's incremental setting: 'ignore' (dbt's default) and 'append_new_columns' are this
        materialization's own rules (docs/events.md, "When the events change shape"), 'fail'
        is read by _scd2_events_schema_change. -#}
    {%- set on_schema_change = config.get('on_schema_change') or 'ignore' -%}
    {%- if on_schema_change == 'sync_all_columns' -%}
        {%- do problems.append("on_schema_change='sync_all_columns' would drop the columns the "
            ~ "events no longer have, and their history with them: scd2_events keeps them, "
            ~ "NULL in the versions opened from then on. Set on_schema_change="
            ~ "'append_new_columns' on this model (where a folder's +on_schema_change sets "
            ~ "it), or 'fail' to stop on a change") -%}
    {%- elif on_schema_change not in ['ignore', 'append_new_columns', 'fail'] -%}
        {%- do problems.append("on_schema_change must be 'append_new_columns' (what "
            ~ "scd2_events does unset, or with dbt's default 'ignore') or 'fail', got '"
            ~ on_schema_change ~ "'") -%}
    {%- endif -%}
    {%- if (model['config'].get('contract') or {}).get('enforced') -%}
        {%- do problems.append("contract: {enforced: true} is not read by scd2_events, whose "
            ~ "table holds the events' value columns and the history's own (dbt's, the audit "
            ~ "and the event columns), not the select's: remove it, and check the columns "
            ~ "with data tests") -%}
    {%- endif -%}
    {%- for setting, instead in snapshot_only.items() if config.get(setting) is not none -%}
        {%- do problems.append(setting ~ " is a snapshot setting, which scd2_events does not "
            ~ "read (" ~ instead ~ "): remove it") -%}
    {%- endfor -%}

    {%- set columns = scd2_audit._scd2_events_added_columns(problems) -%}
    {%- set audit = scd2_audit.scd2_audit_column_names() -%}
    {%- set events = scd2_audit.scd2_event_column_names() -%}

    {%- set context = {
        'name': name,
        'key_columns': keys,
        'op': op,
        'codes': codes,
        'order_by': order_by,
        'time_type': (event_types or {}).get(order_by[0]) if order_by else none,
        'old_key_columns': old_keys,
        'hard_deletes': hard_deletes,
        'on_schema_change': on_schema_change,
        'on_late': on_late,
        'on_malformed': on_malformed,
        'quarantine': api.Relation.create(
            schema=model.schema, identifier=quarantine_name, type='table'),
        'columns': columns,
        'audit': audit,
        'events': events,
        'high_end': scd2_audit.scd2_high_end_ts(),
        'valid_to_current': config.get('dbt_valid_to_current'),
        'value_columns': [],
        'identity_columns': [],
        'old_key_values': old_keys,
        'event_columns': event_columns or [],
        'added_columns': {},
        'removed_columns': {},
    } -%}

    {%- if event_columns is not none and not problems -%}
        {%- set roles = keys + [op] + order_by + old_keys -%}
        {%- set missing = roles | reject('in', event_columns) | list -%}
        {%- if missing -%}
            {%- do problems.append("the events have no column(s) " ~ missing
                ~ " (their columns: " ~ event_columns ~ ")") -%}
        {%- endif -%}
        {%- set raw_values = config.get('event_value_columns') -%}
        {%- if raw_values -%}
            {%- set values = scd2_audit._scd2_column_list(raw_values) | map('lower') | list -%}
            {%- if values | unique | list | length != values | length -%}
                {%- do problems.append("event_value_columns names a column twice: " ~ values) -%}
            {%- endif -%}
            {%- set bad = values | reject('in', event_columns) | list -%}
            {%- if bad -%}
                {%- do problems.append("event_value_columns names column(s) " ~ bad
                    ~ " the events do not have") -%}
            {%- endif -%}
            {%- set overlapping = values | select('in', roles) | list -%}
            {%- if overlapping -%}
                {%- do problems.append("event_value_columns may not hold a key, operation, "
                    ~ "ordering or old-key column: " ~ overlapping) -%}
            {%- endif -%}
        {%- else -%}
            {%- set values = event_columns | reject('in', roles) | list -%}
        {%- endif -%}
        {%- set reserved = (columns.values() | map('lower') | list) + (audit.values() | list)
            + (events.values() | list) -%}
        {%- set clashing = (keys + values) | select('in', reserved) | list -%}
        {%- if clashing -%}
            {%- do problems.append("event column(s) " ~ clashing ~ " have the name of a column "
                ~ "the table adds (dbt's, audit or event metadata): rename them in the model's "
                ~ "select") -%}
        {%- endif -%}
        {%- set working = [] -%}
        {%- for column in event_columns if column.startswith('scd2_') -%}
            {%- do working.append(column) -%}
        {%- endfor -%}
        {%- if working -%}
            {%- do problems.append("event column(s) " ~ working ~ " start with scd2_, which "
                ~ "names the run's own working columns (and the quarantine's): rename them in "
                ~ "the model's select") -%}
        {%- endif -%}
        {#- The run's SQL names the columns unquoted (in hundreds of places): a name that
            needs quoting would fail there with Spark's syntax error instead. -#}
        {%- set unplain = [] -%}
        {%- for column in (roles + values) | unique
            if scd2_audit._scd2_plain_name(column) != column -%}
            {%- do unplain.append(column) -%}
        {%- endfor -%}
        {%- if unplain -%}
            {%- set plain = scd2_audit._scd2_plain_name(unplain[0]) -%}
            {%- do problems.append("event column(s) " ~ unplain ~ " are not plain names "
                ~ "(letters, digits and underscores, not starting with a digit, and not true, "
                ~ "false or null, which Spark reads as values), which the run's SQL needs: "
                ~ "rename them in the model's select, e.g. `" ~ unplain[0] | replace('`', '``')
                ~ "` as " ~ plain) -%}
        {%- endif -%}
        {%- set time_type = (event_types or {}).get(order_by[0]) -%}
        {%- if time_type and time_type not in scd2_audit._scd2_validity_types() -%}
            {%- do problems.append("the event time (event_order_by's first column, "
                ~ order_by[0] ~ ") is of type " ~ time_type ~ ": it becomes dbt_valid_from "
                ~ "and orders the events, so it must be a timestamp or a date. Convert it in "
                ~ "the model's select, e.g. to_timestamp(" ~ order_by[0] ~ ") for text or "
                ~ "timestamp_millis(" ~ order_by[0] ~ ") for epoch milliseconds") -%}
        {%- endif -%}
        {%- set maps = [] -%}
        {%- set map_types = [] -%}
        {%- set voids = [] -%}
        {%- for column, type in (event_types or {}).items() -%}
            {%- if scd2_audit._scd2_type_holds(type, 'void') -%}
                {%- do voids.append(column ~ ' (' ~ type ~ ')') -%}
            {%- elif scd2_audit._scd2_type_holds(type, 'map') -%}
                {%- do maps.append(column) -%}
                {%- do map_types.append(column ~ ' (' ~ type ~ ')') -%}
            {%- endif -%}
        {%- endfor -%}
        {%- if voids -%}
            {%- do problems.append("event column(s) " ~ voids | join(', ') ~ " are an untyped "
                ~ "NULL, which Iceberg cannot store: give each a type in the model's select, "
                ~ "e.g. cast(null as string) as " ~ voids[0].split(' ')[0]) -%}
        {%- endif -%}
        {%- if maps -%}
            {%- do problems.append("event column(s) " ~ map_types | join(', ') ~ " hold a map, "
                ~ "which Spark can neither hash nor compare, so duplicate and no-op events "
                ~ "could not be recognised: turn each into a comparable value in the model's "
                ~ "select, e.g. array_sort(map_entries(" ~ maps[0] ~ ")) as " ~ maps[0]) -%}
        {%- endif -%}
        {#- An old key is compared with, and becomes, a key: of the key's type, or of one
            the key's type holds (then cast). -#}
        {%- set old_key_values = [] -%}
        {%- for old in old_keys -%}
            {%- set key_type = (event_types or {}).get(keys[loop.index0]) -%}
            {%- set old_type = (event_types or {}).get(old) -%}
            {%- set verdict = scd2_audit._scd2_type_change(key_type, old_type)
                if key_type and old_type else 'same' -%}
            {%- if verdict == 'same' -%}
                {%- do old_key_values.append(old) -%}
            {%- elif verdict == 'fits' -%}
                {%- do old_key_values.append('cast(' ~ old ~ ' as ' ~ key_type ~ ')') -%}
            {%- else -%}
                {%- do problems.append("event_old_key_columns: " ~ old ~ " is " ~ old_type
                    ~ " but the key column it stands for, " ~ keys[loop.index0] ~ ", is "
                    ~ key_type ~ ": cast one to the other's type in the model's select, e.g. "
                    ~ "cast(" ~ old ~ " as " ~ key_type ~ ") as " ~ old) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- do context.update({
            'old_key_values': old_key_values,
            'value_columns': values,
            'identity_columns': event_columns | select('in', roles + values) | list,
        }) -%}
    {%- endif -%}

    {%- if problems and execute -%}
        {{ exceptions.raise_compiler_error(
            "scd2_events model " ~ name ~ ": " ~ problems | join('; ')
            ~ ". See docs/events.md for the settings.") }}
    {%- endif -%}
    {{ return(context) }}
{%- endmacro %}
