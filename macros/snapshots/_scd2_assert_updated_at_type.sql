{% macro _scd2_assert_updated_at_type(strategy, source_sql) -%}
    {#-
        Fail before anything is read or written when validity follows the source's updated_at
        (_scd2_business_time) and that is not a timestamp or a date. It becomes dbt_valid_from
        and dbt_valid_to, which this project compares with the run's time (keys that come
        back, spark__snapshot_staging_table 7.): text failed a later run with Spark's
        DATA_DIFF_TYPES on `greatest`, and would order its versions as text ('9:00' after
        '10:00'); stock dbt accepts it and compares the text.
    -#}
    {%- if not execute or not scd2_audit._scd2_business_time(strategy) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set described = run_query(
        'describe query select ' ~ strategy.updated_at ~ ' as scd2_updated_at from ('
        ~ source_sql ~ ') as scd2_source') -%}
    {%- set type = described.rows[0][1] | lower -%}
    {%- if type not in scd2_audit._scd2_validity_types() -%}
        {{ exceptions.raise_compiler_error(
            "Snapshot '" ~ model.name ~ "': updated_at (" ~ strategy.updated_at ~ ") is of type "
            ~ type ~ ": it dates and orders the versions (dbt_valid_from, dbt_valid_to), so it "
            ~ "must be a timestamp or a date. Nothing was written. Convert it in the snapshot's "
            ~ "select, e.g. to_timestamp(" ~ strategy.updated_at ~ ") for text or "
            ~ "timestamp_millis(" ~ strategy.updated_at ~ ") for epoch milliseconds; a table "
            ~ "built with text validity then needs --full-refresh.") }}
    {%- endif -%}
{%- endmacro %}
