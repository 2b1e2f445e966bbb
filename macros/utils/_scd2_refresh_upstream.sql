{% macro _scd2_refresh_upstream(node, what, target_relation) -%}
    {#-
        _scd2_refresh_relation for each relation `node` reads through ref() and source()
        (_scd2_upstream_references): a snapshot or an scd2_events run reads its sources as they
        are now. One that does not exist and that the query reads (named outside its comments
        and strings, _scd2_sql_code) fails the run here, before its table is written, naming the
        ref() or source() and what to do: Spark's TABLE_OR_VIEW_NOT_FOUND named the table only,
        and advised `DROP VIEW IF EXISTS`. A relation only named in a comment (`-- depends_on:`)
        is left alone, as _scd2_refresh_relation leaves it. It runs after the pre-hooks, which
        may create what the query reads; so the message says the node's table is unchanged,
        not that nothing was written. `what` begins the message ("Snapshot 'customers'"),
        `target_relation` is the node's table.
    -#}
    {%- for reference in scd2_audit._scd2_upstream_references(node) -%}
        {%- set exists = scd2_audit._scd2_relation_exists(reference.relation) -%}
        {%- if exists -%}
            {%- do scd2_audit._scd2_refresh_relation(reference.relation, exists=exists) -%}
        {%- elif exists is not none -%}
            {#- As a whole name: `raw.cust` is not read by a query of `raw.customers`. -#}
            {%- if modules.re.search('(?<![\\w.`])' ~ modules.re.escape(reference.rendered)
                    ~ '(?![\\w`])', scd2_audit._scd2_sql_code(node.compiled_code or '')) -%}
                {%- set is_source = reference.call.startswith('source(') -%}
                {%- do exceptions.raise_compiler_error(
                    what ~ ": its query reads " ~ reference.call ~ ", the table "
                    ~ scd2_audit._scd2_table_relation(reference.relation)
                    ~ ", which does not exist. " ~ target_relation ~ " was not written. "
                    ~ ("Load the source first (dbt seed for a seed, or the job that fills it), "
                        ~ "or correct its schema or identifier in the source's YAML."
                       if is_source else
                       "Build it first (dbt build, or dbt run / dbt seed / dbt snapshot "
                        ~ "selecting it), or run with --defer --state to read another "
                        ~ "environment's.")) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
{%- endmacro %}
