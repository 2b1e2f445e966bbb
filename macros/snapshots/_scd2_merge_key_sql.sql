{% macro _scd2_merge_key_sql(staged, table) -%}
    {#-
        The key half of the MERGE's match of a staged row to a version (spark__snapshot_merge_sql,
        and _scd2_merge_as_select_sql, which reproduces it): `<table>`'s key columns hashed
        (_scd2_key_hash_sql) equal to the staged row's dbt_unique_key, the same hash of
        the key it stages (spark__snapshot_staging_table). dbt matches on dbt_scd_id alone,
        and dbt_scd_id is the md5 of the key's parts and updated_at joined by `|`: keys whose
        text parts differ only in where a `|` falls (`x|`,`y` and `x`,`|y`) get one id when
        they are inserted in one run (or, timestamp strategy, with one updated_at), and
        closing one closed both; a new version of one was dropped as matching the other.
        One hash, not the key's columns: carrying a five-column key through the MERGE and
        matching on it made the 1,000,000-row day-2 snapshot about 10% slower (38.5 s twice
        against 36.6 and 33.2 s, alternating); with the hash, 39.4 and 32.9 s against 39.9
        and 31.5 s. Two versions that share both an id and a hash (odds about 1 in 10^19 for
        one such pair) would still be matched together.
        An entry that is an SQL expression (unique_key='coalesce(region, ...)') is left out
        on both sides: it cannot be evaluated on the table's side of the MERGE without its
        columns clashing with the staged row's. Empty when no entry is a column.
    -#}
    {%- set columns = [] -%}
    {%- for part in scd2_audit._scd2_unique_key_fields(config.get('unique_key'))
            if part.column is not none -%}
        {%- do columns.append(table ~ '.' ~ scd2_audit._scd2_quote(part.column)) -%}
    {%- endfor -%}
    {%- set hashed = scd2_audit._scd2_key_hash_sql(columns) -%}
    {{ return(hashed ~ ' = ' ~ staged ~ '.dbt_unique_key' if hashed else '') }}
{%- endmacro %}
