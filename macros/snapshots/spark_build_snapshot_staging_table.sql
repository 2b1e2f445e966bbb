{% macro spark_build_snapshot_staging_table(strategy, sql, target_relation) %}
    {#-
        dbt-spark's spark_build_snapshot_staging_table (dbt-spark 1.11), except that the
        staging view's name is unique to the run and the snapshot:
        `<snapshot>__dbt_tmp_<hash of its schema and name>_<invocation id>` (`_scd2_run_view_name`).
        dbt-spark names it `<snapshot>__dbt_tmp` and drops it only after a successful merge.
        A run that fails or is killed in the merge leaves it behind, and the next run's
        `create or replace view` then does not replace it: through Iceberg's session catalog
        the metastore keeps the old view text (https://github.com/apache/iceberg/issues/15490),
        so the next run merged the dead run's staging query, with the dead run's process id.
        Such a name also keeps two concurrent runs (or snapshots of one name, an alias, in two
        schemas, which would share the schema-less view for Iceberg) from using each other's
        staging view.
        For Iceberg the view is also temporary (below).
    -#}
    {% set tmp_identifier = scd2_audit._scd2_run_view_name(target_relation, 'dbt_tmp') %}

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

    {#- Iceberg: a temporary view (dbt-spark: a view in the current database). Spark describes
        temporary views as well, and a session's view costs no metastore write to create or to
        drop, cannot collide with another session's, and cannot outlive a failed run's session
        in the metastore. Delta and Hudi keep dbt-spark's view in the snapshot's schema. -#}
    {% call statement('build_snapshot_staging_relation') %}
        {%- if target_relation.is_iceberg %}
        {{ create_temporary_view(tmp_relation, select) }}
        {%- else %}
        {{ create_view_as(tmp_relation, select) }}
        {%- endif %}
    {% endcall %}

    {% do return(tmp_relation) %}
{% endmacro %}
