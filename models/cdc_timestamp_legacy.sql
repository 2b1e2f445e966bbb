{{ config(materialized='view') }}

with legacy_versions as (
    {{ scd2_legacy(ref('cdc_timestamp_snapshot')) }}
),

final as (
    select * from legacy_versions
)

select * from final
