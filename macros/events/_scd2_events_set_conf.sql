{% macro _scd2_events_set_conf(settings, restore=false) -%}
    {#-
        Sets the Spark session settings `settings` ({name: value}) for a run and returns their
        values before; with `restore`, puts back such values at the run's end (on success and
        on the failures it raises).
        The values before are also kept in the session itself, under one private key, until
        they are put back: a run that stops on a failing statement (Jinja has no `finally`)
        leaves its settings in place, and the next run then takes the values before from
        that key, not from what the failed run left, and so puts the session back as it was.
        Runs of several scd2_events models at once in one session (dbt threads) share the
        session's settings and that key: the first to end puts the settings back while the
        others run (slowing them down), and each puts back the values from before the first
        of them started.
    -#}
    {%- set key = 'spark.scd2_audit.events.settings_before' -%}
    {%- if restore -%}
        {%- for name, value in settings.items() -%}
            {% do run_query('set ' ~ name ~ '=' ~ value) %}
        {%- endfor -%}
        {% do run_query('reset ' ~ key) %}
        {{- return(settings) -}}
    {%- endif -%}
    {%- set kept = run_query('set ' ~ key).rows[0][1] -%}
    {%- set kept = {} if kept == '<undefined>' else fromjson(kept) -%}
    {%- set before = {} -%}
    {%- for name, value in settings.items() -%}
        {%- if name in kept -%}
            {%- do before.update({name: kept[name]}) -%}
        {%- else -%}
            {%- do before.update({name: run_query('set ' ~ name).rows[0][1]}) -%}
        {%- endif -%}
        {% do run_query('set ' ~ name ~ '=' ~ value) %}
    {%- endfor -%}
    {% do run_query('set ' ~ key ~ '=' ~ tojson(before)) %}
    {{- return(before) -}}
{%- endmacro %}
