{% macro _scd2_stock_built_advice() -%}
    {#-
        What to do about a snapshot table built by dbt's own snapshot macros (dbt's columns,
        none of the audit ones), for the messages of the macros that read the audit columns
        (_scd2_audit_test_context, _scd2_history_context).
    -#}
    {{ return("A snapshot built by dbt's own snapshot macros lacks the audit columns: install "
        ~ "the package as docs/package.md says (its dispatch block and snapshot wrapper), and "
        ~ "the snapshot's next run adds them.") }}
{%- endmacro %}
