{% macro _scd2_seed_load_method(model) -%}
    {#-
        How a seed reaches Spark, from the seed config `seed_load_method`:
        - `spark_csv` (default): Spark's own CSV reader reads the file. Needs the Spark driver
          and executors to see the file at the path dbt sees: the `session` method (Spark in
          dbt's own process), a Thrift server on the same machine, or one that shares the
          project's filesystem at the same path. A server that cannot see it fails the seed
          with PATH_NOT_FOUND before anything is written.
        - `sql_inserts`: dbt reads the file and sends its rows as SQL batches (slow; works
          with any server).
        Not detected: a dbt macro cannot see the connection method (dbt-spark's `target` holds
        only host, port, cluster, endpoint, schema and organization) nor recover from a failed
        probe query, and a guess by host name could load another machine's copy of the file.
    -#}
    {%- set allowed = ['spark_csv', 'sql_inserts'] -%}
    {%- set method = config.get('seed_load_method') or 'spark_csv' -%}
    {%- if method not in allowed -%}
        {{ exceptions.raise_compiler_error(
            "Seed '" ~ model['name'] ~ "': seed_load_method must be one of " ~ allowed | join(', ')
            ~ ", got '" ~ method ~ "'. Fix it in the seed's config (dbt_project.yml or its"
            ~ " properties file). Nothing was written; the seed table is unchanged.") }}
    {%- endif -%}
    {{- return(method) -}}
{%- endmacro %}
