{% macro _scd2_seed_null_sql(cell) -%}
    {#-
        SQL that is true when a seed cell is NULL by dbt's rule: agate (dbt_common's
        `build_type_tester`) reads a cell as NULL when, stripped of whitespace and lower-cased,
        it is '' or 'null'.
        The regular expression is only evaluated for cells that could match: a cell longer than
        four characters that starts and ends with a printable ASCII character is never NULL.
    -#}
    {%- set ws = _scd2_seed_whitespace() -%}
    {{- return(
        '(' ~ cell ~ ' is null or ((length(' ~ cell ~ ') <= 4'
        ~ ' or not (substr(' ~ cell ~ ', 1, 1) between \'!\' and \'~\''
        ~ ' and substr(' ~ cell ~ ', -1, 1) between \'!\' and \'~\'))'
        ~ ' and ' ~ cell ~ " rlike '^(?i)" ~ ws ~ '*(null)?' ~ ws ~ "*$'))"
    ) -}}
{%- endmacro %}
