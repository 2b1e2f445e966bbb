{% macro _scd2_refresh_upstream(node) -%}
    {#-
        `refresh table` for each relation `node` reads (_scd2_upstream_relations), before a
        snapshot or an scd2_events run reads them. Spark keeps the list of a file-based
        table's files (`using json`, `using csv`, a Hive table) for the session, and so does a
        view over one: a session that runs dbt more than once (a notebook, dbtRunner, dbt's
        session method in a long-lived process) saw the day's new files in the table's folder
        only after a refresh, and the run reported success having read yesterday's files.
        A new session (each Thrift connection, each `dbt` process) lists them anyway, so
        there the refresh only costs its statement (about 25 ms for an Iceberg table, whose
        refresh drops nothing this project's catalogs cache; a file-based table's folder is
        listed again).
    -#}
    {%- for name in scd2_audit._scd2_upstream_relations(node) -%}
        {%- do scd2_audit._scd2_run_sql('refresh table ' ~ name) -%}
    {%- endfor -%}
{%- endmacro %}
