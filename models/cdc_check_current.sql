{{ config(materialized='view') }}

with current_versions as (
    {{ scd2_current(ref('cdc_check_snapshot')) }}
),

final as (
    select * from current_versions
)

select * from final
