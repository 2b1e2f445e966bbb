{% test scd2_open_closed_metadata(model, unique_key=none, valid_to_current=none) %}
    {#-
        Fails for every open version that does not end at the high-end timestamp or carries
        closing metadata, and every closed version that lacks the closing run's process id and
        time or whose effective end is not dbt's valid_to (a date or timestamp_ntz one read
        as UTC, _scd2_utc_instant_sql).
    -#}
    {%- set ctx = scd2_audit._scd2_audit_test_context(
        model, unique_key, valid_to_current, 'scd2_open_closed_metadata') %}
    {%- set a = ctx.audit %}
    {#- A date or timestamp_ntz valid_to is the effective end read as UTC (whatever the
        session's zone), as the run that closed the version wrote it. #}
    {%- set valid_to = scd2_audit._scd2_utc_instant_sql(ctx.columns.dbt_valid_to,
        scd2_audit._scd2_column_types(model).get(ctx.columns.dbt_valid_to | lower)) %}

    with versions as (
        select * from {{ model }}
    ),

    final as (
        select
            *,
            case when {{ ctx.is_open }} then 'open' else 'closed' end as version_state
        from versions
        where
            case
                when {{ ctx.is_open }} then
                    {{ a.effective_end_ts }} is null
                    or {{ a.effective_end_ts }} != {{ ctx.high_end }}
                    or {{ a.update_process_id }} is not null
                    or {{ a.update_ts }} is not null
                else
                    {{ a.update_process_id }} is null
                    or {{ a.update_ts }} is null
                    or {{ a.effective_end_ts }} is null
                    or {{ a.effective_end_ts }} != {{ valid_to }}
            end
    )

    select * from final
{% endtest %}
