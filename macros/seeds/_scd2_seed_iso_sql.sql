{% macro _scd2_seed_iso_sql(cell) -%}
    {#-
        SQL that gives the text `cell` with seconds added to an ISO 8601 timestamp written
        to the minute with a zone (`2024-01-05T10:00Z`, `...T10:00+02:00`), which dbt reads as
        a timestamp and Spark's cast does not (it takes `...T10:00` and `...T10:00:00Z`); any
        other text as it is. For the columns dbt's inference types `timestamp`: their test
        (_scd2_seed_infer_types) and their cast (_scd2_seed_select); and for the timestamp
        types pinned in `column_types`, where the cast alone fails. `\z`, not `$`, which
        Java also matches before a last line terminator.
    -#}
    {{- return(
        "regexp_replace(" ~ cell ~ ", '^([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2})("
        ~ scd2_audit._scd2_seed_zone_pattern() ~ ")\\\\z', '$1:00$2')"
    ) -}}
{%- endmacro %}
