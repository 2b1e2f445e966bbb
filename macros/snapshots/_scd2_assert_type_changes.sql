{% macro _scd2_assert_type_changes(table_types, new_columns, staging_relation=none) -%}
    {#-
        The snapshot table's columns (`table_types`: {lower-case name: Spark type}) against
        the columns a run brings (`new_columns`: [name, type] pairs), by the one rule
        _scd2_column_changes applies; returns its verdict. A type change the history cannot
        follow fails, naming each column and both types, before anything is written (the
        staging view, when given, is dropped first).
        Called twice: on the snapshot's query before the staging view is built (a string
        column whose source turned boolean made the view itself fail, with Spark's
        DATA_DIFF_TYPES, and one turned bigint passed, see _scd2_schema_change), then on the
        staging view's columns (dbt's own, whose types follow updated_at).
    -#}
    {%- set classified = scd2_audit._scd2_column_changes(table_types, new_columns) -%}
    {%- set incompatible = [] -%}
    {%- for name, table_type, source_type in classified.incompatible -%}
        {%- do incompatible.append(name ~ " is " ~ table_type
            ~ " in the snapshot table but " ~ source_type ~ " in the snapshot's query") -%}
    {%- endfor -%}
    {%- if incompatible -%}
        {%- if staging_relation is not none -%}
            {%- do adapter.drop_relation(staging_relation) -%}
        {%- endif -%}
        {{ exceptions.raise_compiler_error(
            "Snapshot '" ~ model.name ~ "': a source column changed type in a way the history "
            ~ "cannot follow: " ~ incompatible | join('; ') ~ ". In place, a snapshot column "
            ~ "can only widen (int to bigint, float to double, a decimal to a larger precision "
            ~ "at the same scale). Nothing was written; the snapshot table is unchanged. Cast "
            ~ "the column back to the table's type in the snapshot's select, or select the new "
            ~ "values under a new column name.") }}
    {%- endif -%}
    {{ return(classified) }}
{%- endmacro %}
