{% snapshot cdc_check_snapshot %}

{{
    config(
        unique_key=cdc_key_columns(),
        strategy='check',
        check_cols='all',
        hard_deletes='invalidate',
    )
}}

    select * from {{ ref('cdc_source') }}

{% endsnapshot %}
