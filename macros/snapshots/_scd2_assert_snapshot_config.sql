{% macro _scd2_assert_snapshot_config() -%}
    {#-
        Fail before anything is read or written when the snapshot's own config holds a value
        that stock dbt rejects without naming the snapshot or the choices, or takes silently
        and gets wrong:
        - hard_deletes other than ignore, invalidate or new_record: dbt-adapters'
          get_hard_deletes_behavior says only "Invalid setting for property hard_deletes.";
        - snapshot_meta_column_names with a role dbt does not know: dbt-core drops it while
          parsing, so a misspelt 'dbt_valid_too' left dbt_valid_to as it was, without a word.
          The config as written is in the node's unrendered_config (a mapping when written
          as one; a Jinja string there is left to dbt);
        - two added columns with one name (two roles of snapshot_meta_column_names, or one of
          them and an audit column; compared without regard to case, as Spark does): Spark
          failed the first run with COLUMN_ALREADY_EXISTS;
        - dbt_valid_to_current that is no constant timestamp or date
          (_scd2_assert_valid_to_current).
    -#}
    {%- if not execute -%}{{ return(none) }}{%- endif -%}
    {%- set where = "Snapshot '" ~ model.name ~ "': " -%}
    {%- set hard_deletes = config.get('hard_deletes') -%}
    {%- set choices = ['ignore', 'invalidate', 'new_record'] -%}
    {%- if hard_deletes is not none and hard_deletes not in choices -%}
        {{ exceptions.raise_compiler_error(
            where ~ "hard_deletes is '" ~ hard_deletes ~ "', which is not one of "
            ~ choices | join(', ') ~ " (the default: ignore; written in lower case). "
            ~ "Nothing was written. Fix hard_deletes in the snapshot's config.") }}
    {%- endif -%}
    {%- set roles = get_snapshot_table_column_names().keys() | list -%}
    {%- set written = (model.get('unrendered_config') or {}).get('snapshot_meta_column_names') -%}
    {%- if written is mapping -%}
        {%- set unknown = written.keys() | reject('in', roles) | list -%}
        {%- if unknown -%}
            {{ exceptions.raise_compiler_error(
                where ~ "snapshot_meta_column_names names " ~ unknown | join(', ')
                ~ ", which dbt does not know and would ignore; its roles are "
                ~ roles | join(', ') ~ ". Nothing was written. Fix the role's name in the "
                ~ "snapshot's config.") }}
        {%- endif -%}
    {%- endif -%}
    {%- set seen = {} -%}
    {%- set repeated = [] -%}
    {%- for name in scd2_audit._scd2_metadata_column_names(hard_deletes) -%}
        {%- if (name | lower) in seen and (name | lower) not in repeated -%}
            {%- do repeated.append(name | lower) -%}
        {%- endif -%}
        {%- do seen.update({name | lower: true}) -%}
    {%- endfor -%}
    {%- if repeated -%}
        {{ exceptions.raise_compiler_error(
            where ~ "the columns the snapshot adds would have the name(s) " ~ repeated | join(', ')
            ~ " twice (dbt's columns as snapshot_meta_column_names names them: "
            ~ (config.get('snapshot_table_column_names') or get_snapshot_table_column_names())
            ~ "; the audit columns: " ~ scd2_audit.scd2_audit_column_names() ~ "; names are "
            ~ "compared without regard to case). Nothing was written. Give each its own name.") }}
    {%- endif -%}
    {% do scd2_audit._scd2_assert_valid_to_current() %}
{%- endmacro %}
