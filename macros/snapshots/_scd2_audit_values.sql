{% macro _scd2_audit_values(event, valid_from=none, valid_to=none) -%}
    {#-
        Select-list items for the audit columns of one build row (see _scd2_audit_exprs), in
        the fixed role order of scd2_audit_column_names().
    -#}
    {%- set audit = scd2_audit.scd2_audit_column_names() -%}
    {%- set exprs = scd2_audit._scd2_audit_exprs(
        event, valid_from=valid_from, valid_to=valid_to) -%}
    {%- for role, name in audit.items() -%}
        {{ exprs[role] }} as {{ name }}{{ ',\n        ' if not loop.last }}
    {%- endfor -%}
{%- endmacro %}
