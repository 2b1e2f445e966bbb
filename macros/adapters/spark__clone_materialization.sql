{#- The body is _scd2_clone_materialization: a macro, so that sqlfluff lints it (its jinja templater
    does not know dbt's materialization tag, so this file is in .sqlfluffignore). -#}
{% materialization clone, adapter='spark' %}
    {{ return(scd2_audit._scd2_clone_materialization()) }}
{% endmaterialization %}
