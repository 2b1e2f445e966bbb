{{ config(materialized='view') }}

with check_snapshot_changes as (
    {{ scd2_change_feed(ref('cdc_check_snapshot'), 'cdc_check_snapshot') }}
),

timestamp_snapshot_changes as (
    {{ scd2_change_feed(ref('cdc_timestamp_snapshot'), 'cdc_timestamp_snapshot') }}
),

final as (
    select * from check_snapshot_changes
    union all
    select * from timestamp_snapshot_changes
)

select * from final
