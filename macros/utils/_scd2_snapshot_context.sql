{% macro _scd2_snapshot_context(
    relation=none, unique_key=none, valid_to_current=none, remedy=none
) -%}
    {#-
        The one definition of what the package knows about a snapshot, read by the overrides,
        the guards, the generic tests and the analyst macros:
        - unique_key as configured, and key_columns: the same as a list of column names;
        - columns: dbt's column names, with snapshot_meta_column_names applied;
        - audit: the operational metadata names (scd2_audit_column_names());
        - valid_to_current: dbt_valid_to_current, or none;
        - high_end: the high-end timestamp as SQL (scd2_high_end_ts());
        - documented: the columns the snapshot's YAML documents (graph lookup only).
        With no relation: the snapshot being run, from its own config. With a relation: the
        snapshot that builds it, found in the graph (names compared as Spark does, ignoring
        case), so that generic tests and analyst macros
        need no arguments and cannot drift from the snapshot; unique_key and valid_to_current
        given here win, for a relation that no snapshot builds (a copy, a source). unique_key is
        none (key_columns empty) when none is found, or before execution.
        - is_open: dbt's rule for an open version, as SQL (_scd2_open_version_sql);
        - is_events: the relation is built by an scd2_events model (docs/events.md), found
          in the graph like a snapshot: its versions say how they were closed (closed_as);
          is_snapshot: it is built by a snapshot (both false for a relation not found).
        `remedy`: when given, no unique_key at execution is an error that ends with it.
    -#}
    {%- set found = {
        'unique_key': none,
        'valid_to_current': none,
        'documented': [],
        'columns': get_snapshot_table_column_names(),
        'is_events': false,
        'is_snapshot': false,
    } -%}
    {%- if relation is none -%}
        {%- do found.update({
            'unique_key': config.get('unique_key'),
            'valid_to_current': config.get('dbt_valid_to_current'),
            'columns': config.get('snapshot_table_column_names') or get_snapshot_table_column_names(),
        }) -%}
    {%- elif execute -%}
        {#- A generic test's `where` config makes the relation a subquery: its table. -#}
        {%- set table = scd2_audit._scd2_table_relation(relation) or relation -%}
        {#- A unit test's graph has no nodes: the relation is then its fixture. -#}
        {%- for node in (graph.get('nodes') or {}).values()
                if (node.resource_type == 'snapshot'
                    or node.config.materialized == 'scd2_events')
                and node.schema | lower == table.schema | lower
                and (node.alias or node.name) | lower == table.identifier | lower -%}
            {%- do found.update({
                'unique_key': node.config.unique_key,
                'valid_to_current': node.config.get('dbt_valid_to_current'),
                'documented': node.columns.keys() | map('lower') | list,
                'is_events': node.resource_type != 'snapshot',
                'is_snapshot': node.resource_type == 'snapshot',
            }) -%}
            {%- for role, name in (node.config.get('snapshot_meta_column_names') or {}).items()
                    if name -%}
                {%- do found.columns.update({role: name}) -%}
            {%- endfor -%}
        {%- endfor -%}
    {%- endif -%}
    {%- if unique_key is not none -%}
        {%- do found.update({'unique_key': unique_key}) -%}
    {%- endif -%}
    {%- if valid_to_current is not none -%}
        {%- do found.update({'valid_to_current': valid_to_current}) -%}
    {%- endif -%}
    {%- set keys = scd2_audit._scd2_column_list(found.unique_key) -%}
    {%- set context = {
        'unique_key': found.unique_key,
        'key_columns': keys,
        'key_list': keys | join(', '),
        'columns': found.columns,
        'audit': scd2_audit.scd2_audit_column_names(),
        'valid_to_current': found.valid_to_current,
        'high_end': scd2_audit.scd2_high_end_ts(),
        'documented': found.documented,
        'is_events': found.is_events,
        'is_snapshot': found.is_snapshot,
    } -%}
    {%- do context.update({'is_open': scd2_audit._scd2_open_version_sql(none, false, context)}) -%}
    {%- if execute and remedy and not keys -%}
        {{ exceptions.raise_compiler_error(
            "scd2_audit on " ~ relation ~ ": no unique_key given, and no snapshot of this "
            ~ "project builds that relation. " ~ remedy
            ~ (" In a dbt unit test (its fixture is " ~ relation ~ "), dbt gives the macro no "
                ~ "graph to find the snapshot's config in: pass unique_key in the model."
                if scd2_audit._scd2_fixture_name(relation) else "")) }}
    {%- endif -%}
    {{ return(context) }}
{%- endmacro %}
