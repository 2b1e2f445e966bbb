{% macro _scd2_assert_updated_at_type(strategy, source_sql, query_columns) -%}
    {#-
        Fail before anything is read or written when validity follows the source's updated_at
        (_scd2_business_time) and that is not a timestamp or a date. It becomes dbt_valid_from
        and dbt_valid_to, which this project compares with the run's time (keys that come
        back, spark__snapshot_staging_table 7.): text failed a later run with Spark's
        DATA_DIFF_TYPES on `greatest`, and would order its versions as text ('9:00' after
        '10:00'); stock dbt accepts it and compares the text.
        Its type: _scd2_updated_at_type, from `query_columns` (_scd2_query_columns).
        A date or timestamp_ntz updated_at also needs a dbt_valid_to_current of its type.
        Returns the type (none where validity follows the run's time).
    -#}
    {%- if not execute or not scd2_audit._scd2_business_time(strategy) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set type = scd2_audit._scd2_updated_at_type(strategy, source_sql, query_columns) -%}
    {%- if type not in scd2_audit._scd2_validity_types() -%}
        {{ exceptions.raise_compiler_error(
            "Snapshot '" ~ model.name ~ "': updated_at (" ~ strategy.updated_at ~ ") is of type "
            ~ type ~ ": it dates and orders the versions (dbt_valid_from, dbt_valid_to), so it "
            ~ "must be a timestamp or a date. Nothing was written. Convert it in the snapshot's "
            ~ "select, e.g. to_timestamp(" ~ strategy.updated_at ~ ") for text or "
            ~ "timestamp_millis(" ~ strategy.updated_at ~ ") for epoch milliseconds; a table "
            ~ "built with text validity must be rebuilt: snapshots have no --full-refresh, so drop "
            ~ "it and run the snapshot again.") }}
    {%- endif -%}
    {#- dbt_valid_to_current must then be of the same type: a timestamp beside a date or
        timestamp_ntz dbt_valid_from built the table, and failed every later run. A date
        beside a timestamp updated_at is widened to one, and works. -#}
    {%- if config.get('dbt_valid_to_current') and type != 'timestamp' -%}
        {%- do scd2_audit._scd2_assert_valid_to_current(none, type,
            'updated_at (' ~ strategy.updated_at ~ ')') -%}
    {%- endif -%}
    {{ return(type) }}
{%- endmacro %}
