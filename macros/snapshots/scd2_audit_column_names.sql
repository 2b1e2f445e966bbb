{% macro scd2_audit_column_names() -%}
    {{ return(adapter.dispatch('scd2_audit_column_names', 'scd2_audit')()) }}
{%- endmacro %}

{% macro default__scd2_audit_column_names() -%}
    {#-
        The one definition of the operational metadata columns: role -> column name.
        Roles are fixed (the overrides rely on them); names come from the project var
        `scd2_audit_column_names`, so a project can rename any of them in one place.
        Validated here because a bad name would otherwise surface as an obscure Spark error
        in the middle of a snapshot run.
    -#}
    {%- set defaults = {
        'insert_process_id': 'audit_insert_process_id',
        'update_process_id': 'audit_update_process_id',
        'insert_ts': 'audit_insert_ts',
        'update_ts': 'audit_update_ts',
        'effective_start_ts': 'effective_start_ts',
        'effective_end_ts': 'effective_end_ts',
    } -%}
    {%- set configured = var('scd2_audit_column_names', {}) or {} -%}
    {%- if configured is not mapping -%}
        {{ exceptions.raise_compiler_error(
            "var 'scd2_audit_column_names' must be a mapping of role -> column name, got: "
            ~ configured ~ ". Fix it in dbt_project.yml (vars) or in --vars.") }}
    {%- endif -%}
    {%- set unknown = configured.keys() | reject('in', defaults.keys()) | list -%}
    {%- if unknown -%}
        {{ exceptions.raise_compiler_error(
            "var 'scd2_audit_column_names' has unknown roles " ~ unknown
            ~ "; the roles are " ~ (defaults.keys() | list) ~ ".") }}
    {%- endif -%}
    {%- set names = {} -%}
    {%- for role, default_name in defaults.items() -%}
        {%- set name = configured.get(role) or default_name -%}
        {%- if not modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', name | string) -%}
            {{ exceptions.raise_compiler_error(
                "var 'scd2_audit_column_names': '" ~ name ~ "' (role " ~ role
                ~ ") is not a plain column name: use letters, digits and underscores.") }}
        {%- endif -%}
        {%- do names.update({role: name | lower}) -%}
    {%- endfor -%}
    {%- if names.values() | unique | list | length != names | length -%}
        {{ exceptions.raise_compiler_error(
            "var 'scd2_audit_column_names' gives two roles the same column name: " ~ names) }}
    {%- endif -%}
    {{ return(names) }}
{%- endmacro %}
