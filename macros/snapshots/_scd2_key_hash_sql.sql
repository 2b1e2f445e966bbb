{% macro _scd2_key_hash_sql(expressions) -%}
    {#-
        A 64-bit hash of a key's parts (`expressions`, SQL), for the MERGE's match of a staged
        row to the version it closes (_scd2_merge_key_sql) and the mass-delete guard's count
        (_scd2_assert_delete_share): xxhash64 of each part as text, so
        that a key column the source widened (int to bigint) hashes as the table's narrower
        values do, and part by part, so that (`x|`, `y`) and (`x`, `|y`) differ where
        dbt_scd_id joins them into one text. None when there is no part.
    -#}
    {%- if not expressions -%}{{ return(none) }}{%- endif -%}
    {%- set parts = [] -%}
    {%- for expression in expressions -%}
        {%- do parts.append('cast(' ~ expression ~ ' as string)') -%}
    {%- endfor -%}
    {{ return('xxhash64(' ~ parts | join(', ') ~ ')') }}
{%- endmacro %}
