{% macro _scd2_refresh_unless_upstream(relation) -%}
    {#-
        Refreshes `relation` (_scd2_refresh_relation), so that a select over a folder's files
        (scd2_debezium_events, scd2_wal2json_events) reads them as they are now: a relation
        given otherwise than through ref() or source(), or a model of another
        materialization, would miss the day's new files. What a snapshot or an scd2_events
        model reads through ref() or source() its run refreshes itself
        (_scd2_refresh_upstream), so not here too: a second refresh lists the folder again.
        At execution only.
    -#}
    {%- if execute -%}
        {%- set refreshed = [] -%}
        {%- if model.config.materialized in ['snapshot', 'scd2_events'] -%}
            {%- for upstream in scd2_audit._scd2_upstream_relations(model) -%}
                {%- do refreshed.append(scd2_audit._scd2_table_relation(upstream) | string) -%}
            {%- endfor -%}
        {%- endif -%}
        {%- if (scd2_audit._scd2_table_relation(relation) | string) not in refreshed -%}
            {%- do scd2_audit._scd2_refresh_relation(relation) -%}
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}
