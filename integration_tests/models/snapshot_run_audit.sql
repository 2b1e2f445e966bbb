with run_audit as (
    {{ scd2_audit.scd2_run_audit(ref('customers_change_feed')) }}
),

final as (
    select * from run_audit
)

select * from final
