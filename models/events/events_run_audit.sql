{{ config(materialized='view') }}

with run_audit as (
    {{ scd2_run_audit(ref('events_change_feed')) }}
),

final as (
    select * from run_audit
)

select * from final
