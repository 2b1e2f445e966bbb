{% macro _scd2_is_plain_name(name) -%}
    {#-
        Whether `name` is a plain column name (letters, digits and underscores, not starting
        with a digit): one that Spark SQL takes unquoted.
    -#}
    {{ return(modules.re.fullmatch('[A-Za-z_][A-Za-z0-9_]*', name | string) is not none) }}
{%- endmacro %}
