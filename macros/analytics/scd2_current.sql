{% macro scd2_current(relation, include_metadata=false, unique_key=none, valid_to_current=none) -%}
    {{ return(adapter.dispatch('scd2_current', 'scd2_audit')(
        relation, include_metadata, unique_key, valid_to_current)) }}
{%- endmacro %}

{% macro default__scd2_current(
    relation, include_metadata=false, unique_key=none, valid_to_current=none
) -%}
    {#-
        A select of the current state of a snapshot: its open versions, one row per key, with
        the key and data columns (the source row as last snapshotted); dbt's and our metadata
        columns too with include_metadata=true. unique_key only for a relation that is not one
        of this project's snapshots. A deleted key is not there: with hard_deletes='new_record'
        its open row is dbt's deletion record, which is left out. valid_to_current, like
        unique_key, only for a relation that no snapshot of this project builds (a copy of
        one that set dbt_valid_to_current, whose open versions hold that value).
    -#}
    {%- set with_metadata = scd2_audit._scd2_boolean(
        include_metadata, 'scd2_current: include_metadata') -%}
    {%- set ctx = scd2_audit._scd2_history_context(
        relation, unique_key, valid_to_current=valid_to_current) -%}
    {%- set selected = ctx.quoted.data_columns
        + (ctx.quoted.metadata_columns if with_metadata else []) %}
    select
        {{ selected | join(',\n        ') }}
    from {{ relation }}
    where
        {{ ctx.is_open }}
        and not {{ ctx.is_deletion_record }}
{%- endmacro %}
