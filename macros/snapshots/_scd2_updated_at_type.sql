{% macro _scd2_updated_at_type(strategy, source_sql, query_columns=[]) -%}
    {#-
        The Spark type (lower case) of the snapshot's updated_at: from `query_columns`
        (_scd2_query_columns) where updated_at names one column of the query, else from a
        `describe query` of the expression over `source_sql`.
    -#}
    {%- set name = scd2_audit._scd2_unquoted_name(strategy.updated_at) | lower -%}
    {%- set types = [] -%}
    {%- for column in query_columns if column.name | lower == name -%}
        {%- do types.append(column.type | lower) -%}
    {%- endfor -%}
    {%- if types | length == 1 -%}
        {{ return(types[0]) }}
    {%- endif -%}
    {{ return(scd2_audit._scd2_query_columns(
        'select ' ~ strategy.updated_at ~ ' as scd2_updated_at from ('
        ~ source_sql ~ '\n) as scd2_source')[0].type | lower) }}
{%- endmacro %}
