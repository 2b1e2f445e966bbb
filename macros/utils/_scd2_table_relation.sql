{% macro _scd2_table_relation(relation) -%}
    {#-
        The table or view `relation` names, as Spark can describe or refresh it, or none for
        a string (a query, or a name dbt did not resolve). A dbt unit test's fixture or an
        ephemeral model's CTE (`__dbt__cte__<name>`) is returned as it is: see
        _scd2_fixture_name. A relation that dbt renders as a subquery (`ref()` under
        `--empty` adds `limit 0`, a microbatch an event-time filter) gives its table: Spark's
        `describe` and `refresh table` take no subquery.
    -#}
    {%- if relation.identifier is not defined or not relation.identifier -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set table = relation.replace(limit=none, event_time_filter=none)
        if relation.limit is not none or relation.event_time_filter is not none
        else relation -%}
    {{ return(table) }}
{%- endmacro %}
