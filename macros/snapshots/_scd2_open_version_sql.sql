{% macro _scd2_open_version_sql(relation_alias=none, with_process_id=true, context=none) -%}
    {#-
        The one definition of an open version, as SQL: open as dbt's staging query defines it
        (dbt_valid_to NULL, or equal to dbt_valid_to_current when that is set) and, with
        with_process_id, in the open partition too (audit update_process_id is null, see
        _scd2_snapshot_layout), so that a run's reads prune the closed history.
        The snapshot run (staging query, delete-share guard, rebuild of a table whose schema
        changes) uses both, so that they all mean the versions a run can close; generic tests
        and analyst macros use dbt's rule alone (with_process_id=false, context from
        _scd2_snapshot_context(relation)): they check and read the audit columns, so must not
        assume them. with_process_id=false also serves a table without the audit columns yet
        (built by stock dbt, upgraded by this run).
        `relation_alias` qualifies the columns (e.g. 'DBT_INTERNAL_DEST'); `context` defaults to
        the snapshot being run.
    -#}
    {%- set ctx = context if context is not none else scd2_audit._scd2_snapshot_context() -%}
    {%- set prefix = (relation_alias ~ '.') if relation_alias else '' -%}
    {%- set valid_to = prefix ~ (ctx.columns.dbt_valid_to | trim) -%}
    {%- if ctx.valid_to_current -%}
        {%- set dbt_open = '(' ~ equals(valid_to, ctx.valid_to_current | trim)
            ~ ' or ' ~ valid_to ~ ' is null)' -%}
    {%- else -%}
        {%- set dbt_open = valid_to ~ ' is null' -%}
    {%- endif -%}
    {%- if not with_process_id -%}{{ return(dbt_open) }}{%- endif -%}
    {{ return(prefix ~ ctx.audit.update_process_id ~ ' is null and ' ~ dbt_open) }}
{%- endmacro %}
