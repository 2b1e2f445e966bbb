{% macro _scd2_upstream_relations(node) -%}
    {#- The relations `node` reads through ref() and source() (_scd2_upstream_references). -#}
    {{- return(scd2_audit._scd2_upstream_references(node) | map(attribute='relation') | list) -}}
{%- endmacro %}
