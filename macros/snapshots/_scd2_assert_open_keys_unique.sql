{% macro _scd2_assert_open_keys_unique(relation, table_columns, properties, where) -%}
    {#-
        Before a later run reads the table `relation`: its open versions must be unique under
        the unique_key configured now. dbt's staging joins the source with the open versions
        on the key, so a key with two open versions meets the source's one row twice: a key
        narrowed in the config (['id', 'name'] to 'id', where id 1 had open versions a and b)
        closed both and opened id 1 twice, without a word, and every later run kept two open
        versions of it. Neither dbt nor Iceberg records a snapshot's key, so the table does
        (_scd2_unique_key_property, in `properties`: _scd2_table_properties): a run under the
        recorded key reads nothing more. A run under another key, or on a table that records
        none (built before the property, or by stock dbt), counts the open versions per key
        once (the open partition alone where the table has it: `table_columns`; keys with a
        NULL part left out, as dbt's join matches none of them); none twice, the key is
        recorded (the caller, from what this returns: true when the table's record must be
        written; before a MERGE, as the versions are unique under it before and after, so
        that a run killed after its MERGE leaves no stale record). Keys are grouped as
        Spark's join compares them (-0.0 is 0.0), and cast to text for the message alone.
        `where` starts the message.
    -#}
    {%- set key = scd2_audit._scd2_unique_key_property() -%}
    {%- set recorded = properties.get(key.name) -%}
    {%- if not execute or recorded == key.value -%}{{ return(false) }}{%- endif -%}
    {%- set ctx = scd2_audit._scd2_snapshot_context() -%}
    {%- set partitioned = ctx.audit.update_process_id | lower
        in table_columns | map('lower') | list -%}
    {%- set keys = ctx.key_columns -%}
    {#- The open versions counted, in the query and in the one the message suggests. -#}
    {%- set counted = scd2_audit._scd2_open_version_sql(none, partitioned) ~ ' and '
        ~ keys | join(' is not null and ') ~ ' is not null' -%}
    {%- set query -%}
        select
            {%- for entry in keys %}
            cast({{ entry }} as string) as scd2_key_{{ loop.index }},
            {%- endfor %}
            count(*) as scd2_open_versions
        from {{ relation }}
        where {{ counted }}
        group by {{ keys | join(', ') }}
        having count(*) > 1
        limit 1
    {%- endset -%}
    {%- set rows = run_query(query).rows -%}
    {%- if rows -%}
        {%- set row = rows[0] -%}
        {%- set shown = [] -%}
        {%- for entry in keys -%}
            {%- do shown.append(entry ~ ' = ' ~ (row[loop.index0] if row[loop.index0] is not none
                else 'null')) -%}
        {%- endfor -%}
        {%- set recorded_entries = fromjson(recorded) if recorded else none -%}
        {{ exceptions.raise_compiler_error(
            where ~ "the table " ~ relation ~ " has " ~ row[keys | length] ~ " open versions "
            ~ "of " ~ shown | join(' and ') ~ " under unique_key " ~ key.entries ~ " ("
            ~ ("the table was built with unique_key " ~ recorded_entries if recorded_entries
                else "the table does not record the key it was built with: was unique_key "
                ~ "changed?") ~ "). dbt's staging meets each open version of a key with the "
            ~ "source's row of that key, so this run would leave the key open twice or more. "
            ~ "Nothing was written. Set unique_key back; or snapshot into a new table; "
            ~ "or, if each key has one current row under the new key, first close all but one "
            ~ "open version of each such key (list them: select " ~ keys | join(', ')
            ~ ", count(*) from " ~ relation ~ " where " ~ counted ~ " group by all having "
            ~ "count(*) > 1).") }}
    {%- endif -%}
    {{ return(true) }}
{%- endmacro %}
