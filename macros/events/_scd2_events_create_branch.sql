{% macro _scd2_events_create_branch(relation, branch, base_snapshot) -%}
    {#-
        Creates the run's own Iceberg branch `branch` of the table at `base_snapshot` (the
        snapshot main was at when the run began to read it), which the run's write goes to and
        _scd2_events_publish makes main's. A branch left by a run that was killed between its
        write and its publication (named alike, `scd2_run_*`) is dropped first.
        Returns the name to write to.
    -#}
    {%- for ref in run_query("select name from " ~ relation ~ ".refs where type = 'BRANCH'").rows
        if ref[0].startswith('scd2_run_') -%}
        {% do scd2_audit._scd2_run_sql('alter table ' ~ relation ~ ' drop branch if exists '
            ~ ref[0]) %}
    {%- endfor -%}
    {% do scd2_audit._scd2_run_sql('alter table ' ~ relation ~ ' create branch ' ~ branch
        ~ ' as of version ' ~ base_snapshot) %}
    {{ return(relation ~ '.branch_' ~ branch) }}
{%- endmacro %}
