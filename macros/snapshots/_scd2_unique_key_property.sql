{% macro _scd2_unique_key_property(unique_key=none) -%}
    {#-
        The table property in which a snapshot table records the unique_key its open versions
        are unique under: {'name': 'scd2.unique_key', 'value': a JSON list of the key's
        entries, 'entries': the same list}. Neither dbt nor Iceberg stores a snapshot's
        unique_key, and a key narrowed on an existing table (['id', 'region'] to 'id') met a
        key's two open versions with one source row: the run opened the key twice, without
        a word (_scd2_assert_open_keys_unique). Entries are compared as Spark compares them,
        so that writing the same key again differently is no change: a column name unquoted
        and in lower case (`ID`, ' id ', ['id'] are 'id'), an expression with its runs of
        white space made one; sorted, as the order of a key's parts does not change which
        rows share a key. `unique_key` defaults to the snapshot's own.
    -#}
    {%- set entries = [] -%}
    {%- for field in scd2_audit._scd2_unique_key_fields(
            unique_key if unique_key is not none else config.get('unique_key')) -%}
        {%- set entry = field.column | lower if field.column is not none
            else modules.re.sub('\\s+', ' ', field.key) -%}
        {%- if entry not in entries -%}{%- do entries.append(entry) -%}{%- endif -%}
    {%- endfor -%}
    {%- set entries = entries | sort -%}
    {{ return({'name': 'scd2.unique_key', 'value': tojson(entries), 'entries': entries}) }}
{%- endmacro %}
