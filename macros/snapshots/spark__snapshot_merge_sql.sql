{% macro spark__snapshot_merge_sql(target, source, insert_cols) -%}
    {#-
        dbt-spark's spark__snapshot_merge_sql (dbt-spark 1.11), plus three things:
        - when a version is closed, the closing run's metadata (update process id, update
          timestamp, effective end) is copied from the staging row, exactly as dbt copies
          dbt_valid_to. Inserted rows bring their metadata through `insert *`;
        - the match is limited to the open partition (audit update_process_id is null, see
          _scd2_snapshot_layout), so that Iceberg prunes the closed history instead of joining
          it on every run. Only open versions can be closed, and a staged insert never has a
          closed version's dbt_scd_id (spark__snapshot_staging_table gives a key that comes
          back with a closed version's id an id of its own, where dbt's MERGE skipped it);
        - the match is on the key too (_scd2_merge_key_sql): dbt_scd_id alone is not unique
          across keys.
        The staging view is referenced by name alone for Iceberg (dbt-spark creates it without
        catalog or schema there) and fully qualified otherwise (Delta, Hudi): keep both forms.
    -#}
    {%- set columns = config.get("snapshot_table_column_names")
        or get_snapshot_table_column_names() -%}
    {%- set audit = scd2_audit.scd2_audit_column_names() -%}

    merge into {{ target }} as DBT_INTERNAL_DEST
    {% if target.is_iceberg %}
      {# create view only supports a name (no catalog, or schema) #}
      using {{ source.identifier }} as DBT_INTERNAL_SOURCE
    {% else %}
      using {{ source }} as DBT_INTERNAL_SOURCE
    {% endif %}
    on DBT_INTERNAL_SOURCE.{{ columns.dbt_scd_id }} = DBT_INTERNAL_DEST.{{ columns.dbt_scd_id }}
        and DBT_INTERNAL_DEST.{{ audit.update_process_id }} is null
        {%- set key_match = scd2_audit._scd2_merge_key_sql(
            'DBT_INTERNAL_SOURCE', 'DBT_INTERNAL_DEST') %}
        {%- if key_match %}
        and {{ key_match }}
        {%- endif %}
    when matched
     {% if config.get("dbt_valid_to_current") %}
       and ( DBT_INTERNAL_DEST.{{ columns.dbt_valid_to }} = {{ config.get('dbt_valid_to_current') }} or
             DBT_INTERNAL_DEST.{{ columns.dbt_valid_to }} is null )
     {% else %}
       and DBT_INTERNAL_DEST.{{ columns.dbt_valid_to }} is null
     {% endif %}
     and DBT_INTERNAL_SOURCE.dbt_change_type in ('update', 'delete')
        then update
        set {% for column in scd2_audit._scd2_closing_columns() -%}
            {{ column }} = DBT_INTERNAL_SOURCE.{{ column }}{{ ',' if not loop.last }}
            {% endfor %}

    when not matched
     and DBT_INTERNAL_SOURCE.dbt_change_type = 'insert'
        then insert *
    ;
{% endmacro %}
