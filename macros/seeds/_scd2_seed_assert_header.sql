{% macro _scd2_seed_assert_header(model, columns, repeats_renamed=false) -%}
    {#-
        A seed file with no header row (an empty file, only blank lines, or a byte-order mark
        alone) has no columns: Spark's reader and agate give none, and the load would fail
        later with an error about the generated SQL. Fails with what is wrong and what to do
        instead, before anything is written; so does a name holding `${`, which Spark
        substitutes in a statement's text, quoted names included (`${env:HOME}` became a
        column named after the home folder), whichever loader sends it; and, where the
        names are the file's own (`repeats_renamed` false: agate's, not Spark's reader's),
        names that differ only in case.
    -#}
    {%- for name in columns if '${' in name -%}
        {{ exceptions.raise_compiler_error(
            "Seed '" ~ model['name'] ~ "' (" ~ model['original_file_path'] ~ "): the"
            ~ " header's column name '" ~ name ~ "' contains ${, which Spark replaces in a"
            ~ " statement's text: " ~ columns | join(', ') ~ ". Rename the column in the"
            ~ " file's header. Nothing was written; the seed table is unchanged.") }}
    {%- endfor -%}
    {%- set seen = {} -%}
    {%- set clashes = [] -%}
    {%- for name in columns if not repeats_renamed -%}
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
