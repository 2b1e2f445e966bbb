{% test scd2_insert_metadata(model, unique_key=none, valid_to_current=none) %}
    {#-
        Fails for every version without the inserting run's process id and time, or without an
        effective start equal to dbt's valid_from.
    -#}
    {%- set ctx = scd2_audit._scd2_audit_test_context(
        model, unique_key, valid_to_current, 'scd2_insert_metadata') %}
    {%- set a = ctx.audit %}

    with versions as (
        select * from {{ model }}
    ),

    final as (
        select * from versions
        where
            {{ a.insert_process_id }} is null
            or {{ a.insert_ts }} is null
            or {{ a.effective_start_ts }} is null
            or {{ a.effective_start_ts }} != {{ ctx.columns.dbt_valid_from }}
    )

    select * from final
{% endtest %}
