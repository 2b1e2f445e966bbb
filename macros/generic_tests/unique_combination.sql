{% test unique_combination(model, columns) %}
    {#-
        Fails for every combination of `columns` that appears on more than one row (rows with
        a NULL in the combination included: NULL parts compare equal here). `columns` is a
        list; an item may itself be a list, e.g. [snapshot_name, "{{ cdc_key_columns() }}"],
        so that a macro can supply part of it.
    -#}
    {%- set names = scd2_audit._flatten_column_list(columns) %}

    with rows_under_test as (
        select * from {{ model }}
    ),

    final as (
        select
            {{ names | join(',\n            ') }},
            count(*) as occurrences
        from rows_under_test
        group by {{ names | join(', ') }}
        having count(*) > 1
    )

    select * from final
{% endtest %}
