{% macro _scd2_column_names(var_name, defaults) -%}
    {#-
        Role -> column name, from the project var `var_name` over `defaults`: the one place
        that reads and validates a column-naming var (scd2_audit_column_names,
        scd2_event_column_names). Validated here because a bad name would otherwise surface
        as an obscure Spark error in the middle of a run.
    -#}
    {%- set configured = var(var_name, {}) or {} -%}
    {%- if configured is not mapping -%}
        {{ exceptions.raise_compiler_error(
            "var '" ~ var_name ~ "' must be a mapping of role -> column name, got: "
            ~ configured ~ ". Fix it in dbt_project.yml (vars) or in --vars.") }}
    {%- endif -%}
    {%- set unknown = configured.keys() | reject('in', defaults.keys()) | list -%}
    {%- if unknown -%}
        {{ exceptions.raise_compiler_error(
            "var '" ~ var_name ~ "' has unknown roles " ~ unknown
            ~ "; the roles are " ~ (defaults.keys() | list) ~ ".") }}
    {%- endif -%}
    {%- set names = {} -%}
    {%- for role, default_name in defaults.items() -%}
        {%- set name = configured.get(role) or default_name -%}
        {%- if not scd2_audit._scd2_is_plain_name(name) -%}
            {{ exceptions.raise_compiler_error(
                "var '" ~ var_name ~ "': '" ~ name ~ "' (role " ~ role
                ~ ") is not a plain column name: use letters, digits and underscores.") }}
        {%- endif -%}
        {%- do names.update({role: name | lower}) -%}
    {%- endfor -%}
    {%- if names.values() | unique | list | length != names | length -%}
        {{ exceptions.raise_compiler_error(
            "var '" ~ var_name ~ "' gives two roles the same column name: " ~ names) }}
    {%- endif -%}
    {{ return(names) }}
{%- endmacro %}
