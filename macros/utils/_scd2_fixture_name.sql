{% macro _scd2_fixture_name(relation) -%}
    {#-
        The name of the relation that `relation` stands for in a dbt unit test, or none: dbt
        passes a unit test's fixture to the model as `__dbt__cte__<name>`, a CTE of the test's
        own query (an ephemeral model's CTE is named so too), which Spark cannot describe, and
        gives macros no graph there. One definition, for the analyst macros' column types and
        their message.
    -#}
    {%- set prefix = '__dbt__cte__' -%}
    {%- if relation.identifier is defined and relation.identifier
            and relation.identifier.startswith(prefix) -%}
        {{ return(relation.identifier[prefix | length:]) }}
    {%- endif -%}
    {{ return(none) }}
{%- endmacro %}
