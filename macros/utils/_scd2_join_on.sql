{% macro _scd2_join_on(columns, left, right) -%}
    {#- `<left>.c = <right>.c and ...` over `columns`: a join on a (composite) key. -#}
    {%- set conditions = [] -%}
    {%- for column in columns -%}
        {%- do conditions.append(left ~ '.' ~ column ~ ' = ' ~ right ~ '.' ~ column) -%}
    {%- endfor -%}
    {{ return(conditions | join(' and ')) }}
{%- endmacro %}
