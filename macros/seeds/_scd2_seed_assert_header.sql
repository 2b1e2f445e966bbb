{% macro _scd2_seed_assert_header(model, columns) -%}
    {#-
        A seed file with no header row (an empty file, only blank lines, or a byte-order mark
        alone) has no columns: Spark's reader and agate give none, and the load would fail
        later with an error about the generated SQL. Fails with what is wrong and what to do instead, before anything
        is written; so does a header whose names differ only in case.
    -#}
    {#- Names that differ only in case (a header `id,a,A`, which agate keeps as they are)
        are one name to Spark, whose column names are case-insensitive: the load would fail
        with Spark's AMBIGUOUS_REFERENCE. (Spark's CSV reader renames them itself.) -#}
    {%- set seen = {} -%}
    {%- set clashes = [] -%}
    {%- for name in columns -%}
        {%- if name | lower in seen -%}
            {%- do clashes.append(seen[name | lower] ~ "' and '" ~ name) -%}
        {%- else -%}
            {%- do seen.update({name | lower: name}) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if clashes -%}
        {{ exceptions.raise_compiler_error(
            "Seed '" ~ model['name'] ~ "' (" ~ model['original_file_path'] ~ "): the header"
            ~ " names columns that differ only in case ('" ~ clashes | join("'; '") ~ "'),"
            ~ " which Spark's case-insensitive column names cannot tell apart. Rename one of"
            ~ " each in the file's header. Nothing was written; the seed table is unchanged.") }}
    {%- endif -%}
    {%- if columns | length == 0 -%}
        {{ exceptions.raise_compiler_error(
            "Seed '" ~ model['name'] ~ "' (" ~ model['original_file_path'] ~ "): the file has"
            ~ " no header row (it is empty, or holds only blank lines or a byte-order mark)."
            ~ " A seed's first line"
            ~ " names its columns: add the header and the rows, or remove the file. Nothing"
            ~ " was written; the seed table is unchanged.") }}
    {%- endif -%}
{%- endmacro %}
