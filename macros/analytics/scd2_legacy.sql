{% macro scd2_legacy(relation, unique_key=none, valid_to_current=none) -%}
    {{ return(adapter.dispatch('scd2_legacy', 'scd2_audit')(
        relation, unique_key, valid_to_current)) }}
{%- endmacro %}

{% macro default__scd2_legacy(relation, unique_key=none, valid_to_current=none) -%}
    {#-
        A select of every column of a snapshot, in table order, with dbt's valid_to of open
        versions set to the high-end timestamp (scd2_high_end_ts()) instead of NULL: for
        consumers that expect an end on every row, and one value on every open version.
        The ranges stay dbt's, half-open: a version ends where the next starts, so a moment
        is in one as `valid_from <= moment and moment < valid_to` (`between` takes both
        versions at a change's moment, and with a date validity on each day of a change).
        Deletion records (hard_deletes='new_record') are rows here, as in the table.
        So also on a snapshot that sets dbt_valid_to_current, whose open versions hold that
        value (or NULL, those opened before it was set): the view showed them as they are,
        two values where consumers look for the high end.
        unique_key and valid_to_current as for scd2_current: only for a relation that no
        snapshot of this project builds.
        The column keeps its type: a date or timestamp_ntz validity (a timestamp strategy on
        such an updated_at) gets the high end's UTC date or wall time, as its closed versions
        were written.
    -#}
    {%- set ctx = scd2_audit._scd2_history_context(
        relation, unique_key, valid_to_current=valid_to_current) -%}
    {%- set valid_to = ctx.columns.dbt_valid_to | lower -%}
    {%- set high_end = scd2_audit._scd2_instant_as_sql(
        ctx.high_end, ctx.types.get(valid_to)) %}
    select
        {%- for column in ctx.quoted.all_columns %}
        {% if ctx.all_columns[loop.index0] == valid_to -%}
        case when {{ ctx.is_open }} then {{ high_end }} else {{ column }} end as {{ column }}
        {%- else -%}
        {{ column }}
        {%- endif -%}
        {{ ',' if not loop.last }}
        {%- endfor %}
    from {{ relation }}
{%- endmacro %}
