{% macro _scd2_events_drop_views(views) -%}
    {#- Drop an scd2_events run's temporary views, last made first. Dropping a cached one
        uncaches it (Spark's DropTableCommand), so no `uncache table` goes before. -#}
    {%- for view in views | reverse -%}
        {% do scd2_audit._scd2_run_sql('drop view if exists ' ~ view) %}
    {%- endfor -%}
{%- endmacro %}
