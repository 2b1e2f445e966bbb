{% macro _scd2_events_publish(ctx, relation, branch, base_snapshot) -%}
    {#-
        Makes the run's write, committed to its own Iceberg branch `branch` (created at
        `base_snapshot`, the snapshot main was at when the run began to read the table), the
        table's: Iceberg's fast_forward moves main to the branch's snapshot only if main is
        still an ancestor of it, i.e. if nothing else committed to the table since the run
        read it; then the branch is dropped. A write that replaces the open partition has no
        conflict check of its own from SQL (Iceberg validates an overwrite only when given
        write options, which SQL cannot pass), so without this, two runs at once would both
        commit and the second would replace the first's open versions with its own, computed
        without the first's events. A run that finds main moved fails, main untouched.
    -#}
    {%- set main = scd2_audit._scd2_events_main_snapshot(relation) -%}
    {%- if main == base_snapshot -%}
        {#- `system.` without a catalog: Iceberg runs the procedure in the session's current
            catalog, where `relation`'s own unqualified name resolves too (spark_catalog, or a
            named catalog made the default with spark.sql.defaultCatalog). -#}
        {%- do run_query("call system.fast_forward('" ~ relation ~ "', 'main', '"
            ~ branch ~ "')") -%}
    {%- endif -%}
    {% do scd2_audit._scd2_run_sql('alter table ' ~ relation ~ ' drop branch if exists '
        ~ branch) %}
    {%- if main != base_snapshot -%}
        {% do scd2_audit._scd2_events_raise_moved(ctx, relation, base_snapshot, main) %}
    {%- endif -%}
{%- endmacro %}
