{% macro _scd2_refresh_relation(relation, exists=none) -%}
    {#-
        `refresh table` for the table or view `relation` names, before a run reads it. Spark
        keeps the list of a file-based table's files (`using json`, `using csv`, a Hive
        table, or a view over one) for the session: a session that runs dbt more than once (a
        notebook, dbtRunner, a long-lived process) read the files of its first run, missed
        the day's new ones and reported success, or failed on a file replaced since.
        Left alone: a string, a unit test's fixture or an ephemeral model's CTE (not a
        table; _scd2_upstream_references gives what the ephemeral model reads), and a
        relation that does not exist or cannot be asked about, or a view of a catalog that
        cannot refresh it (_scd2_relation_exists): the query itself reports what it cannot
        read. `exists`, where the caller asked already, spares asking again. About 50 to 80
        ms a relation; a file-based table's folder is listed again.
    -#}
    {%- set exists = exists if exists is not none
        else scd2_audit._scd2_relation_exists(relation) -%}
    {%- if exists is sameas true -%}
        {%- do scd2_audit._scd2_run_sql('refresh table '
            ~ scd2_audit._scd2_table_relation(relation)) -%}
    {%- endif -%}
{%- endmacro %}
