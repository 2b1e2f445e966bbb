{% macro _scd2_refresh_upstream(node) -%}
    {#-
        _scd2_refresh_relation for each relation `node` reads through ref() and source()
        (_scd2_upstream_relations): a snapshot or an scd2_events run reads its sources as they
        are now.
    -#}
    {%- for relation in scd2_audit._scd2_upstream_relations(node) -%}
        {%- do scd2_audit._scd2_refresh_relation(relation) -%}
    {%- endfor -%}
{%- endmacro %}
