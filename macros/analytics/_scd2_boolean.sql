{% macro _scd2_boolean(value, what) -%}
    {#-
        An argument meant as true or false, also when given as text (from --vars or a
        YAML string: 'false' is a non-empty string, which Jinja takes as true). Anything else
        fails, naming `what`.
    -#}
    {%- if value is none or value is boolean -%}
        {{ return(value is true) }}
    {%- endif -%}
    {%- set text = value | string | trim | lower -%}
    {%- if text in ['true', 'false'] -%}
        {{ return(text == 'true') }}
    {%- endif -%}
    {#- At execution only, like the macros' other checks: dbt's parse of an inline query
        (dbt show/compile --inline) reports a parse-time error without its message. -#}
    {%- if execute -%}
        {{ exceptions.raise_compiler_error(what ~ " must be true or false, got " ~ value ~ ".") }}
    {%- endif -%}
    {{ return(false) }}
{%- endmacro %}
