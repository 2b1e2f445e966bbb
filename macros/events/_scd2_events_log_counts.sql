{% macro _scd2_events_log_counts(ctx, counts, withheld=0) -%}
    {#-
        The run's one line of counts, per status of its change items (_scd2_events_summary);
        `withheld`: new or no-op items not applied because an item of the same event is set
        aside (an event is applied or set aside whole), counted apart from `new` and `no-op`.
    -#}
    {{ log("scd2_events " ~ ctx.name ~ ": events new " ~ counts.new ~ ", no-op " ~ counts.noop
        ~ ", duplicate " ~ counts.duplicate ~ ", late " ~ counts.late ~ ", ambiguous "
        ~ counts.ambiguous ~ ", malformed " ~ counts.malformed
        ~ (", set aside with their event " ~ withheld if withheld else "")
        ~ " (items; an update that changes its key counts twice)", info=true) }}
{%- endmacro %}
