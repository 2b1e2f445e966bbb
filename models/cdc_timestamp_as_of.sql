{{ config(materialized='view') }}

with versions_as_of as (
    {{ scd2_as_of(ref('cdc_timestamp_snapshot'), var('as_of_ts', 'current_timestamp()')) }}
),

final as (
    select * from versions_as_of
)

select * from final
