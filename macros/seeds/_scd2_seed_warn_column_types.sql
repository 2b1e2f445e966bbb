{% macro _scd2_seed_warn_column_types(model, columns, column_types) -%}
    {#-
        A `column_types` entry that names no column of the file is ignored, by stock dbt as
        here (names match exactly, case included, as in dbt-spark's `spark__create_csv_table`),
        so a misspelt or differently cased name silently leaves its column to dbt's type
        inference. Warns, naming the entries and the file's columns: a warning and not an
        error, because `+column_types` set for a folder of seeds legitimately names columns
        that some of its seeds lack; under `--warn-error` the seed fails before anything is
        written.
    -#}
    {%- set unknown = column_types.keys() | reject('in', columns) | list -%}
    {%- if unknown -%}
        {%- do exceptions.warn(
            "Seed '" ~ model['name'] ~ "' (" ~ model['original_file_path'] ~ "): column_types"
            ~ " names " ~ unknown | join(', ') ~ ", which the file's header does not have (its"
            ~ " columns: " ~ columns | join(', ') ~ "); "
            ~ ("that entry is" if unknown | length == 1 else "those entries are")
            ~ " ignored. Names match exactly, case included: correct the name in column_types,"
            ~ " or leave it out if this seed has no such column (a +column_types set for a"
            ~ " folder of seeds may name columns that some of them lack: where warnings are"
            ~ " errors, set it per seed).") -%}
    {%- endif -%}
{%- endmacro %}
