{% test scd2_one_open_version_per_key(model, unique_key=none, valid_to_current=none) %}
    {#- Fails for every key with more than one open version. -#}
    {%- set ctx = scd2_audit._scd2_snapshot_context(
        model, unique_key, valid_to_current,
        remedy='Pass `unique_key: [col, ...]` in the test\'s arguments.'
    ) %}

    with versions as (
        select * from {{ model }}
    ),

    final as (
        select
            {{ ctx.key_list }},
            count(*) as open_versions
        from versions
        where {{ ctx.is_open }}
        group by {{ ctx.key_list }}
        having count(*) > 1
    )

    select * from final
{% endtest %}
