{{ config(materialized='view') }}

with history_changes as (
    {{ scd2_change_feed(ref('events_history'), 'events_history') }}
),

final as (
    select * from history_changes
)

select * from final
