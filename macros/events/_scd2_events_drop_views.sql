{% macro _scd2_events_drop_views(views, cached) -%}
    {#- Uncache and drop an scd2_events run's temporary views, last made first. -#}
    {%- for view in views | reverse -%}
        {%- if view in cached -%}
            {% do scd2_audit._scd2_run_sql('uncache table if exists ' ~ view) %}
        {%- endif -%}
        {% do scd2_audit._scd2_run_sql('drop view if exists ' ~ view) %}
    {%- endfor -%}
{%- endmacro %}
