{{ config(materialized='view') }}

with run_audit as (
    {{ scd2_run_audit(ref('snapshot_change_feed')) }}
),

final as (
    select * from run_audit
)

select * from final
