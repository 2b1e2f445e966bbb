{% macro _scd2_seed_trim_sql(cell) -%}
    {#- A cell stripped of Python's whitespace, as agate strips a value before typing it. The
        trailing run is matched only where a run starts (the lookbehind): tried from every
        blank of a long run, it took steps quadratic in the run's length. -#}
    {%- set ws = scd2_audit._scd2_seed_whitespace() -%}
    {{- return("regexp_replace(" ~ cell ~ ", '^" ~ ws ~ "+|(?<!" ~ ws ~ ")" ~ ws ~ "+$', '')") -}}
{%- endmacro %}
