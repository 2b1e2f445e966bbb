with current_customers as (
    {{ scd2_audit.scd2_current(ref('customers_snapshot')) }}
),

final as (
    select * from current_customers
)

select * from final
