{% macro _scd2_seed_iso_sql(cell, blanks='') -%}
    {#-
        SQL that gives the text `cell` with seconds added to an ISO 8601 timestamp written
        to the minute with a zone (`2024-01-05T10:00Z`, `...T10:00+02:00`), which dbt reads as
        a timestamp and Spark's cast does not (it takes `...T10:00` and `...T10:00:00Z`); any
        other text as it is. For the type inference's test of a column (_scd2_seed_infer_types,
        on text already stripped), and for the cast of every timestamp column, inferred or
        pinned in `column_types`, where the cast alone fails (_scd2_seed_select): `blanks`
        (the inside of a regular-expression class, _scd2_seed_blanks) are then taken off
        around it, as Spark's cast skips them. `\z`, not `$`, which Java also matches before
        a last line terminator.
    -#}
    {%- set around = '[' ~ blanks ~ ']*' if blanks else '' -%}
    {{- return(
        "regexp_replace(" ~ cell ~ ", '^" ~ around
        ~ "([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2})("
        ~ scd2_audit._scd2_seed_zone_pattern() ~ ")" ~ around ~ "\\\\z', '$1:00$2')"
    ) -}}
{%- endmacro %}
