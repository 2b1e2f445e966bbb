{% macro spark__drop_relation(relation) -%}
    {#-
        Tables in the session catalog (Iceberg's SparkSessionCatalog over a Hive metastore)
        need `purge`: a plain `drop table` goes to Iceberg's Hive catalog first, which drops
        any table's metastore entry without its files, Iceberg or not. Re-creating the table
        (re-running `dbt seed`, a full refresh, a second `dbt test --store-failures`, a
        `table` model without file_format) then fails with LOCATION_ALREADY_EXISTS. With
        `purge`, Iceberg deletes an Iceberg table's files and Spark's own catalog a managed
        table's; an external table's files stay, as Hive keeps them. Views have no files.
        Upstream: dbt-spark's spark__drop_relation always issues the plain form
        (https://github.com/dbt-labs/dbt-adapters/issues/489 is the detection half).
    -#}
    {% call statement('drop_relation', auto_begin=False) -%}
        drop {{ relation.type }} if exists {{ relation }}
        {%- if relation.type == 'table' %} purge{% endif %}
    {%- endcall %}
{% endmacro %}
