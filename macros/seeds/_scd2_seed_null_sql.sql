{% macro _scd2_seed_null_sql(cell) -%}
    {#-
        SQL that is true when a seed cell is NULL by dbt's rule: agate (dbt_common's
        `build_type_tester`) reads a cell as NULL when, stripped of whitespace and lower-cased,
        it is '' or 'null' (a NULL cell gives NULL, which reads as false).
        The regular expression runs only on the cells that could match, found by byte-wise
        string comparisons that allocate nothing: a cell that starts with a printable ASCII
        character other than `n`/`N` cannot strip to '' or 'null'. Whitespace below `!`
        (`\t`..`\r`, `\x1c`..`\x20`) sorts before '!', and every other whitespace character
        is multi-byte in UTF-8 and sorts after DEL.
    -#}
    {%- set ws = scd2_audit._scd2_seed_whitespace() -%}
    {{- return(
        "((" ~ cell ~ " < '!' or " ~ cell ~ " >= '\\u007f'"
        ~ " or (" ~ cell ~ " >= 'N' and " ~ cell ~ " < 'O')"
        ~ " or (" ~ cell ~ " >= 'n' and " ~ cell ~ " < 'o'))"
        ~ " and " ~ cell ~ " rlike '^(?i)" ~ ws ~ "*(null)?" ~ ws ~ "*$')"
    ) -}}
{%- endmacro %}
