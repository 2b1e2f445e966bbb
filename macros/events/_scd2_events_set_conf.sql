{% macro _scd2_events_set_conf(settings) -%}
    {#-
        Sets the Spark session settings `settings` ({name: value}) and returns their values
        before, so that a run can put them back (on success and on the failures it raises).
    -#}
    {%- set before = {} -%}
    {%- for name, value in settings.items() -%}
        {%- do before.update({name: run_query('set ' ~ name).rows[0][1]}) -%}
        {% do run_query('set ' ~ name ~ '=' ~ value) %}
    {%- endfor -%}
    {{- return(before) -}}
{%- endmacro %}
