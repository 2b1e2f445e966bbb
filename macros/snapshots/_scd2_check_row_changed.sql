{% macro _scd2_check_row_changed(
    node, snapshotted_rel, current_rel, target_relation, query_column_names
) -%}
    {#-
        The check strategy's row_changed for a snapshot whose table exists: dbt-adapters'
        snapshot_check_all_get_existing_columns and the row_changed_expr of
        snapshot_check_strategy (dbt-adapters 1.24), unchanged but for one thing: a column of
        the query is in the table when its name matches a table column without regard to
        case, as Spark resolves names. dbt matches names with a case-sensitive `in`, so a
        source that returned `name` for the table's `Name` (a view rewritten, check_cols
        written in another case than the query's columns) counted as a new column on every
        run, and a new column makes dbt treat every row as changed: each run closed and
        reopened every version (dbt-labs/dbt-core#5222, #5636). A column that is really new
        still makes every row changed on the run that adds it, as in dbt. Neither dbt macro is
        dispatched, so the materialization puts this one in the strategy's place.
        `query_column_names`: the query's columns (_scd2_query_columns), read once by the
        materialization, where dbt queries them again here. A listed check_cols entry is
        a column of the query (_scd2_assert_source_columns ran before) and is taken by its
        name, unquoted: dbt queried `select <check_cols> from (...)` for the query's spelling
        of each, which matters only to a case-sensitive match.
    -#}
    {%- set check_cols_config = config.get('check_cols') -%}
    {% if check_cols_config == 'all' %}
        {%- set query_columns = query_column_names -%}
    {% else %}
        {%- set query_columns = [] -%}
        {%- for col in scd2_audit._scd2_column_list(check_cols_config) -%}
            {%- do query_columns.append(scd2_audit._scd2_unquoted_name(col)) -%}
        {%- endfor -%}
    {% endif %}
    {%- set existing_cols = adapter.get_columns_in_relation(target_relation)
        | map(attribute='name') | map('lower') | list -%}
    {%- set ns = namespace() -%}
    {%- set ns.column_added = false -%}
    {%- set check_cols = [] -%}
    {%- for col in query_columns -%}
        {%- if col | lower in existing_cols -%}
            {%- do check_cols.append(adapter.quote(col)) -%}
        {%- else -%}
            {%- set ns.column_added = true -%}
        {%- endif -%}
    {%- endfor -%}

    {%- set row_changed_expr -%}
    (
    {%- if ns.column_added -%}
        {{ get_true_sql() }}
    {%- else -%}
    {%- for col in check_cols -%}
        {{ snapshotted_rel }}.{{ col }} != {{ current_rel }}.{{ col }}
        or
        (
            (({{ snapshotted_rel }}.{{ col }} is null) and not ({{ current_rel }}.{{ col }} is null))
            or
            ((not {{ snapshotted_rel }}.{{ col }} is null) and ({{ current_rel }}.{{ col }} is null))
        )
        {%- if not loop.last %} or {% endif -%}
    {%- endfor -%}
    {%- endif -%}
    )
    {%- endset %}
    {{ return(row_changed_expr) }}
{%- endmacro %}
