{% macro _scd2_events_drop_stale_views(relation) -%}
    {#-
        Drop the temporary views, and with them the cached steps, that an earlier run of this
        model left in the Spark session when a failing statement stopped it (Jinja has no
        `finally`; its settings are put back likewise, _scd2_events_set_conf): a long-lived
        session (a notebook, a program running dbt, many invocations) otherwise kept each
        such run's cached batch in memory. Views of the model (_scd2_run_view_name) under
        another invocation id only: the views of this invocation's runs stay. Listed `in
        global_temp`, which lists the session's temporary views without asking the metastore.
        Through a Thrift server a session ends with its connection, and its views with it.
        Two invocations running the same model at once in one session would drop each
        other's views; invocations in one session follow each other (_scd2_events_set_conf
        assumes the same).
    -#}
    {#- Spark keeps a temporary view's name in lower case (spark.sql.caseSensitive off). -#}
    {%- set mine = scd2_audit._scd2_run_view_name(relation, 'events') | lower -%}
    {%- set run_id = invocation_id | replace('-', '') -%}
    {%- set model_prefix = mine[:mine | length - run_id | length] -%}
    {%- set stale = [] -%}
    {%- for row in run_query("show views in global_temp like '" ~ model_prefix ~ "*'").rows
            if row[2] and not (row[1] | lower).startswith(mine) -%}
        {%- do stale.append(row[1]) -%}
    {%- endfor -%}
    {% do scd2_audit._scd2_events_drop_views(stale) %}
{%- endmacro %}
