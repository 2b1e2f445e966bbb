{% test not_null_columns(model, columns) %}
    {#-
        Fails for every row with a NULL in any of `columns` (a list; an item may itself be a
        list, e.g. "{{ cdc_key_columns() }}", so that a macro can supply part of it).
    -#}
    {%- set names = scd2_audit._flatten_column_list(columns) %}

    with rows_under_test as (
        select * from {{ model }}
    ),

    final as (
        select * from rows_under_test
        where
            {%- for name in names %}
            {{ name }} is null{{ ' or' if not loop.last }}
            {%- endfor %}
    )

    select * from final
{% endtest %}
