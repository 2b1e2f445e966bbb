{% snapshot cdc_timestamp_snapshot %}

{{
    config(
        unique_key=cdc_key_columns(),
        strategy='timestamp',
        updated_at='updated_at',
        hard_deletes='invalidate',
    )
}}

    select * from {{ ref('cdc_source') }}

{% endsnapshot %}
