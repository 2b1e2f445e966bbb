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
        {#- The relation inside may itself be a subquery (`--empty`'s limit, `--sample`'s
            event-time filter): the innermost `select * from` names the table. Its parts
            may be quoted (`my snap`); all but the last are its schema, a catalog too. -#}
        {%- set name = '((?:`[^`]*`|[^\\s()`.]+)(?:\\.(?:`[^`]*`|[^\\s()`.]+))*)' -%}
        {%- set filtered = modules.re.match(
            '^\\s*\\((?:select \\* from \\()*select \\* from ' ~ name
            ~ '\\s.*\\) dbt_subquery\\s*$', relation, modules.re.DOTALL) -%}
        {%- set parts = [] -%}
        {%- for quoted, plain in modules.re.findall('`([^`]*)`|([^.`]+)',
                filtered.group(1) if filtered else '') -%}
            {%- do parts.append(quoted or plain) -%}
        {%- endfor -%}
        {{ return(api.Relation.create(schema=parts[:-1] | join('.'), identifier=parts[-1])
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
