{% macro scd2_max_delete_share() -%}
    {{ return(adapter.dispatch('scd2_max_delete_share', 'scd2_audit')()) }}
{%- endmacro %}

{% macro default__scd2_max_delete_share() -%}
    {#-
        The largest share of its open versions one snapshot run may close as deleted, from 0
        to 1 (the mass-delete guard, _scd2_assert_delete_share): var `scd2_max_delete_share`,
        default 0.5. Its one definition: the demo pipeline reads it too, to lift the guard for
        a day whose generated deletes reach it.
    -#}
    {%- set raw = var('scd2_max_delete_share', 0.5) -%}
    {%- set limit = raw | float(-1) -%}
    {#- `limit != limit`: NaN (`.nan` in YAML) compares false with every number. -#}
    {%- if (raw | string | trim) == '' or limit != limit or limit < 0 or limit > 1 -%}
        {{ exceptions.raise_compiler_error(
            "var 'scd2_max_delete_share' must be a number from 0 to 1 (the largest share of "
            ~ "open versions one snapshot run may close as deleted), got '" ~ raw ~ "'.") }}
    {%- endif -%}
    {{ return(limit) }}
{%- endmacro %}
