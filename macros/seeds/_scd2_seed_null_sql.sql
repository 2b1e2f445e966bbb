{% macro _scd2_seed_null_sql(cell, rare=false) -%}
    {#-
        SQL that is true when a seed cell is NULL by dbt's rule: agate (dbt_common's
        `build_type_tester`) reads a cell as NULL when, stripped of whitespace and lower-cased,
        it is '' or 'null' (a NULL cell gives NULL, which reads as false).
        The regular expression runs only on the cells that could match, found by the first
        character's code point (`ascii`, 0 for ''): a cell that starts with a printable ASCII
        character (33 to 126) other than `N` (78) or `n` (110) cannot strip to '' or 'null',
        since every whitespace character is below 33 or above 126. The test is one function of
        the cell, where byte-wise comparisons took five: a seed's select holds it once per
        column, and Spark's analysis of a 16-column seed's select took 0.09 to 0.12 s with the
        comparisons against 0.04 s with `ascii`, for the same speed over 1,000,000 rows
        (docs/seeds.md, "Known limit: the speed of small seeds"). The expression is
        `ws*(null ws*)?`, not `ws*(null)? ws*`: on a cell of many blanks before other text the
        latter tried every split of the blanks between its two runs: about half a million
        steps for a cell of 1,000 blanks, and two minutes for three loads of 1,100 such rows.
        `rare`: the caller tests only cells that are rarely NULL by the rule (a typed column,
        where the cast gave NULL): the regular expression alone, without the test of the first
        character, which would only make the select's tree larger.
    -#}
    {%- set ws = scd2_audit._scd2_seed_whitespace() -%}
    {%- set pattern = cell ~ " rlike '^(?i)" ~ ws ~ "*(null" ~ ws ~ "*)?$'" -%}
    {%- if rare -%}
        {{- return(pattern) -}}
    {%- endif -%}
    {{- return(
        "((ascii(" ~ cell ~ ") not between 33 and 126 or ascii(" ~ cell ~ ") in (78, 110))"
        ~ " and " ~ pattern ~ ")"
    ) -}}
{%- endmacro %}
