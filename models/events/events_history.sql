{#- The demo's change events (the generator's events mode, `make demo DEMO_ARGS="--events
    flat"` or `debezium`) into SCD2 history: docs/events.md. -#}
{%- set keys = cdc_key_columns() -%}
{%- set before_keys = [] -%}
{%- for key in keys -%}
    {%- do before_keys.append('before_' ~ key) -%}
{%- endfor -%}

{{
    config(
        materialized='scd2_events',
        unique_key=keys,
        event_order_by=['event_ts', 'event_lsn'],
        event_old_key_columns=before_keys,
    )
}}

with events as (
    {% if var('demo_events') == 'debezium' -%}
        {{ scd2_audit.scd2_debezium_events(
            source('demo_events', 'raw_debezium_events'), keys) }}
    {%- else -%}
        select * from {{ source('demo_events', 'raw_events') }}
    {%- endif %}
),

final as (
    select * from events
)

select * from final
