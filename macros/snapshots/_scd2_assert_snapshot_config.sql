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
          (_scd2_assert_valid_to_current);
        - a strategy that names no strategy macro (`timestmp`, `Timestamp`): dbt-core takes
          any name as a custom strategy, and dbt's strategy_dispatch failed after the schema
          and the pre-hooks with "The specified strategy macro 'timestmp' was not found in
          package 'None'". The lookup is strategy_dispatch's: `snapshot_<name>_strategy`, in
          the package `<package>.` names if any;
        - a unique_key entry that is empty, or holds a comma outside parentheses, quotes and
          backticks (`unique_key: 'id, region'`, meant as two columns): dbt puts the text as
          it is into `<entry> as dbt_unique_key`, which made `region` alone the key (and the
          source check's message was about duplicates), or failed with Spark's parse error.
    -#}
    {%- if not execute -%}{{ return(none) }}{%- endif -%}
    {%- set where = "Snapshot '" ~ model.name ~ "': " -%}
    {%- set strategy = config.get('strategy') | string -%}
    {%- set parts = strategy.split('.', 1) -%}
    {%- set package = context if parts | length == 1 else context.get(parts[0]) -%}
    {%- if package is none or ('snapshot_' ~ parts[-1] ~ '_strategy') not in package -%}
        {{ exceptions.raise_compiler_error(
            where ~ "strategy is '" ~ strategy ~ "', which is neither timestamp nor check"
            ~ " (written in lower case) nor a custom strategy (no macro snapshot_" ~ parts[-1]
            ~ "_strategy" ~ (" in package " ~ parts[0] if parts | length == 2 else "")
            ~ "). Nothing was written. Fix strategy in the snapshot's config.") }}
    {%- endif -%}
    {%- set unique_key = config.get('unique_key') -%}
    {%- set entries = [unique_key] if unique_key is string or unique_key is none
        else unique_key | list -%}
    {%- for entry in entries -%}
        {%- set text = (entry if entry is not none else '') | string -%}
        {%- set parts = scd2_audit._scd2_split_top_level(text) -%}
        {%- if text | trim == '' -%}
            {{ exceptions.raise_compiler_error(
                where ~ "unique_key " ~ ("has an empty entry: " ~ unique_key
                    if unique_key is not string and unique_key is not none else "is empty")
                ~ ". Nothing was written. Name the key's column(s) in unique_key, a list for a"
                ~ " key of several columns (unique_key: ['id', 'region']).") }}
        {%- elif parts | length > 1 -%}
            {{ exceptions.raise_compiler_error(
                where ~ "unique_key '" ~ text ~ "' is one SQL expression to dbt, so a comma in"
                ~ " it does not make a key of several columns (dbt would key the snapshot on"
                ~ " what follows the last comma, or fail). Nothing was written. For a key of"
                ~ " several columns give a list: unique_key: ['" ~ parts | map('trim')
                    | join("', '") ~ "'].") }}
        {%- endif -%}
    {%- endfor -%}
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
    {%- set repeated = scd2_audit._scd2_repeated_names(
        scd2_audit._scd2_metadata_column_names(hard_deletes)) -%}
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
