{% macro _scd2_assert_source_columns(source_col_names) -%}
    {#-
        Fail before anything is read or written when the snapshot's query does not fit its
        config, with a message that names the columns (Spark's own errors name neither the
        snapshot nor the fix):
        - unique_key and updated_at name columns of the query (a source that lost one failed
          with Spark's UNRESOLVED_COLUMN, naming neither the snapshot nor the setting);
        - the check strategy with a list of check_cols compares those columns of the source
          with the open versions: a column the query no longer returns (a source that lost
          it) failed inside dbt's strategy with UNRESOLVED_COLUMN. check_cols='all' compares
          whatever columns the query returns;
        - dbt's meta columns (snapshot_meta_column_names) and the audit columns are added to
          the query's columns: a source column with one of their names (Spark compares names
          without regard to case) failed with COLUMN_ALREADY_EXISTS. dbt_is_deleted is
          refused whatever hard_deletes is: in a table once snapshotted with new_record it
          marks the deletion records, and a source column of that name was read as such a
          mark (a key whose value was 'True' got a new version on every run). So are the
          names dbt's staging query gives its own columns (dbt_unique_key, dbt_unique_key_<n>,
          dbt_change_type, and this package's dbt_scd2_target_row, dbt_scd2_source_row): the
          first run wrote such a column and every later run failed with AMBIGUOUS_REFERENCE;
        - a name holding a backtick, which dbt-spark's quoting breaks.
    -#}
    {%- if not execute -%}{{ return(none) }}{%- endif -%}
    {%- set available = source_col_names | map('lower') | list -%}
    {#- (setting, entry) pairs that name a column of the query. -#}
    {%- set named = [] -%}
    {#- unique_key and updated_at may be SQL expressions (dbt writes them into its SQL as
        given): only names, plain or quoted, are checked; Spark reports the rest. -#}
    {%- for col in scd2_audit._scd2_column_list(config.get('unique_key')) -%}
        {%- do named.append(['unique_key', col]) -%}
    {%- endfor -%}
    {%- if config.get('updated_at') and config.get('strategy') in ['timestamp', 'check'] -%}
        {%- do named.append(['updated_at', config.get('updated_at')]) -%}
    {%- endif -%}
    {%- set check_cols = config.get('check_cols') -%}
    {%- if config.get('strategy') == 'check' and check_cols and check_cols is not string -%}
        {%- for col in check_cols -%}
            {%- do named.append(['check_cols', col]) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- set missing = [] -%}
    {%- for setting, col in named -%}
        {#- A name that needs quoting is given quoted (`e-mail`). -#}
        {%- set name = scd2_audit._scd2_unquoted_name(col) -%}
        {%- set quoted = name != col | trim -%}
        {%- set is_name = quoted or setting == 'check_cols'
            or scd2_audit._scd2_is_plain_name(name) -%}
        {%- if is_name and (name | lower) not in available
            and (not missing or missing[0][0] == setting) -%}
            {%- do missing.append([setting, col]) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if missing -%}
        {%- set setting = missing[0][0] -%}
        {%- set them = 'it' if missing | length == 1 else 'them' -%}
        {{ exceptions.raise_compiler_error(
            "Snapshot '" ~ model.name ~ "': " ~ setting ~ " names "
            ~ missing | map(attribute=1) | join(', ')
            ~ ", which the snapshot's query does not return (its columns: "
            ~ source_col_names | join(', ') ~ "). Nothing was written. "
            ~ ('Remove ' ~ them ~ ' from check_cols, or select ' ~ them ~ ' again (e.g. as NULL).'
                if setting == 'check_cols'
                else 'Fix ' ~ setting ~ ' in the config, or select ' ~ them ~ ' again.')) }}
    {%- endif -%}
    {%- set clashes = [] -%}
    {%- for name in scd2_audit._scd2_metadata_column_names('new_record')
            if (name | lower) in available -%}
        {%- do clashes.append(name) -%}
    {%- endfor -%}
    {%- for name in source_col_names if modules.re.match(
            '^(dbt_unique_key(_[0-9]+)?|dbt_change_type|dbt_scd2_(target_row|source_row))$',
            name | lower) -%}
        {%- do clashes.append(name) -%}
    {%- endfor -%}
    {%- if clashes -%}
        {{ exceptions.raise_compiler_error(
            "Snapshot '" ~ model.name ~ "': its query returns column(s) named like the metadata "
            ~ "columns the snapshot adds or the columns its staging uses: " ~ clashes | join(', ')
            ~ " (names are compared without regard to case; dbt's is-deleted column is kept "
            ~ "free whatever hard_deletes is). Nothing was written. Rename them in the "
            ~ "snapshot's select, or choose other names in snapshot_meta_column_names (dbt's "
            ~ "columns) or var scd2_audit_column_names (the audit columns).") }}
    {%- endif -%}
    {#- dbt-spark quotes a name in backticks without doubling one inside it: the first run
        wrote such a column, and every later run failed on Spark's PARSE_SYNTAX_ERROR. -#}
    {%- set ticked = [] -%}
    {%- for name in source_col_names if '`' in name -%}
        {%- do ticked.append(name) -%}
    {%- endfor -%}
    {%- if ticked -%}
        {{ exceptions.raise_compiler_error(
            "Snapshot '" ~ model.name ~ "': its query returns column(s) whose name holds a "
            ~ "backtick: " ~ ticked | join(', ') ~ ". dbt-spark's quoting cannot write such a "
            ~ "name into its SQL. Nothing was written. Rename them in the snapshot's select "
            ~ "(e.g. `it``s` as its).") }}
    {%- endif -%}
{%- endmacro %}
