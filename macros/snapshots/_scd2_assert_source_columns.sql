{% macro _scd2_assert_source_columns(source_col_names) -%}
    {#-
        Fail before anything is read or written when the snapshot's query does not fit its
        config, with a message that names the columns (Spark's own errors name neither the
        snapshot nor the fix):
        - the check strategy with a list of check_cols compares those columns of the source
          with the open versions: a column the query no longer returns (a source that lost
          it) failed inside dbt's strategy with UNRESOLVED_COLUMN. check_cols='all' compares
          whatever columns the query returns;
        - dbt's meta columns (snapshot_meta_column_names) and the audit columns are added to
          the query's columns: a source column with one of their names (Spark compares names
          without regard to case) failed with COLUMN_ALREADY_EXISTS.
    -#}
    {%- if not execute -%}{{ return(none) }}{%- endif -%}
    {%- set available = source_col_names | map('lower') | list -%}
    {%- set check_cols = config.get('check_cols') -%}
    {%- if config.get('strategy') == 'check' and check_cols and check_cols is not string -%}
        {%- set missing = [] -%}
        {%- for col in check_cols -%}
            {#- dbt's check strategy writes each check_cols entry into its SQL as given, so
                a name that needs quoting is given quoted (`e-mail`). -#}
            {%- set name = col | trim -%}
            {%- if name | length > 1 and name.startswith('`') and name.endswith('`') -%}
                {%- set name = name[1:-1] | replace('``', '`') -%}
            {%- endif -%}
            {%- if (name | lower) not in available -%}
                {%- do missing.append(col) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- if missing -%}
            {{ exceptions.raise_compiler_error(
                "Snapshot '" ~ model.name ~ "': check_cols names " ~ missing | join(', ')
                ~ ", which the snapshot's query does not return (its columns: "
                ~ source_col_names | join(', ') ~ "). Nothing was written. Remove "
                ~ ("it" if missing | length == 1 else "them") ~ " from check_cols, or select "
                ~ ("it" if missing | length == 1 else "them") ~ " again (e.g. as NULL).") }}
        {%- endif -%}
    {%- endif -%}
    {%- set clashes = [] -%}
    {%- for name in scd2_audit._scd2_metadata_column_names(config.get('hard_deletes'))
            if (name | lower) in available -%}
        {%- do clashes.append(name) -%}
    {%- endfor -%}
    {%- if clashes -%}
        {{ exceptions.raise_compiler_error(
            "Snapshot '" ~ model.name ~ "': its query returns column(s) named like the metadata "
            ~ "columns the snapshot adds: " ~ clashes | join(', ') ~ " (names are compared "
            ~ "without regard to case). Nothing was written. Rename them in the snapshot's "
            ~ "select, or choose other names in snapshot_meta_column_names (dbt's columns) or "
            ~ "var scd2_audit_column_names (the audit columns).") }}
    {%- endif -%}
{%- endmacro %}
