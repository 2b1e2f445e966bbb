{% macro _scd2_events_set_conf(settings, restore=false, run_name=none) -%}
    {#-
        Sets the Spark session settings `settings` ({name: value}) for a run and returns their
        values before; with `restore`, puts back such values at the run's end (on success and
        on the failures it raises).
        Several scd2_events models of one invocation can run at once in one Spark session (dbt
        threads, the session method): they share its settings. The session itself therefore
        keeps the values from before the first of them (one private key) and a key per run
        under way (`...run.<invocation_id>.<run_name>`, run_name defaulting to the model's
        unique_id). A run's end puts the values back only when no other run of its invocation
        is under way: otherwise the first to end would put them back while the others run,
        whose later views would be stored as SQL text again (_scd2_events_materialization
        says why that costs minutes), and a run that started after another had changed the
        settings would take the changed values for the session's own and leave them so.
        Jinja has no lock; the order of the statements keeps this right when runs start or
        end at the same moment:
        - a run reads the private key, the settings' values and the private key again, writes
          its run key and the private key, and only then changes the settings: a run that
          read a value another had changed finds the other's private key at one of its two
          reads (at the second; if the other ended meanwhile and removed it, at the first: a
          whole run, dozens of statements, cannot fit between the two), and takes the values
          there; every run writes the same values there;
        - at its end a run removes its run key first, then looks for the others: of two runs
          ending at once, the one that removes its key last finds none and puts the values
          back (both may: the same values, twice).
        A run that stops on a failing statement (Jinja has no `finally`) leaves its settings
        and its run key: runs of its invocation ending after it leave the settings as they
        are, and the next invocation's runs, which ignore earlier invocations' run keys (in
        one session, invocations follow each other), put back at their end the values from
        before the stopped run, and remove its key.
    -#}
    {%- set key = 'spark.scd2_audit.events.settings_before' -%}
    {%- set run_prefix = 'spark.scd2_audit.events.run.' -%}
    {#- `set` takes a key of letters, digits, `_` and `.` unquoted. -#}
    {%- set mine = run_prefix ~ (invocation_id | replace('-', '_')) ~ '.' -%}
    {%- set run_key = mine
        ~ modules.re.sub('[^A-Za-z0-9_.]', '_', run_name or model.unique_id) -%}
    {%- if restore -%}
        {% do scd2_audit._scd2_run_sql('reset ' ~ run_key) %}
        {%- set others = [] -%}
        {%- for row in run_query('set').rows if row[0].startswith(run_prefix) -%}
            {%- if row[0].startswith(mine) -%}
                {%- do others.append(row[0]) -%}
            {%- else -%}
                {% do scd2_audit._scd2_run_sql('reset ' ~ row[0]) %}
            {%- endif -%}
        {%- endfor -%}
        {%- if not others -%}
            {%- set kept = run_query('set ' ~ key).rows[0][1] -%}
            {%- set kept = {} if kept == '<undefined>' else fromjson(kept) -%}
            {%- for name, value in settings.items() -%}
                {% do scd2_audit._scd2_run_sql('set ' ~ name ~ '=' ~ kept.get(name, value)) %}
            {%- endfor -%}
            {% do scd2_audit._scd2_run_sql('reset ' ~ key) %}
        {%- endif -%}
        {{- return(settings) -}}
    {%- endif -%}
    {%- set kept_first = run_query('set ' ~ key).rows[0][1] -%}
    {%- set current = {} -%}
    {%- for name in settings -%}
        {%- do current.update({name: run_query('set ' ~ name).rows[0][1]}) -%}
    {%- endfor -%}
    {%- set kept = run_query('set ' ~ key).rows[0][1] -%}
    {%- set kept = kept_first if kept == '<undefined>' else kept -%}
    {%- set kept = {} if kept == '<undefined>' else fromjson(kept) -%}
    {%- set before = {} -%}
    {%- for name in settings -%}
        {%- do before.update({name: kept.get(name, current[name])}) -%}
    {%- endfor -%}
    {% do scd2_audit._scd2_run_sql('set ' ~ run_key ~ '=running') %}
    {% do scd2_audit._scd2_run_sql('set ' ~ key ~ '=' ~ tojson(before)) %}
    {%- for name, value in settings.items() -%}
        {% do scd2_audit._scd2_run_sql('set ' ~ name ~ '=' ~ value) %}
    {%- endfor -%}
    {{- return(before) -}}
{%- endmacro %}
