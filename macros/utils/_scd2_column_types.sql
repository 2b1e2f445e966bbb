{% macro _scd2_column_types(relation, keep_case=false) -%}
    {#-
        The columns of `relation` as {name (lower case): Spark type (lower case)}, in table
        order (`keep_case`: each name as the table spells it); empty before execution (dbt's parse), when the adapter is not asked, and for
        a query in place of a relation. A relation that dbt renders as a subquery (`ref()`
        under `--empty`, a microbatch, a generic test's `where` config) is described as its
        table (_scd2_table_relation).
    -#}
    {%- set types = {} -%}
    {%- set table = scd2_audit._scd2_table_relation(relation) if execute else none -%}
    {%- if table is not none -%}
        {#- A dbt unit test's fixture (_scd2_fixture_name), which Spark cannot describe: dbt
            builds it with the columns of the real relation, which is described instead. -#}
        {%- set fixture_of = scd2_audit._scd2_fixture_name(table) -%}
        {%- if fixture_of -%}
            {%- set table = adapter.get_relation(database=table.database,
                schema=table.schema or target.schema, identifier=fixture_of) or table -%}
        {%- endif -%}
        {%- for column in adapter.get_columns_in_relation(table) -%}
            {%- do types.update({(column.name if keep_case else column.name | lower):
                column.dtype | lower}) -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(types) }}
{%- endmacro %}
