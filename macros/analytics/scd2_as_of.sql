{% macro scd2_as_of(relation, as_of, include_metadata=false, unique_key=none) -%}
    {{ return(adapter.dispatch('scd2_as_of', 'scd2_audit')(
        relation, as_of, include_metadata, unique_key)) }}
{%- endmacro %}

{% macro default__scd2_as_of(relation, as_of, include_metadata=false, unique_key=none) -%}
    {#-
        A select of the state of a snapshot as of a moment: the versions valid then, one row per
        key that existed, with the key and data columns (metadata with include_metadata=true).
        A version is valid at t when effective_start <= t < effective_end (the effective range
        is never NULL: open versions end at the high-end timestamp), and an open version (dbt's
        rule, _scd2_open_version_sql) at every t from its start, as its NULL dbt_valid_to says:
        at the high end itself too, where `t < effective_end` alone left no row.
        as_of: a SQL timestamp expression (current_timestamp(), a column, ...) or an ISO 8601
        text ('YYYY-MM-DD[ HH:MM[:SS]]', 'T' or a space, optional 'Z' or offset), without a
        zone read as UTC (_scd2_utc_timestamp_sql).
        The time axis is the snapshot's validity: processing time for the check strategy;
        the source's updated_at for the timestamp strategy (hard deletes close at processing
        time there too, as dbt does, and a key back with an older updated_at starts at the
        run's time: docs/snapshot-metadata.md, "When the source changes shape or keys come back"). The versions
        of a key never overlap, so there is at most one row per key. A key deleted then is not
        there: dbt's deletion records (hard_deletes='new_record') are left out.
    -#}
    {%- set with_metadata = scd2_audit._scd2_boolean(
        include_metadata, 'scd2_as_of: include_metadata') -%}
    {%- set moment = scd2_audit._scd2_timestamp_sql(as_of) -%}
    {%- set ctx = scd2_audit._scd2_history_context(relation, unique_key, needs_audit=true) -%}
    {%- set selected = ctx.quoted.data_columns
        + (ctx.quoted.metadata_columns if with_metadata else []) %}
    select
        {{ selected | join(',\n        ') }}
    from {{ relation }}
    where
        {{ ctx.effective_start }} <= {{ moment }}
        and ({{ moment }} < {{ ctx.audit.effective_end_ts }} or {{ ctx.is_open }})
        and not {{ ctx.is_deletion_record }}
{%- endmacro %}
