{% macro _scd2_is_deleted_sql(column) -%}
    {#-
        SQL that is true on a deletion record (hard_deletes='new_record': dbt_is_deleted
        'True'), false on every other row, never NULL. A version written while hard_deletes
        was not new_record holds NULL there (dbt writes the column only under new_record):
        read as unknown, such a key was neither deleted when it left the source nor counted
        by the mass-delete guard, after a switch back to new_record.
    -#}
    {{- return("coalesce(cast(" ~ column ~ " as string) = 'True', false)") -}}
{%- endmacro %}
