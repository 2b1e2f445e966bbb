{% macro _scd2_clone_materialization() %}
    {#-
        dbt-spark's clone materialization, with dbt's view fallback restored.
        `dbt clone` makes a relation of the state's relation: a zero-copy clone of a table
        where the platform has one, else a view over it (dbt-adapters' `materialization clone,
        default`, https://docs.getdbt.com/reference/commands/clone). dbt-spark's version knows
        Delta's `shallow clone` only and fails every node whose file_format is not delta
        ("Invalid file format ... shallow clone requires file_format be set to 'delta'"), a view
        or an Iceberg table alike, so `dbt clone` could not run on an Iceberg project.
        - A Delta table of the state is cloned shallowly, as by dbt-spark (decided by the
          state relation's own format, not the node's config).
        - Every other relation becomes a view over the state's relation, through the project's
          view materialization, as dbt does on platforms without zero-copy clones. Spark SQL
          has no zero-copy clone of an Iceberg table: a copy reads and writes every row, and a
          second table over the same metadata (Iceberg's register_table) deletes files the other
          still reads when either expires its snapshots.
        - A node whose target is the state's relation itself (`--state` of the same target)
          is skipped, with or without `--full-refresh`: replacing it with a view would drop the
          table the view reads. dbt's default skips it only for a table clone.
    -#}
    {%- set relations = {'relations': []} -%}
    {%- if not defer_relation -%}
        {{ log("No relation found in state manifest for " ~ model.unique_id, info=True) }}
        {{ return(relations) }}
    {%- endif -%}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- if existing_relation and not flags.FULL_REFRESH -%}
        {{ log("Relation " ~ existing_relation ~ " already exists", info=True) }}
        {{ return(relations) }}
    {%- endif -%}
    {%- if this.schema | lower == defer_relation.schema | lower
            and this.identifier | lower == defer_relation.identifier | lower -%}
        {{ log("Target relation and defer relation are the same, skipping clone for relation: "
            ~ this, info=True) }}
        {{ return(relations) }}
    {%- endif -%}
    {%- set other_existing_relation = load_cached_relation(defer_relation) -%}
    {%- set grant_config = config.get('grants') -%}
    {%- if other_existing_relation is not none and other_existing_relation.is_table
            and other_existing_relation.is_delta and can_clone_table() -%}
        {%- set target_relation = this.incorporate(type='table') -%}
        {%- if existing_relation is not none and not existing_relation.is_table -%}
            {{ log("Dropping relation " ~ existing_relation ~ " because it is of type "
                ~ existing_relation.type) }}
            {{ drop_relation_if_exists(existing_relation) }}
        {%- endif -%}
        {%- call statement('main') -%}
            {{ create_or_replace_clone(target_relation, defer_relation) }}
        {%- endcall -%}
        {%- set should_revoke = should_revoke(existing_relation, full_refresh_mode=True) -%}
        {%- do apply_grants(target_relation, grant_config, should_revoke=should_revoke) -%}
        {%- do persist_docs(target_relation, model) -%}
        {{ return({'relations': [target_relation]}) }}
    {%- endif -%}
    {#- dbt's way to reuse the view materialization (dbt-labs/dbt-core#7799): the context
        holds it under its macro name; `sql` is dbt's `select * from <state relation>`. -#}
    {%- set search_name = 'materialization_view_' ~ adapter.type() -%}
    {%- if search_name not in context -%}
        {%- set search_name = 'materialization_view_default' -%}
    {%- endif -%}
    {{ return(context[search_name]()) }}
{% endmacro %}
