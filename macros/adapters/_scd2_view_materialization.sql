{% macro _scd2_view_materialization() %}
    {#-
        dbt-spark's view materialization (create_or_replace_view()), plus one thing: an existing
        view is dropped first. Through Iceberg's SparkSessionCatalog over a Hive metastore,
        views are Iceberg views (table_type=ICEBERG-VIEW), and `create or replace view` writes
        the new version into the Iceberg metadata but leaves the old SQL text in the
        metastore, which is what Spark reads back: the view keeps its first definition (a new
        var, a new column, a changed model never show) or fails with
        INCOMPATIBLE_VIEW_SCHEMA_CHANGE. Drop + create stores the new text.
        Upstream: https://github.com/apache/iceberg/pull/15490 (Iceberg 1.10.2 has the bug).
        Before the drop, the new query is analysed as a temporary view of the session: a
        query Spark cannot resolve (a column or table that is gone, a syntax error) fails
        there, and the existing view stays as it was, as dbt-spark's `create or replace`
        leaves it. Without that, a failed run had dropped the view, and everything reading it
        failed until the model was fixed. The view is missing only for the moment between
        the drop and the create.
    -#}
    {%- do scd2_audit._scd2_assert_demo_at_home("Model '" ~ model['name'] ~ "'") -%}
    {%- do scd2_audit._scd2_assert_dispatch("Model '" ~ model['name'] ~ "'") -%}
    {%- set existing = adapter.get_relation(
        database=database, schema=schema, identifier=model['alias']) -%}
    {%- if existing is not none and existing.is_view -%}
        {%- set probe = scd2_audit._scd2_run_view_name(existing, 'view') -%}
        {% call statement('scd2_view_query_check') -%}
            create or replace temporary view {{ probe }} as
            {{ sql }}
        {%- endcall %}
        {% call statement('scd2_view_query_check_drop') -%}
            drop view if exists {{ probe }}
        {%- endcall %}
        {% do adapter.drop_relation(existing) %}
    {%- endif -%}
    {{ return(create_or_replace_view()) }}
{% endmacro %}
