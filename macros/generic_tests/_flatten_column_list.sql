{% macro _flatten_column_list(columns) -%}
    {#-
        The column names of a generic test's `columns` argument: a name, or a list whose items
        are names or lists of names (one level), as written in YAML or returned by a macro.
        Fails on an empty result (which would make the test vacuous) once executing; at parse
        time dbt passes stand-ins for macro-supplied arguments.
    -#}
    {%- set names = [] -%}
    {%- for item in ([columns] if columns is string else columns or []) -%}
        {%- for name in ([item] if item is string else item) -%}
            {%- do names.append(name) -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- if execute and not names -%}
        {{ exceptions.raise_compiler_error("generic test: `columns` names no column.") }}
    {%- endif -%}
    {{ return(names) }}
{%- endmacro %}
