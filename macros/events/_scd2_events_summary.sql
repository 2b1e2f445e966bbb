{% macro _scd2_events_summary(ctx, items, views, conf_before) -%}
    {#-
        Counts of the run's classified items (_scd2_events_item_steps) by status, logged as one
        line; fails the run (dropping the run's `views`, putting back the
        session settings `conf_before`), before anything is written, on what its configuration
        does not set aside: malformed and ambiguous events unless
        on_malformed_event='quarantine', late events when on_late_event='fail'. The error
        names one offending event (its key, position, operation and problem) and how many
        there are.
        Returns _scd2_events_summary_of (set_aside: the number of items set aside). The line
        is logged here when nothing is set aside;
        otherwise by _scd2_events_withheld, once the items know which events are set aside
        whole.
    -#}
    {%- set keys = ctx.key_columns -%}
    {%- set query -%}
        select
            scd2_status,
            count(*) as items,
            count_if(scd2_kind = 'upsert') as upserts,
            min_by(
                {{ scd2_audit._scd2_events_json(scd2_audit._scd2_named_struct(
                    keys + ['scd2_position', 'scd2_op', 'scd2_problem'],
                    keys + ['position', 'op', 'problem'])) }},
                scd2_position
            ) as example,
            {{ scd2_audit._scd2_events_is_set_aside() }} as set_aside
        from {{ items }}
        group by scd2_status
    {%- endset -%}
    {%- set counts = {
        'new': 0, 'noop': 0, 'duplicate': 0, 'late': 0, 'ambiguous': 0, 'malformed': 0,
    } -%}
    {%- set examples = {} -%}
    {%- set upserts = {'new': 0, 'noop': 0} -%}
    {%- set total = namespace(set_aside=0) -%}
    {%- for row in run_query(query).rows -%}
        {%- do counts.update({row[0]: row[1]}) -%}
        {%- do upserts.update({row[0]: row[2]}) -%}
        {%- do examples.update({row[0]: row[3]}) -%}
        {%- if row[4] -%}
            {%- set total.set_aside = total.set_aside + row[1] -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if not total.set_aside -%}
        {%- do scd2_audit._scd2_events_log_counts(ctx, counts) -%}
    {%- endif -%}
    {%- set failures = [] -%}
    {%- if counts.malformed and ctx.on_malformed == 'fail' -%}
        {%- do failures.append(counts.malformed ~ " malformed event(s), e.g. "
            ~ examples.malformed ~ ". Fix them at the source, or set "
            ~ "on_malformed_event='quarantine' to set them aside in " ~ ctx.quarantine) -%}
    {%- endif -%}
    {%- if counts.ambiguous and ctx.on_malformed == 'fail' -%}
        {%- do failures.append(counts.ambiguous ~ " event(s) with the key and position "
            ~ "(event_order_by) of another event of other contents, so their order is unknown, "
            ~ "e.g. " ~ examples.ambiguous ~ ". Add a tie-breaker to event_order_by (a log "
            ~ "sequence number, an offset); if they are two deliveries of one change that "
            ~ "differ only in a column the select adds (a load time, a file name), leave it out "
            ~ "of event_value_columns; or set on_malformed_event='quarantine'") -%}
    {%- endif -%}
    {%- if counts.late and ctx.on_late == 'fail' -%}
        {%- do failures.append(counts.late ~ " late event(s): at or before the last event "
            ~ "already applied to their key, and not what the history holds there, e.g. "
            ~ examples.late ~ ". Set on_late_event='quarantine' to set them aside in "
            ~ ctx.quarantine ~ ", or rebuild with --full-refresh from a relation holding "
            ~ "every event") -%}
    {%- endif -%}
    {%- if failures -%}
        {% do scd2_audit._scd2_events_drop_views(views) %}
        {% do scd2_audit._scd2_events_set_conf(conf_before, restore=true) %}
        {{ exceptions.raise_compiler_error(
            "scd2_events model " ~ ctx.name ~ ": " ~ failures | join('; ')
            ~ ". Nothing was written.") }}
    {%- endif -%}
    {{ return(scd2_audit._scd2_events_summary_of(counts, upserts, total.set_aside)) }}
{%- endmacro %}
