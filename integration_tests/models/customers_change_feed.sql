with customer_changes as (
    {{ scd2_audit.scd2_change_feed(ref('customers_snapshot'), 'customers_snapshot') }}
),

final as (
    select * from customer_changes
)

select * from final
