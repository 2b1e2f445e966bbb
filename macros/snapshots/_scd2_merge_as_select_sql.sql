{% macro _scd2_merge_as_select_sql(target_relation, staging_relation, schema_change) -%}
    {#-
        The whole snapshot table after this run's MERGE (spark__snapshot_merge_sql), as one
        select, for a run that must also change the table's columns: `create or replace
        table ... as` this select then changes the schema and writes the run's versions in a
        single Iceberg commit, so that a run that fails writes nothing, not even a column
        (dbt adds the columns with `alter table` first, then merges).
        It reproduces the MERGE clause by clause:
        - `when matched ... then update`: a version in the open partition and open, whose
          dbt_scd_id and key (_scd2_merge_key_sql) a staged 'update' or 'delete' row has,
          takes that row's closing columns (dbt_valid_to and the audit update columns);
        - `when not matched ... then insert *`: a staged 'insert' row whose dbt_scd_id and
          key no version in the open partition has is added;
        - every other version is kept as it is.
        Columns: the table's, in its order, with the types _scd2_schema_change widened, then
        the added ones (NULL in the versions already there).
    -#}
    {%- set columns = config.get('snapshot_table_column_names')
        or get_snapshot_table_column_names() -%}
    {%- set audit = scd2_audit.scd2_audit_column_names() -%}
    {%- set closing = scd2_audit._scd2_closing_columns() | map('lower') | list -%}
    {%- set staged_types = {} -%}
    {%- for col in schema_change.staging_columns -%}
        {%- do staged_types.update({col.name | lower: col.dtype}) -%}
    {%- endfor -%}
    {%- set target_columns = schema_change.target_columns -%}
    {%- set valid_to_types = [] -%}
    {%- for col in target_columns if col.name | lower == columns.dbt_valid_to | lower -%}
        {%- do valid_to_types.append(col.dtype) -%}
    {%- endfor -%}
    {%- set valid_to_type = (valid_to_types or [none])[0] -%}
    {%- set has_process_id = (audit.update_process_id | lower)
        in (target_columns | map(attribute='name') | map('lower') | list) -%}
    {%- set outputs = [] -%}
    {%- for col in target_columns -%}
        {%- do outputs.append({
            'name': adapter.quote(col.name),
            'lower': col.name | lower,
            'type': schema_change.widened.get(col.name | lower, col.dtype),
            'widened': (col.name | lower) in schema_change.widened,
            'added': false,
        }) -%}
    {%- endfor -%}
    {%- for col in schema_change.added -%}
        {%- do outputs.append({
            'name': adapter.quote(col.name),
            'lower': col.name | lower,
            'type': col.dtype,
            'widened': false,
            'added': true,
        }) -%}
    {%- endfor -%}
    {%- set scd_id = columns.dbt_scd_id -%}
    {%- set key_match = scd2_audit._scd2_merge_key_sql('closing_rows', 'snapshot_table') -%}

    with snapshot_table as (

        select * from {{ target_relation }}

    ),

    staged as (

        select * from {{ staging_relation }}

    ),

    closing_rows as (

        select * from staged
        where dbt_change_type in ('update', 'delete')

    ),

    kept_versions as (

        select
            {%- for col in outputs %}
            {#- Added columns are NULL in the versions already there, except the closing
                metadata of the versions this run closes (a table built by stock dbt gets the
                audit columns on this run), and the effective range, which dbt's own columns
                give: without it, scd2_as_of left out every version the stock runs wrote. Who
                wrote them and when stays NULL, unknown, but for the versions stock runs
                closed, whose update process id (_scd2_unknown_process_id) takes them out of
                the open partition. -#}
            {%- if col.added and col.lower == audit.effective_start_ts | lower -%}
                {%- set value = 'cast(snapshot_table.' ~ columns.dbt_valid_from ~ ' as '
                    ~ col.type ~ ')' -%}
            {%- elif col.added and col.lower == audit.effective_end_ts | lower -%}
                {%- set value = 'if(' ~ scd2_audit._scd2_open_version_sql('snapshot_table', false)
                    ~ ', ' ~ scd2_audit.scd2_high_end_ts() ~ ', '
                    ~ scd2_audit._scd2_utc_instant_sql('snapshot_table.' ~ columns.dbt_valid_to,
                        valid_to_type) ~ ')' -%}
            {%- elif col.added and col.lower == audit.update_process_id | lower -%}
                {%- set value = 'if(' ~ scd2_audit._scd2_open_version_sql('snapshot_table', false)
                    ~ ', cast(null as ' ~ col.type ~ '), '
                    ~ scd2_audit._scd2_unknown_process_id() ~ ')' -%}
            {%- elif col.added -%}
                {%- set value = 'cast(null as ' ~ col.type ~ ')' -%}
            {%- else -%}
                {%- set value = 'snapshot_table.' ~ col.name -%}
            {%- endif -%}
            {%- if col.lower in closing -%}
                {%- set value = 'if(closing_rows.' ~ scd_id ~ ' is null, ' ~ value
                    ~ ', closing_rows.' ~ col.name ~ ')' -%}
            {%- endif %}
            {% if col.widened %}cast({{ value }} as {{ col.type }})
            {%- else %}{{ value }}
            {%- endif %} as {{ col.name }}{{ ',' if not loop.last }}
            {%- endfor %}
        from snapshot_table
        left join closing_rows
            on closing_rows.{{ scd_id }} = snapshot_table.{{ scd_id }}
            and {{ scd2_audit._scd2_open_version_sql('snapshot_table', has_process_id) }}
            {%- if key_match %}
            and {{ key_match }}
            {%- endif %}

    ),

    inserted_versions as (

        select
            {%- for col in outputs %}
            {%- if col.lower in staged_types %}
            {%- set same = staged_types[col.lower] | lower | replace(' ', '')
                == col.type | lower | replace(' ', '') %}
            {% if same %}staged.{{ col.name }}
            {%- else %}cast(staged.{{ col.name }} as {{ col.type }})
            {%- endif %} as {{ col.name }}
            {%- else %}
            cast(null as {{ col.type }}) as {{ col.name }}
            {%- endif %}{{ ',' if not loop.last }}
            {%- endfor %}
        from staged
        left anti join snapshot_table
            on snapshot_table.{{ scd_id }} = staged.{{ scd_id }}
            {%- if key_match %}
            and {{ scd2_audit._scd2_merge_key_sql('staged', 'snapshot_table') }}
            {%- endif %}
            {%- if has_process_id %}
            and snapshot_table.{{ audit.update_process_id }} is null
            {%- endif %}
        where staged.dbt_change_type = 'insert'

    )

    select * from kept_versions
    union all
    select * from inserted_versions
{%- endmacro %}
