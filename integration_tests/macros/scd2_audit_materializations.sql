{#-
    dbt's opt-in for a package's versions of built-in materializations: since dbt 1.8 a
    package's `snapshot`, `seed`, `view` or `clone` materialization is used only when the root
    project wraps it (https://docs.getdbt.com/reference/global-configs/behavior-flags/require_explicit_package_overrides_for_builtin_materializations).
    Without them, dispatch alone gives the metadata columns and the key and mass-delete
    guards, but not the source checks, the one-commit schema changes, the open-version layout,
    the atomic seed load or `dbt clone` on Iceberg (docs/package.md).
-#}
{% materialization snapshot, adapter='spark' %}
    {{ return(scd2_audit.materialization_snapshot_spark()) }}
{% endmaterialization %}

{% materialization seed, adapter='spark' %}
    {{ return(scd2_audit.materialization_seed_spark()) }}
{% endmaterialization %}

{% materialization view, adapter='spark' %}
    {{ return(scd2_audit.materialization_view_spark()) }}
{% endmaterialization %}

{% materialization clone, adapter='spark' %}
    {{ return(scd2_audit.materialization_clone_spark()) }}
{% endmaterialization %}
