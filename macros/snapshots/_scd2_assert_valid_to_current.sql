{% macro _scd2_assert_valid_to_current(
    subject=none, valid_from_type=none, valid_from_source='the event time'
) -%}
    {#-
        Fail before anything is written when dbt_valid_to_current is set but is no constant,
        non-null timestamp or date. dbt writes the expression as it is into the open versions'
        dbt_valid_to, and finds them on later runs by comparing dbt_valid_to with it again:
        - text (a quoted '9999-12-31') made dbt_valid_to a string column, compared and ordered
          as text, in stock dbt-spark as here (Spark's coalesce of a timestamp and a string is
          a string);
        - an expression that changes between runs (current_timestamp()) matched no open
          version on the next run, which then opened every key again: two open versions each;
        - NULL is dbt's own open value: the setting then does nothing, which is not what it
          was set for.
        The expression is evaluated in two queries: a value that differs is no constant.
        `subject` starts the message (default: "Snapshot '<name>'"; an scd2_events model
        gives its own). With `valid_from_type` (the type of what dbt_valid_from holds,
        `valid_from_source`: an scd2_events model's event time, or a snapshot's date or
        timestamp_ntz updated_at, _scd2_assert_updated_at_type), the value must be of that
        type too: a timestamp beside a date event time made dbt_valid_to a timestamp column
        beside a date dbt_valid_from, each closed version ending at midnight of a timestamp;
        in a snapshot, the second run failed on Spark's DATATYPE_MISMATCH (a date) or on a
        type check that blamed the source (a timestamp_ntz).
    -#}
    {%- set expression = config.get('dbt_valid_to_current') -%}
    {%- if not execute or not expression -%}{{ return(none) }}{%- endif -%}
    {%- set subject = subject or ("Snapshot '" ~ model.name ~ "'") -%}
    {%- set where = subject ~ ": dbt_valid_to_current (" ~ expression ~ ")" -%}
    {%- set remedy = " Nothing was written. Give a constant timestamp or date, e.g. "
        ~ "dbt_valid_to_current=\"to_timestamp('9999-12-31 23:59:59Z')\" or "
        ~ "\"to_date('9999-12-31')\"; leave it unset for dbt's NULL." -%}
    {#- PostgreSQL's cast, as other adapters' examples write the setting: Spark 3.5's parser
        failed on it with a syntax error that named neither the setting nor the fix. -#}
    {%- if '::' in expression | string -%}
        {{ exceptions.raise_compiler_error(
            where ~ " casts with ::, which Spark SQL does not read." ~ remedy) }}
    {%- endif -%}
    {%- set query -%}
        select
            typeof(scd2_current) as scd2_type,
            cast(scd2_current as string) as scd2_value
        from (select {{ expression }} as scd2_current) as scd2_config
    {%- endset -%}
    {%- set first = run_query(query).rows[0] -%}
    {%- set second = run_query(query).rows[0] -%}
    {%- if first[0] | lower not in scd2_audit._scd2_validity_types() + ['void'] -%}
        {{ exceptions.raise_compiler_error(
            where ~ " is of type " ~ first[0] ~ ": it becomes the open versions' dbt_valid_to, "
            ~ "so it must be a timestamp or a date like dbt_valid_from (text would make "
            ~ "dbt_valid_to a text column, ordered as text)." ~ remedy) }}
    {%- elif first[1] is none -%}
        {{ exceptions.raise_compiler_error(
            where ~ " is NULL: the open versions would carry dbt's own NULL, as without the "
            ~ "setting." ~ remedy) }}
    {%- elif valid_from_type and first[0] | lower != valid_from_type | lower -%}
        {{ exceptions.raise_compiler_error(
            where ~ " is of type " ~ first[0] ~ " but " ~ valid_from_source ~ ", which "
            ~ "dbt_valid_from holds, is of type " ~ valid_from_type ~ ": dbt_valid_to would be of another "
            ~ "type than dbt_valid_from. Nothing was written. Give a " ~ valid_from_type
            ~ {
                'date': ", e.g. \"to_date('9999-12-31')\"",
                'timestamp_ntz': ", e.g. \"to_timestamp_ntz('9999-12-31 23:59:59')\"",
            }.get(valid_from_type | lower, ", e.g. \"to_timestamp('9999-12-31 23:59:59Z')\"")
            ~ ".") }}
    {%- elif first[1] != second[1] -%}
        {{ exceptions.raise_compiler_error(
            where ~ " gave " ~ first[1] ~ ", then " ~ second[1] ~ ": later runs find the open "
            ~ "versions by comparing dbt_valid_to with it, so it must not change (a run "
            ~ "would then find none, and open every key again)." ~ remedy) }}
    {%- endif -%}
{%- endmacro %}
