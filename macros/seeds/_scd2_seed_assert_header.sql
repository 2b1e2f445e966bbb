{% macro _scd2_seed_assert_header(model, columns) -%}
    {#-
        A seed file with no header row (an empty file, or only blank lines) has no columns:
        Spark's reader and agate give none, and the load would fail later with an error about
        the generated SQL. Fails with what is wrong and what to do instead, before anything
        is written.
    -#}
    {%- if columns | length == 0 -%}
        {{ exceptions.raise_compiler_error(
            "Seed '" ~ model['name'] ~ "' (" ~ model['original_file_path'] ~ "): the file has"
            ~ " no header row (it is empty or holds only blank lines). A seed's first line"
            ~ " names its columns: add the header and the rows, or remove the file. Nothing"
            ~ " was written; the seed table is unchanged.") }}
    {%- endif -%}
{%- endmacro %}
