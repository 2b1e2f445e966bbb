{% macro _scd2_create_snapshot_table_sql(
    relation, select_sql, managed=true, kept=none, record_key=false
) -%}
    {#-
        `create or replace table` of an Iceberg snapshot table in the layout of
        _scd2_snapshot_layout, from `select_sql`: dbt-spark's spark__create_table_as for
        Iceberg, with the partitioning and the write properties below added. Used for the
        first run, and for a run that rewrites the table in one commit (new or wider columns,
        or a table built before this layout: Iceberg replaces it and keeps its snapshot
        history). managed=false (a snapshot whose layout this project does not manage, see
        _scd2_snapshot_layout): dbt-spark's create_table_as, as stock dbt-spark builds it.
        Write properties (the snapshot's own tblproperties win; `kept`: the properties of the
        table a rewrite replaces, _scd2_table_properties, whose values of these win over the
        defaults: Iceberg's replace keeps a property it is not given, and a value set by hand,
        such as write.distribution-mode 'hash', was reset to 'none'):
        - write.distribution-mode / write.merge.distribution-mode 'none': Iceberg's default
          for a partitioned table shuffles the rows of a write by partition, and nearly all of
          a run's rows fall in one (the open versions), so one task wrote them all;
        - write.spark.fanout.enabled: with no shuffle, each task writes the few partitions it
          meets without sorting its rows first.
        record_key (snapshots): the unique_key the versions written are unique under
        (_scd2_unique_key_property), in the same commit.
    -#}
    {%- if not managed -%}
        {{ return(create_table_as(False, relation, select_sql)) }}
    {%- endif -%}
    {%- set audit = scd2_audit.scd2_audit_column_names() -%}
    {%- set properties = {
        'write.distribution-mode': 'none',
        'write.merge.distribution-mode': 'none',
        'write.update.distribution-mode': 'none',
        'write.spark.fanout.enabled': 'true',
    } -%}
    {%- for key in properties.keys() | list if key in (kept or {}) -%}
        {%- do properties.update({key: kept[key]}) -%}
    {%- endfor -%}
    {%- do properties.update(config.get('tblproperties') or {}) -%}
    {%- if record_key -%}
        {%- set key = scd2_audit._scd2_unique_key_property() -%}
        {%- do properties.update({key.name: key.value}) -%}
    {%- endif -%}
    create or replace table {{ relation }}
    using iceberg
    partitioned by ({{ audit.update_process_id }})
    {{ location_clause() }}
    {{ comment_clause() }}
    tblproperties (
        {%- for key, value in properties.items() %}
        {{ scd2_audit._scd2_sql_string(key) }} = {{ scd2_audit._scd2_sql_string(value) -}}
        {{ ',' if not loop.last }}
        {%- endfor %}
    )
    as
    {{ select_sql }}
{%- endmacro %}
