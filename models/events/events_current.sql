{{ config(materialized='view') }}

with current_versions as (
    {{ scd2_current(ref('events_history')) }}
),

final as (
    select * from current_versions
)

select * from final
