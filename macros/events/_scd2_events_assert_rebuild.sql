{% macro _scd2_events_assert_rebuild(ctx, existing) -%}
    {#-
        Before a `--full-refresh` of a built table (`dbt run --full-refresh`, and `dbt build
        --full-refresh`, which stock dbt leaves snapshots out of): the rebuild makes the
        history from the events the model's relation holds now. A relation that holds less
        than the history (the latest batch only, as the demo's; a topic with retention) gave
        a history of those events alone, and the versions before them were gone without a
        word (the demo's three days, 24,125 versions, became 7,376). Every version opens at
        an event's time, so a relation holding every event has none later than the history's
        first version: the rebuild is refused, before anything is written, when the
        relation's first event (by the event time, event_order_by's first column) is later
        than that, or when it holds none. A relation that begins as early but lacks some
        keys' events is not seen.
    -#}
    {%- set time = ctx.order_by[0] -%}
    {%- set started = ctx.columns.dbt_valid_from -%}
    {%- set query -%}
        with first_event as (
            select min({{ time }}) as at
            from (
                {{ model['compiled_code'] }}
            ) as scd2_events
        )

        select
            cast(min(f.at) as string) as first_event,
            cast(min(t.{{ started }}) as string) as first_version,
            count_if(f.at is null or t.{{ started }} < f.at) as lost,
            count(*) as versions
        from {{ existing }} as t
        cross join first_event as f
    {%- endset -%}
    {%- set row = run_query(query).rows[0] -%}
    {%- if row[2] -%}
        {{ exceptions.raise_compiler_error(
            "scd2_events model " ~ ctx.name ~ ": --full-refresh rebuilds " ~ existing
            ~ " from the events its relation holds now, "
            ~ ("which begin at " ~ row[0] if row[0] is not none else "which are none")
            ~ ", while its history begins at " ~ row[1] ~ ": the rebuild would drop the "
            ~ row[2] ~ " version(s) (of " ~ row[3] ~ ") that open before. Nothing was "
            ~ "written. A full refresh needs a relation holding every event. To rebuild "
            ~ "from these events alone, drop the table first (drop table " ~ existing
            ~ "); to have --full-refresh leave this model as it is, set full_refresh=false "
            ~ "in its config.") }}
    {%- endif -%}
{%- endmacro %}
