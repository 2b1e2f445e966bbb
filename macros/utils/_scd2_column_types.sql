{% macro _scd2_column_types(relation) -%}
    {#-
        The columns of `relation` as {name (lower case): Spark type (lower case)}, in table
        order; empty before execution (dbt's parse), when the adapter is not asked, and for
        a query in place of a relation (a generic test's `where` config makes its model one).
        A relation that dbt renders as a subquery (`ref()` under `--empty` adds `limit 0`, a
        microbatch an event-time filter) is described as its table: dbt-spark's `describe
        extended` takes no subquery.
    -#}
    {%- set types = {} -%}
    {%- if execute and relation.identifier is defined -%}
        {%- set table = relation.replace(limit=none, event_time_filter=none)
            if relation.limit is not none or relation.event_time_filter is not none
            else relation -%}
        {#- A dbt unit test passes its fixture as `__dbt__cte__<name>`, a CTE of the test's
            own query, which Spark cannot describe; dbt builds the fixture with the columns of
            the real relation, which is described instead. -#}
        {%- if table.identifier.startswith('__dbt__cte__') -%}
            {%- set table = adapter.get_relation(database=table.database,
                schema=table.schema or target.schema,
                identifier=table.identifier[12:]) or table -%}
        {%- endif -%}
        {%- for column in adapter.get_columns_in_relation(table) -%}
            {%- do types.update({column.name | lower: column.dtype | lower}) -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(types) }}
{%- endmacro %}
