{% test scd2_one_open_version_per_key(model, unique_key=none, valid_to_current=none) %}
    {#- Fails for every key with more than one open version. -#}
    {%- set ctx = _scd2_test_context(model, unique_key, valid_to_current) %}

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
