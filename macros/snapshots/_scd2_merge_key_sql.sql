{% macro _scd2_merge_key_sql(staged, table) -%}
    {#-
        The key half of the MERGE's match of a staged row to a version (spark__snapshot_merge_sql,
        and _scd2_merge_as_select_sql, which reproduces it): `and <table>.<key> <=>
        <staged>.dbt_unique_key[_<n>]` for each unique_key entry that is a column, the staged
        row carrying dbt's own key fields (unique_key_fields). dbt matches on dbt_scd_id alone,
        and dbt_scd_id is the md5 of the key's parts and updated_at joined by `|`: keys whose
        text parts differ only in where a `|` falls (`x|`,`y` and `x`,`|y`) get one id when
        they are inserted in one run (or, timestamp strategy, with one updated_at), and
        closing one closed both; a new version of one was dropped as matching the other.
        An entry that is an SQL expression (unique_key='coalesce(region, ...)') is left to
        the id: it cannot be evaluated on the table's side of the MERGE without its columns
        clashing with the staged row's. Empty when the snapshot has no unique_key.
    -#}
    {%- set conditions = [] -%}
    {%- for part in scd2_audit._scd2_unique_key_fields(config.get('unique_key')) -%}
        {%- set bare = scd2_audit._scd2_unquoted_name(part.key) -%}
        {%- if scd2_audit._scd2_is_plain_name(part.key) or part.key != bare -%}
            {%- do conditions.append(table ~ '.' ~ scd2_audit._scd2_quote(bare) ~ ' <=> '
                ~ staged ~ '.' ~ part.field) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(conditions | join(' and ')) }}
{%- endmacro %}
