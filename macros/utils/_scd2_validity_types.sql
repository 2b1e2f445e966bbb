{% macro _scd2_validity_types() -%}
    {#-
        The Spark types that can date a version (dbt_valid_from, dbt_valid_to): a snapshot's
        updated_at and an event time must be one of them. The run's own time is the first.
    -#}
    {{ return(['timestamp', 'timestamp_ntz', 'date']) }}
{%- endmacro %}
