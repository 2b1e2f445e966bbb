{% macro _scd2_column_types(relation) -%}
    {#-
        The columns of `relation` as {name (lower case): Spark type (lower case)}, in table
        order; empty before execution (dbt's parse), when the adapter is not asked.
    -#}
    {%- set types = {} -%}
    {%- if execute -%}
        {%- for column in adapter.get_columns_in_relation(relation) -%}
            {%- do types.update({column.name | lower: column.dtype | lower}) -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(types) }}
{%- endmacro %}
