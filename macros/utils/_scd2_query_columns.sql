{% macro _scd2_query_columns(sql) -%}
    {#-
        The columns of a query as [{'name': ..., 'type': ...}], both as Spark gives them (a
        struct's field names keep their case in its type), from one `describe query`: Spark
        analyses the query without running it. One call serves every check of a run that
        needs the query's columns, where each of dbt's `get_columns_in_query` is a statement
        of its own.
    -#}
    {%- set columns = [] -%}
    {%- for row in run_query('describe query\n' ~ sql).rows -%}
        {%- do columns.append({'name': row[0], 'type': row[1]}) -%}
    {%- endfor -%}
    {{ return(columns) }}
{%- endmacro %}
