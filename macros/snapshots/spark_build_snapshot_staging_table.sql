{% macro spark_build_snapshot_staging_table(strategy, sql, target_relation) %}
    {#-
        dbt-spark's spark_build_snapshot_staging_table (dbt-spark 1.11), except that the
        staging view's name is unique to the run: `<snapshot>__dbt_tmp_<invocation id>`.
        dbt-spark names it `<snapshot>__dbt_tmp` and drops it only after a successful merge.
        A run that fails or is killed in the merge leaves it behind, and the next run's
        `create or replace view` then does not replace it: through Iceberg's session catalog
        the metastore keeps the old view text (https://github.com/apache/iceberg/issues/15490),
        so the next run merged the dead run's staging query, with the dead run's process id.
        A per-run name also keeps two concurrent runs (or same-named snapshots in two schemas,
        which share the schema-less view for Iceberg) from using each other's staging view.
    -#}
    {% set tmp_identifier = target_relation.identifier ~ '__dbt_tmp_'
        ~ invocation_id | replace('-', '') %}

    {% if target_relation.is_iceberg %}
      {# iceberg catalog does not support create view, but regular spark does. We removed the catalog and schema #}
      {%- set tmp_relation = api.Relation.create(identifier=tmp_identifier,
                                                    schema=none,
                                                    database=none,
                                                    type='view') -%}
    {% else %}
      {%- set tmp_relation = api.Relation.create(identifier=tmp_identifier,
                                                    schema=target_relation.schema,
                                                    database=none,
                                                    type='view') -%}
    {% endif %}

    {% set select = snapshot_staging_table(strategy, sql, target_relation) %}

    {# needs to be a non-temp view so that its columns can be ascertained via `describe` #}
    {% call statement('build_snapshot_staging_relation') %}
        {{ create_view_as(tmp_relation, select) }}
    {% endcall %}

    {% do return(tmp_relation) %}
{% endmacro %}
