{% macro _scd2_assert_table_marks(
    relation, table_columns, ctx, where, partition_columns=[], query_columns=[]
) -%}
    {#-
        Before a run reads or writes an existing snapshot or scd2_events table: the table
        must mark its versions as this run's settings would, or the run mixes two markings
        and later runs misread the history. Three settings can change after a table is
        built, and none is stored in it:
        - scd2_audit_column_names: a run under new names found none of them and added them
          all as new columns, NULL in the versions already there, and wrote the old columns
          no more. A table that has some of the configured audit columns and lacks others
          fails here. A table with none of them is one built without them (by stock dbt),
          which the run upgrades (_scd2_schema_change), unless it is partitioned by one
          column that is neither the query's (`query_columns`) nor dbt's: a snapshot table
          this project built is partitioned by its update_process_id column
          (_scd2_snapshot_layout), so that is one built under other names.
        - dbt_valid_to_current: dbt finds the open versions by comparing dbt_valid_to with
          it, and leaves the versions already there as they are (dbt's docs: "dbt will not
          automatically adjust the current value"). Set on a table built without it, the
          versions already open keep NULL, which dbt still reads as open. Changed to another
          value, or unset, the open versions matched nothing: the run took every key for new
          and opened it again, two open versions each, and closed no deleted key. The
          feature's own issue asked for this error (dbt-labs/dbt-core#10187: "the existing
          snapshot must be updated before we can proceed"); dbt does not raise it.
        - scd2_high_end_ts: new open versions got the new high end beside open versions with
          the old one, so `effective_end_ts = <high end>` no longer found every open version.
        Checked on the open partition (audit update_process_id NULL) among versions this
        project wrote (insert_process_id set: versions stock dbt wrote before an upgrade have
        no metadata), with range predicates that Iceberg's column bounds answer without
        reading the data files when nothing is wrong.
        A version in the open partition with a closed version's marks (its effective end
        is its dbt_valid_to, both other than an open version's), beside open versions with
        another end, is none a changed setting gives: it was changed outside the runs (a
        closed version whose update_process_id was lost, by hand or a tool). The message
        says so, where the update proposed for a changed setting reopened such a version (a
        deleted key came back).
        `table_columns`: the table's column names; `ctx`: _scd2_snapshot_context or
        _scd2_events_context; `where`: how the message starts ("Snapshot 'x': ").
    -#}
    {%- if not execute -%}{{ return(none) }}{%- endif -%}
    {%- set present = table_columns | map('lower') | list -%}
    {%- set configured = ctx.audit.values() | map('lower') | list -%}
    {%- set found = configured | select('in', present) | list -%}
    {%- set own = (query_columns | map('lower') | list)
        + (ctx.columns.values() | map('trim') | map('lower') | list) -%}
    {%- if not found and partition_columns | length == 1
            and partition_columns[0] | lower not in own
            and partition_columns[0] | lower in present -%}
        {{ exceptions.raise_compiler_error(
            where ~ "the table " ~ relation ~ " has none of the audit columns "
            ~ "scd2_audit_column_names names now (" ~ configured | join(', ') ~ ") and is "
            ~ "partitioned by " ~ partition_columns[0] ~ ", which is neither a column of the "
            ~ "query nor one of dbt's: this project built it under other audit column names "
            ~ "(it partitions by the update_process_id column). Nothing was written. Set "
            ~ "scd2_audit_column_names back (dbt_project.yml vars, or --vars), or rename the "
            ~ "table's columns to match (alter table " ~ relation ~ " rename column <old> to "
            ~ "<new>).") }}
    {%- endif -%}
    {%- if not found -%}{{ return(none) }}{%- endif -%}
    {%- set missing = configured | reject('in', present) | list -%}
    {%- if missing -%}
        {{ exceptions.raise_compiler_error(
            where ~ "the table " ~ relation ~ " has the audit columns " ~ found | join(', ')
            ~ " but not " ~ missing | join(', ') ~ ", which scd2_audit_column_names names now: "
            ~ "were they renamed after the table was built? Nothing was written. Set "
            ~ "scd2_audit_column_names back (dbt_project.yml vars, or --vars), or rename the "
            ~ "table's columns to match (alter table " ~ relation ~ " rename column <old> to "
            ~ "<new>).") }}
    {%- endif -%}
    {%- set audit = ctx.audit -%}
    {%- set valid_to = ctx.columns.dbt_valid_to | trim -%}
    {%- set end = audit.effective_end_ts -%}
    {%- set current = ctx.valid_to_current -%}
    {#- `x < v or x > v` rather than `x <> v`: Iceberg skips a file whose bounds are both v. -#}
    {%- set query -%}
        select
            cast({{ valid_to }} as string) as scd2_valid_to,
            cast({{ end }} as string) as scd2_end,
            {% if current -%}
            ({{ valid_to }} < {{ current }} or {{ valid_to }} > {{ current }})
            {%- else -%}
            {{ valid_to }} is not null
            {%- endif %} as scd2_wrong_valid_to,
            cast({{ ctx.high_end }} as string) as scd2_high_end,
            {% if current -%}
            cast({{ current }} as string)
            {%- else -%}
            cast(null as string)
            {%- endif %} as scd2_current,
            current_timezone() as scd2_zone,
            typeof({{ valid_to }}) as scd2_valid_to_type
        from {{ relation }}
        where
            {{ audit.update_process_id }} is null
            and {{ audit.insert_process_id }} is not null
            and (
                {% if current -%}
                {{ valid_to }} < {{ current }} or {{ valid_to }} > {{ current }}
                {%- else -%}
                {{ valid_to }} is not null
                {%- endif %}
                or {{ end }} < {{ ctx.high_end }}
                or {{ end }} > {{ ctx.high_end }}
            )
        limit 1
    {%- endset -%}
    {%- set rows = run_query(query).rows -%}
    {%- if not rows -%}{{ return(none) }}{%- endif -%}
    {%- set row = rows[0] -%}
    {%- set open = audit.update_process_id ~ ' is null' -%}
    {#- A closed version's marks: both other than an open version's, its end its
        dbt_valid_to as an instant, and the open partition's ends not all one: a changed
        setting leaves one of an open version's marks as the settings give it, or both at
        their old values, one end for every open version (the old dbt_valid_to_current may
        be the old high end, as `to_timestamp('9999-12-31 23:59:59Z')` is). -#}
    {%- set closed_like = (valid_to ~ ' <> ' ~ current if current
        else valid_to ~ ' is not null') ~ ' and ' ~ end ~ ' <> ' ~ ctx.high_end ~ ' and '
        ~ end ~ ' = ' ~ scd2_audit._scd2_utc_instant_sql(valid_to, row[6]) -%}
    {%- set counted = run_query(
        'select count_if(' ~ closed_like ~ '), count(distinct ' ~ end ~ ') from ' ~ relation
        ~ ' where ' ~ open ~ ' and ' ~ audit.insert_process_id ~ ' is not null').rows[0] -%}
    {%- if counted[0] and counted[1] > 1 -%}
        {{ exceptions.raise_compiler_error(
            where ~ "the table " ~ relation ~ " has " ~ counted[0] ~ " closed version(s) in its "
            ~ "open partition (" ~ open ~ "): " ~ valid_to ~ " set and " ~ end ~ " equal to it, "
            ~ "where open versions keep the high end. No setting changes that: they were "
            ~ "changed outside the runs, e.g. their " ~ audit.update_process_id ~ " was lost. "
            ~ "Nothing was written. List them (select * from " ~ relation ~ " where " ~ open
            ~ " and " ~ closed_like ~ ") and restore them from the table's history (Iceberg "
            ~ "time travel: select ... from " ~ relation ~ " version as of <snapshot_id>, the "
            ~ "ids in " ~ relation ~ ".snapshots), or roll the table back "
            ~ "(docs/reliability.md).") }}
    {%- endif -%}
    {%- if row[2] -%}
        {#- A timestamp written without its zone is read in the session's: the same setting
            names another instant in a session of another zone. A timestamp_ntz or a date
            does not depend on the zone. -#}
        {{ exceptions.raise_compiler_error(
            where ~ "the table " ~ relation ~ " has open versions with " ~ valid_to ~ " = "
            ~ row[0] ~ ", but dbt_valid_to_current is "
            ~ (current ~ " (" ~ row[4] ~ ")" if current else "not set (NULL)")
            ~ " now. dbt finds the open versions by that value and leaves the ones already "
            ~ "there as they are, so this run would take every key for new and open it "
            ~ "again. Nothing was written."
            ~ (" If the setting did not change, the session's time zone (" ~ row[5] ~ ") did: "
                ~ "a timestamp written without a zone is read in it. Write the zone, e.g. "
                ~ "\"to_timestamp('9999-12-31 23:59:59Z')\", and move the open versions to "
                ~ "it as below." if current and row[6] == 'timestamp' else "")
            ~ " Set dbt_valid_to_current back, or first move the "
            ~ "open versions to the new value: update " ~ relation ~ " set " ~ valid_to ~ " = "
            ~ (current if current else "null") ~ " where " ~ open ~ " and " ~ valid_to
            ~ " = '" ~ row[0] ~ "'.") }}
    {%- endif -%}
    {{ exceptions.raise_compiler_error(
        where ~ "the table " ~ relation ~ " has open versions with " ~ end ~ " = " ~ row[1]
        ~ ", but scd2_high_end_ts is " ~ row[3] ~ " now: new open versions would end "
        ~ "at another high end than those already there. Nothing was written. Set "
        ~ "scd2_high_end_ts back (dbt_project.yml vars, or --vars), or first move the open "
        ~ "versions to the new high end: update " ~ relation ~ " set " ~ end ~ " = "
        ~ ctx.high_end ~ " where " ~ open ~ " and " ~ end ~ " = '" ~ row[1] ~ "'.") }}
{%- endmacro %}
