{% macro _scd2_unique_key_fields(unique_key) -%}
    {#-
        The names dbt's unique_key_fields gives the key's parts in the staging query, each with
        the unique_key entry it holds: [{'key': entry, 'field': 'dbt_unique_key'}] for a
        unique_key given as text, `dbt_unique_key_<n>` (from 1) for each entry of a list.
    -#}
    {%- set is_list = unique_key is not string and unique_key is not mapping
        and unique_key is iterable -%}
    {%- set fields = [] -%}
    {%- for key in (unique_key if is_list else [unique_key]) if key is not none -%}
        {%- do fields.append({
            'key': key | trim,
            'field': 'dbt_unique_key' ~ ('_' ~ loop.index if is_list else ''),
        }) -%}
    {%- endfor -%}
    {{ return(fields) }}
{%- endmacro %}
