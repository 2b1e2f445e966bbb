{#- The body is _scd2_events_materialization: a macro, so that sqlfluff lints it (its jinja
    templater does not know dbt's materialization tag, so this file is in .sqlfluffignore). -#}
{% materialization scd2_events, adapter='spark' %}
    {{ return(scd2_audit._scd2_events_materialization()) }}
{% endmaterialization %}
