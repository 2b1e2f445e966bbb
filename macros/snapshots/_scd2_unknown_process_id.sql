{% macro _scd2_unknown_process_id() -%}
    {#-
        The audit update_process_id of a version closed before its table had the audit
        columns (a snapshot table built by stock dbt, upgraded by _scd2_merge_as_select_sql),
        as SQL: which run closed it is unknown, but it must not sit in the open partition
        (update_process_id NULL), where every run reads it as a version it may close, and
        where a key that comes back found neither its closed versions' ends nor their ids.
    -#}
    {{ return("'unknown: closed before the audit columns'") }}
{%- endmacro %}
