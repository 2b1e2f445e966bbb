{% macro _scd2_business_time(strategy) -%}
    {#-
        Whether the snapshot's validity follows a source column, the strategy's updated_at
        (the timestamp strategy, or check with updated_at), rather than the run's time (dbt's
        check strategy without updated_at sets updated_at to snapshot_get_time()).
    -#}
    {{ return((strategy.updated_at | trim) != (snapshot_get_time() | trim)) }}
{%- endmacro %}
