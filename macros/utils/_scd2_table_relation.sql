{% macro _scd2_table_relation(relation) -%}
    {#-
        The table or view `relation` names, as Spark can describe or refresh it, or none for
        a string (a query, or a name dbt did not resolve). A dbt unit test's fixture or an
        ephemeral model's CTE (`__dbt__cte__<name>`) is returned as it is: see
        _scd2_fixture_name. A relation that dbt renders as a subquery (`ref()` under
        `--empty` adds `limit 0`, a microbatch an event-time filter) gives its table: Spark's
        `describe` and `refresh table` take no subquery. So does the subquery a generic test
        gets for its `where` config, text that dbt's get_where_subquery writes as
        `(select * from <relation> where <where>) dbt_subquery`: the scd2 tests found no
        snapshot for it, failed asking for a unique_key, and could not be given dbt's
        renamed column names at all.
    -#}
    {%- if relation is string -%}
        {%- set filtered = modules.re.match(
            '^\\s*\\(select \\* from (\\S+) where .*\\) dbt_subquery\\s*$',
            relation, modules.re.DOTALL) -%}
        {%- set parts = filtered.group(1).replace('`', '').split('.') if filtered else [] -%}
        {{ return(api.Relation.create(schema=parts[-2], identifier=parts[-1])
            if parts | length > 1 else none) }}
    {%- endif -%}
    {%- if relation.identifier is not defined or not relation.identifier -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set table = relation.replace(limit=none, event_time_filter=none)
        if relation.limit is not none or relation.event_time_filter is not none
        else relation -%}
    {{ return(table) }}
{%- endmacro %}
