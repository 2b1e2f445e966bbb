{{ config(materialized='view') }}

with current_versions as (
    {{ scd2_current(ref('cdc_timestamp_snapshot')) }}
),

final as (
    select * from current_versions
)

select * from final
