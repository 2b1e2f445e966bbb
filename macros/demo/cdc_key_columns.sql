{% macro cdc_key_columns() -%}
    {{ return(adapter.dispatch('cdc_key_columns', 'scd2_audit')()) }}
{%- endmacro %}

{% macro default__cdc_key_columns() -%}
    {#-
        The generator's composite key: key_1 .. key_N, N from var `cdc_no_keys` (default 5,
        the pipeline's --keys default). The pipeline passes the same N to the generator and to dbt.
    -#}
    {%- set count = var('cdc_no_keys', 5) | int -%}
    {%- if count < 1 -%}
        {{ exceptions.raise_compiler_error(
            "var 'cdc_no_keys' must be a whole number >= 1, got '" ~ var('cdc_no_keys') ~ "'.") }}
    {%- endif -%}
    {%- set keys = [] -%}
    {%- for index in range(1, count + 1) -%}
        {%- do keys.append('key_' ~ index) -%}
    {%- endfor -%}
    {{ return(keys) }}
{%- endmacro %}
