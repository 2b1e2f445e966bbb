{% macro _scd2_column_types(relation) -%}
    {#-
        The columns of `relation` as {name (lower case): Spark type (lower case)}, in table
        order; empty before execution (dbt's parse), when the adapter is not asked, and for
        a query in place of a relation (a generic test's `where` config makes its model one).
    -#}
    {%- set types = {} -%}
    {%- if execute and relation.identifier is defined -%}
        {%- for column in adapter.get_columns_in_relation(relation) -%}
            {%- do types.update({column.name | lower: column.dtype | lower}) -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(types) }}
{%- endmacro %}
