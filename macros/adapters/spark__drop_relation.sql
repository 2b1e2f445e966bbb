{% macro spark__drop_relation(relation) -%}
    {#-
        Iceberg tables in the session catalog (SparkSessionCatalog over a Hive metastore) need
        `purge`: a plain `drop table` removes the metastore entry but leaves the data and
        metadata files, so re-creating the table (re-running `dbt seed`, a full refresh) fails
        with LOCATION_ALREADY_EXISTS. Other formats keep dbt-spark's plain drop.
        Upstream: dbt-spark's spark__drop_relation always issues the plain form
        (https://github.com/dbt-labs/dbt-adapters/issues/489 is the detection half).
    -#}
    {% call statement('drop_relation', auto_begin=False) -%}
        drop {{ relation.type }} if exists {{ relation }}
        {%- if relation.is_iceberg and relation.type == 'table' %} purge{% endif %}
    {%- endcall %}
{% endmacro %}
