{% macro _scd2_seed_zone_pattern() -%}
    {#-
        The zone of an ISO 8601 timestamp, as dbt's inference reads it in a seed (`Z`, `+02`,
        `+0200`, `+02:00`): a regular expression of one group, for a Spark SQL string literal.
    -#}
    {{- return('(Z|[+-][0-9]{2}(:?[0-9]{2})?)') -}}
{%- endmacro %}
