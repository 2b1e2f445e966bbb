{% macro _scd2_assert_dispatch(what) -%}
    {#-
        The package's materializations (snapshot, seed, view) rely on its versions of dbt's
        macros, which a project that installs the package gets through its `dispatch` block
        (docs/package.md): the snapshot's staging, table and MERGE, and the relation listing
        that tells an Iceberg table apart (without it an existing Iceberg table looked like
        "another format" to a snapshot, and a seed took the drop-and-create path that can lose
        the table). A project with the wrappers but no dispatch block, or one that leaves
        scd2_audit out of its search order, failed on Spark's or dbt's errors about a missing
        column or a table format. This stops it first, naming the fix. A project's own
        override (its own spark__ macro) is left alone: only dbt's and dbt-spark's versions
        are refused, and a staging query and a MERGE from two packages. In this project, the
        root, dbt finds the package's versions first.
    -#}
    {#- Each name written out: dbt's parser reads a dispatch's macro name as a literal. -#}
    {%- set resolved = [
        adapter.dispatch('snapshot_staging_table', 'dbt'),
        adapter.dispatch('build_snapshot_table', 'dbt'),
        adapter.dispatch('snapshot_merge_sql', 'dbt'),
        adapter.dispatch('list_relations_without_caching', 'dbt'),
        adapter.dispatch('drop_relation', 'dbt'),
    ] -%}
    {%- set stock = [] -%}
    {%- for found in resolved if found.macro.package_name in ['dbt', 'dbt_spark'] -%}
        {%- do stock.append(found.macro.name ~ ' (from ' ~ found.macro.package_name ~ ')') -%}
    {%- endfor -%}
    {%- if stock -%}
        {{ exceptions.raise_compiler_error(
            what ~ ": the scd2_audit package's materialization runs, but dbt's own macros "
            ~ "resolve to dbt's versions, not the package's: " ~ stock | join(', ') ~ ". Add "
            ~ "the dispatch block to dbt_project.yml (docs/package.md): dispatch: "
            ~ "[{macro_namespace: dbt, search_order: ['" ~ project_name ~ "', 'scd2_audit', "
            ~ "'dbt']}]. Nothing was written.") }}
    {%- endif -%}
    {#- The staging and the MERGE go together: the package's MERGE matches on the key's hash
        its staging stages as dbt_unique_key, where dbt's staging (or a copy of it) stages the
        key itself, which no version's hash equals: no version was closed. -#}
    {%- if resolved[0].macro.package_name != resolved[2].macro.package_name -%}
        {{ exceptions.raise_compiler_error(
            what ~ ": snapshot_staging_table resolves to " ~ resolved[0].macro.package_name
            ~ "'s version and snapshot_merge_sql to " ~ resolved[2].macro.package_name ~ "'s; "
            ~ "the scd2_audit package's MERGE reads what its own staging query writes. Override "
            ~ "both in your project, or neither. Nothing was written.") }}
    {%- endif -%}
{%- endmacro %}
