{% macro _scd2_table_properties(relation) -%}
    {#-
        The table's properties as `show tblproperties` lists them: {key: value}, Iceberg's
        own included (`sort-order`, `format-version`, `current-snapshot-id`...). Read before
        a run replaces a table in one commit (_scd2_create_snapshot_table_sql), which keeps
        the properties it does not set and drops the table's sort order
        (_scd2_restore_sort_order).
    -#}
    {%- set properties = {} -%}
    {%- if execute -%}
        {%- for row in run_query('show tblproperties ' ~ relation).rows -%}
            {%- do properties.update({row[0]: row[1]}) -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(properties) }}
{%- endmacro %}
