{% macro _scd2_events_assert_table(ctx, relation, expected, actual) -%}
    {#-
        Before a later run reads anything: the existing table, whose column names (lower
        case) are `actual`, must be an scd2_events table with the columns this run would
        write (the events' key and value columns as configured, then the metadata columns).
        A table built by something else, or events whose columns changed, fail with both
        lists; nothing is written.
    -#}
    {%- if actual != expected -%}
        {%- set missing = expected | reject('in', actual) | list -%}
        {%- set extra = actual | reject('in', expected) | list -%}
        {{ exceptions.raise_compiler_error(
            "scd2_events model " ~ ctx.name ~ ": the table " ~ relation ~ " does not have the "
            ~ "columns this run writes (not in the table: " ~ missing ~ "; only in the table: "
            ~ extra ~ "; expected, in order: " ~ expected ~ "). Either the events' columns or "
            ~ "the model's settings changed, or the table was not built by scd2_events. "
            ~ "Nothing was written. Restore the columns, or rebuild with --full-refresh from a "
            ~ "relation holding every event.") }}
    {%- endif -%}
{%- endmacro %}
