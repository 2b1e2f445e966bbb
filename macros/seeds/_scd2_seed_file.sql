{% macro _scd2_seed_file(model) -%}
    {#-
        Absolute path of the seed's CSV file, as dbt's `load_agate_table` finds it: under the
        root of the project or package that owns the seed.
    -#}
    {{- return(model['root_path'] ~ '/' ~ model['original_file_path']) -}}
{%- endmacro %}
