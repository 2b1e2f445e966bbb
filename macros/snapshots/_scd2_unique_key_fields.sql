{% macro _scd2_unique_key_fields(unique_key) -%}
    {#-
        The names dbt's unique_key_fields gives the key's parts in the staging query, each with
        the unique_key entry it holds: [{'key': entry, 'field': 'dbt_unique_key', 'column':
        ...}] for a unique_key given as text, `dbt_unique_key_<n>` (from 1) for each entry of
        a list. 'column': the entry's column name, unquoted (`Cust Id` given quoted), or none
        for an entry that is an SQL expression (unique_key="coalesce(region, 'NA')").
    -#}
    {%- set is_list = unique_key is not string and unique_key is not mapping
        and unique_key is iterable -%}
    {%- set fields = [] -%}
    {%- for key in (unique_key if is_list else [unique_key]) if key is not none -%}
        {%- set entry = key | trim -%}
        {%- set name = scd2_audit._scd2_unquoted_name(entry) -%}
        {%- do fields.append({
            'key': entry,
            'field': 'dbt_unique_key' ~ ('_' ~ loop.index if is_list else ''),
            'column': name
                if name != entry or scd2_audit._scd2_is_plain_name(entry) else none,
        }) -%}
    {%- endfor -%}
    {{ return(fields) }}
{%- endmacro %}
