{% macro _scd2_events_raise_moved(ctx, relation, base_snapshot, main) -%}
    {#- The failure of a run that finds the table's main branch moved from `base_snapshot`,
        where it was when the run began to read the table, to `main`: another write committed
        meanwhile, so this run's versions, computed from the table as it was, are not
        written (_scd2_events_publish, and the one-commit rebuild of a run whose events
        changed shape). -#}
    {{ exceptions.raise_compiler_error(
        "scd2_events model " ~ ctx.name ~ ": another write committed to " ~ relation
        ~ " while this run ran (its snapshot moved from " ~ base_snapshot ~ " to " ~ main
        ~ "), so this run's versions, computed from the table as it was, were not "
        ~ "written. Nothing was written. Run the model again, one run at a time.") }}
{%- endmacro %}
