{% macro _scd2_seed_trim_sql(cell) -%}
    {#- A cell stripped of Python's whitespace, as agate strips a value before typing it. -#}
    {%- set ws = scd2_audit._scd2_seed_whitespace() -%}
    {{- return("regexp_replace(" ~ cell ~ ", '^" ~ ws ~ "+|" ~ ws ~ "+$', '')") -}}
{%- endmacro %}
