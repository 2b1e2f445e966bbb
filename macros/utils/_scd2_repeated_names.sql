{% macro _scd2_repeated_names(names) -%}
    {#-
        The names that `names` holds more than once, compared without regard to case, as
        Spark compares column names: each once, in lower case, in the order of its second
        appearance. The one check that the columns a table adds have names of their own
        (_scd2_assert_snapshot_config, _scd2_events_added_columns).
    -#}
    {%- set seen = [] -%}
    {%- set repeated = [] -%}
    {%- for name in names | map('lower') -%}
        {%- if name in seen and name not in repeated -%}
            {%- do repeated.append(name) -%}
        {%- endif -%}
        {%- do seen.append(name) -%}
    {%- endfor -%}
    {{ return(repeated) }}
{%- endmacro %}
