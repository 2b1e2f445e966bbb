{% macro _scd2_restore_sort_order(relation, properties) -%}
    {#-
        Gives a table replaced in one commit (`create or replace table ... as`) the write
        order it had (`properties`: _scd2_table_properties, read before), which Iceberg's
        replace drops while it keeps the table's other properties: a metadata-only commit,
        after the rows' own. `write locally ordered by` leaves write.distribution-mode as the
        replace kept it (`write ordered by` would set it to range). Iceberg's description of
        the order (`bucket(4, id) DESC NULLS LAST, v ASC NULLS FIRST`) is the statement's
        syntax. Nothing to do for an unsorted table.
    -#}
    {%- set order = properties.get('sort-order') -%}
    {%- if order -%}
        {%- do scd2_audit._scd2_run_sql(
            'alter table ' ~ relation ~ ' write locally ordered by ' ~ order) -%}
    {%- endif -%}
{%- endmacro %}
