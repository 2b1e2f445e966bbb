{% test scd2_contiguous_validity(model, unique_key=none, valid_to_current=none) %}
    {#-
        Fails for every version whose validity range is inverted, overlaps the key's next
        version, or leaves a gap before it while the key exists. A key exists without a break
        when the run that closed a version inserted the next one (an update); when the next
        version comes from a later run, the key was deleted in between and a gap is expected.
        Uses the effective range (never NULL), so open versions end at the high-end timestamp.
        On an scd2_events table the version says how it was closed: a gap is expected after
        a delete or a key change, never after an update.
    -#}
    {%- set ctx = scd2_audit._scd2_audit_test_context(
        model, unique_key, valid_to_current, 'scd2_contiguous_validity') %}
    {%- set a = ctx.audit %}
    {#- The effective start as the instant its date or timestamp_ntz stands for (read as UTC,
        as the effective end was written): compared with the ends below. #}
    {%- set start = scd2_audit._scd2_utc_instant_sql(a.effective_start_ts,
        scd2_audit._scd2_column_types(model).get(a.effective_start_ts | lower)) %}
    {%- if ctx.is_events %}
        {%- set continues = "closed_as = 'update'" %}
    {%- else %}
        {%- set continues = 'next_inserted_by = closed_by' %}
    {%- endif %}

    with versions as (
        select * from {{ model }}
    ),

    sequenced as (
        select
            {{ ctx.key_list }},
            {{ ctx.columns.dbt_scd_id }} as scd_id,
            {{ start }} as effective_start,
            {{ a.effective_end_ts }} as effective_end,
            {{ a.update_process_id }} as closed_by,
            {%- if ctx.is_events %}
            {{ scd2_audit.scd2_event_column_names().closed_as }} as closed_as,
            {%- endif %}
            lead({{ start }}) over (
                partition by {{ ctx.key_list }} order by {{ a.effective_start_ts }}, {{ a.effective_end_ts }}
            ) as next_effective_start,
            lead({{ a.insert_process_id }}) over (
                partition by {{ ctx.key_list }} order by {{ a.effective_start_ts }}, {{ a.effective_end_ts }}
            ) as next_inserted_by
        from versions
    ),

    final as (
        select
            *,
            case
                when effective_end < effective_start then 'inverted range'
                when next_effective_start < effective_end then 'overlaps next version'
                when {{ continues }} and next_effective_start > effective_end
                    then 'gap before next version'
            end as problem
        from sequenced
        where
            effective_end < effective_start
            or next_effective_start < effective_end
            or ({{ continues }} and next_effective_start > effective_end)
    )

    select * from final
{% endtest %}
