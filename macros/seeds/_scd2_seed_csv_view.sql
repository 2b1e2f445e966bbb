{% macro _scd2_seed_csv_view(model, view_name) -%}
    {#-
        A temporary view over the seed's CSV file, read by Spark's own CSV reader with dbt's
        CSV conventions (Python's csv module, which dbt's agate uses): a header row, `"` as
        quote and doubled `""` inside quoted cells (Spark's default escape is `\`, which would
        read `a\"b` differently), quoted cells may span lines, the seed's `delimiter`, UTF-8
        with or without a byte-order mark. Every column is read as text; types are applied by
        `_scd2_seed_select`. A record with more or fewer cells than the header fails the load
        (FAILFAST) instead of being cut or padded.
        A quoted cell can only hold a line break if the file has a `"` at all: without one the
        file is read line by line, in parallel splits; with one, as a whole (`multiLine`,
        a single task), which is slower but the only exact way. Returns the column names.
    -#}
    {%- set path = 'file://' ~ scd2_audit._scd2_seed_file(model) -%}
    {%- set delimiter = model['config'].get('delimiter') or ',' -%}
    {%- call statement('scd2_seed_text_view') -%}
        create or replace temporary view {{ view_name }}
        using text
        options (path {{ scd2_audit._scd2_sql_string(path) }})
    {%- endcall -%}
    {%- set quoted = run_query(
        "select 1 from " ~ view_name ~ " where instr(value, '\"') > 0 limit 1") | length > 0 -%}
    {%- call statement('scd2_seed_csv_view') -%}
        create or replace temporary view {{ view_name }}
        using csv
        options (
            path {{ scd2_audit._scd2_sql_string(path) }},
            header 'true',
            sep {{ scd2_audit._scd2_sql_string(delimiter) }},
            quote '"',
            escape '"',
            multiLine '{{ quoted | lower }}',
            mode 'FAILFAST',
            encoding 'UTF-8'
        )
    {%- endcall -%}
    {{- return(run_query('select * from ' ~ view_name ~ ' limit 0').column_names | list) -}}
{%- endmacro %}
