{% macro _scd2_seed_csv_view(model, view_name) -%}
    {#-
        A temporary view over the seed's CSV file, read by Spark's own CSV reader with dbt's
        CSV conventions (Python's csv module, which dbt's agate uses): a header row, `"` as
        quote and doubled `""` inside quoted cells (Spark's default escape is `\`, which would
        read `a\"b` differently), quoted cells may span lines, the seed's `delimiter`, UTF-8
        with or without a byte-order mark. Every column is read as text; types are applied by
        `_scd2_seed_select`. A record with more or fewer cells than the header fails the load,
        naming it, instead of being cut or padded (Spark's PERMISSIVE mode keeps its text in a
        column of its own, `_scd2_seed_csv_view_sql`).
        A quoted cell can only hold a line break if the file has a `"` at all: without one the
        file is read line by line, in parallel splits; with one, as a whole (`multiLine`,
        a single task), which is slower but the only exact way.
        The one pass over the file's lines that looks for a `"` also counts its records, which
        saves a count of the loaded table: without a `"`, every line Spark's CSV reader does
        not skip as blank (Java's `String.trim` leaves something, i.e. a character above
        U+0020) is one record, the first being the header. With a `"`, lines are not records,
        and `rows` is none. The same pass returns the first line (the smallest row id is the
        first line of the file's first split), which `_scd2_seed_header` names as Spark's
        reader would (empty and repeated names included): the view gets those names as its
        schema, which saves Spark's own read of the header; a header it does not read (a
        character beyond ASCII, such as a byte-order mark, or a quoted name spanning lines)
        is named by Spark, in a first view.
        The pass compares bytes where it can: the `"` test is `contains` (`instr` counts the
        characters before the match), and a line whose first byte is above U+0020
        (`value >= '!'`, almost every line) is a record without the regular expression, which
        decodes the line. Together they made the pass over a 1,000,000-row file 2.4x faster
        (1.34 s to 0.56 s alone). A file with no line that is not blank has no header, and
        fails before any view is made. The pass runs as one Spark job in one task
        (`coalesce(1)` after the row ids are taken, so that the aggregate needs no shuffle):
        a global aggregate over the
        file's splits is otherwise two jobs under adaptive execution, 0.13 s against 0.09 s
        for the 10,000-row day's source file, where the single task costs 0.14 s over
        1,000,000 rows (0.73 s against 0.59 s) and a seed file is rarely larger.
        Returns {'columns': the column names, 'rows': the record count or none, 'relation':
        the records as a subquery, every column text, to load from}.
    -#}
    {#- Spark (Hadoop) reads `* ? [ ] { }` in a path as a glob pattern, which with a folder
        named `g*` loaded the rows of every matching file, and with `[br]` found no file: each
        such character, and the backslash that escapes them, is escaped. -#}
    {%- set file = scd2_audit._scd2_seed_file(model) -%}
    {%- set path = 'file://' ~ (file | replace('\\', '\\\\')
        | replace('*', '\\*') | replace('?', '\\?') | replace('[', '\\[') | replace(']', '\\]')
        | replace('{', '\\{') | replace('}', '\\}')) -%}
    {%- set delimiter = model['config'].get('delimiter') or ',' -%}
    {#- Spark's file listing skips names it takes for Hadoop's hidden files or a copy under way
        (Spark 3.5's InMemoryFileIndex.shouldFilterOutPathName: a name starting with `_` and
        holding no `=`, or starting with `.`, but not `_metadata` or `_common_metadata`), even
        a file named alone: such a seed read as no file at all (no header, or a hash that is
        not dbt's), where dbt reads it. -#}
    {%- set file_name = file.split('/') | last -%}
    {%- if ((file_name.startswith('_') and '=' not in file_name) or file_name.startswith('.'))
            and not file_name.startswith('_metadata')
            and not file_name.startswith('_common_metadata') -%}
        {{ exceptions.raise_compiler_error(
            "Seed '" ~ model['name'] ~ "' (" ~ model['original_file_path'] ~ "): Spark skips a "
            ~ "file whose name starts with '.', or with '_' and has no '=' (Hadoop's hidden "
            ~ "files), so its CSV reader (seed_load_method: spark_csv) cannot read "
            ~ file_name ~ ". Rename the file, or load it with seed_load_method: sql_inserts. "
            ~ "Nothing was written; the seed table is unchanged.") }}
    {%- endif -%}
    {#- dbt hashes a seed's file up to 1 MiB (its text, stripped as by Python's `str.strip`,
        SHA-256; a larger file has a checksum named `path`). Where it did, the scan compares
        the file Spark reads with it: a server or cluster that sees another copy of the
        project at the same path (another machine, a stale checkout) would otherwise load that
        copy without a word. Two copies that differ only in whitespace at the file's start or
        end have one hash, and are not told apart. A scalar subquery, so that it adds no
        statement, compared in SQL (a hash read back through dbt's agate could be typed as a
        number); Spark's `binaryFile` gives no row for an empty file, whose hash is that of
        ''. -#}
    {%- set checksum = model.get('checksum') or {} -%}
    {%- set dbt_sha256 = checksum.get('checksum') if checksum.get('name') == 'sha256' else none -%}
    {%- set scan = run_query(
        "select bool_or(contains(value, '\"')),"
        ~ " count_if(value >= '!' or value rlike '[^" ~ scd2_audit._scd2_seed_blanks() ~ "]'),"
        ~ " min_by(value, row_id)"
        ~ (", coalesce((select sha2(encode(btrim(decode(content, 'UTF-8'), '"
            ~ scd2_audit._scd2_seed_whitespace('chars') ~ "'), 'UTF-8'), 256) from binaryFile."
            ~ scd2_audit._scd2_quote(path) ~ "), sha2(x'', 256)) = "
            ~ scd2_audit._scd2_sql_string(dbt_sha256) if dbt_sha256 else "")
        ~ " from (select /*+ coalesce(1) */ * from (select value,"
        ~ " monotonically_increasing_id() as row_id from text." ~ scd2_audit._scd2_quote(path)
        ~ "))").rows[0] -%}
    {%- if dbt_sha256 and scan[3] is not true -%}
        {{ exceptions.raise_compiler_error(
            "Seed '" ~ model['name'] ~ "' (" ~ model['original_file_path'] ~ "): Spark read "
            ~ "another file at " ~ file ~ " than the one dbt read there (their SHA-256 "
            ~ "differ). Spark's CSV reader (seed_load_method: spark_csv) reads the file where "
            ~ "Spark runs: a Thrift server or cluster on another machine sees its own copy at "
            ~ "that path, if any; load such a seed with seed_load_method: sql_inserts, or give "
            ~ "Spark the project's folder at the same path (a shared filesystem). A file that "
            ~ "changed after dbt read it differs too: run the seed again, and dbt reads it "
            ~ "anew. Nothing was written; the seed table is unchanged.") }}
    {%- endif -%}
    {#- No line that Spark's reader does not skip as blank: no header. An empty file, blank
        lines, or a byte-order mark alone (Hadoop's line reader drops it, so the file has no
        line; Spark's whole-file read named a column U+0000 in it and replaced the table with
        no rows), decided here, not from a view's columns: a Thrift server returns a result
        of no columns as one named `Result`, which PyHive then failed to fetch. -#}
    {%- if scan[1] == 0 -%}
        {%- do scd2_audit._scd2_seed_assert_header(model, []) -%}
    {%- endif -%}
    {%- set quoted = scan[0] is not false -%}
    {%- set names = scd2_audit._scd2_seed_header(scan[2], delimiter) or [] -%}
    {%- if not names -%}
        {#- A header this macro does not read: Spark names the columns, in a first view. -#}
        {%- do scd2_audit._scd2_run_sql(scd2_audit._scd2_seed_csv_view_sql(
            view_name, path, delimiter, quoted)) -%}
        {%- set names = run_query('select * from ' ~ view_name ~ ' limit 0').column_names
            | list -%}
        {#- Made again below with the names, once the checks have passed: dropped now, so
            that a header they refuse leaves no view behind in the session. -#}
        {%- do scd2_audit._scd2_run_sql('drop view if exists ' ~ view_name) -%}
    {%- endif -%}
    {%- do scd2_audit._scd2_seed_assert_header(model, names, repeats_renamed=true) -%}
    {#- Headers Spark would read otherwise, or fail on: a name holding U+FFFD (bytes that are
        not UTF-8), and names that repeat once Spark has renamed the repeated ones (`a,a,a1`
        gives `a1,a2,a1`: COLUMN_ALREADY_EXISTS). -#}
    {%- set seen = [] -%}
    {%- for name in names -%}
        {%- if '\ufffd' in name -%}
            {%- set why = "holds U+FFFD, which Spark's reader puts for bytes that are not UTF-8. "
                ~ "Save the file as UTF-8 text, as dbt reads seeds." -%}
        {%- elif name | lower in seen -%}
            {%- set why = "is there twice once Spark's reader has named the header's columns (a "
                ~ "name repeated in any case becomes <name><position>, from 0): "
                ~ names | join(', ') ~ ". Rename the column in the file's header." -%}
        {%- else -%}
            {%- set why = none -%}
        {%- endif -%}
        {%- if why -%}
            {{ exceptions.raise_compiler_error(
                "Seed '" ~ model['name'] ~ "' (" ~ model['original_file_path'] ~ "): the "
                ~ "header's column name '" ~ name ~ "' " ~ why ~ " Nothing was written; the "
                ~ "seed table is unchanged.") }}
        {%- endif -%}
        {%- do seen.append(name | lower) -%}
    {%- endfor -%}
    {%- set bad_record = 'scd2_seed_bad_record' -%}
    {%- if bad_record in names | map('lower') | list -%}
        {{ exceptions.raise_compiler_error(
            "Seed '" ~ model['name'] ~ "' (" ~ model['original_file_path'] ~ "): the column "
            ~ "name " ~ bad_record ~ " is the loader's own. Rename the column in the file's "
            ~ "header. Nothing was written; the seed table is unchanged.") }}
    {%- endif -%}
    {%- call statement('scd2_seed_csv_view') -%}
        {{ scd2_audit._scd2_seed_csv_view_sql(
            view_name, path, delimiter, quoted, names, bad_record) }}
    {%- endcall -%}
    {#- Records not as wide as the header fail the load, naming the first one; a line of
        blanks alone, which Spark's line-by-line read skips, is skipped by the whole-file
        read too (where it is a one-cell record), except in a file of one column, where such
        a line is as wide as the header: its blank cell, NULL by dbt's rule, as stock dbt
        loads it (the reader skips an empty line there itself). `\z`, not `$`: Java's `$`
        also matches before a last U+0085, U+2028 or U+2029, which skipped a line of such a
        character unnoticed and miscounted. A file read whole takes every line's end from
        its first line: a header ending in LF before rows ending in CRLF leaves a CR at the
        end of each row's last cell, taken off here (a CR ending a quoted last cell goes
        too; dbt's own reader turns it into a line feed). -#}
    {%- set where = "Seed '" ~ model['name'] ~ "' (" ~ model['original_file_path'] ~ "): the "
        ~ "record '" -%}
    {%- set width = "' does not have the header's " ~ names | length ~ " cells ("
        ~ names | join(', ') ~ "). Quote a cell that holds the delimiter or a line break. " -%}
    {%- set line_ends = "Its lines end otherwise than the header line: a file with a \" is "
        ~ "read whole, with the header line's line end for every line; give every line the "
        ~ "same end (LF or CRLF). " -%}
    {%- set remedy = "Nothing was written; the seed table is unchanged." -%}
    {%- set relation -%}
        (
            select
                {%- for name in names %}
                {%- set column = scd2_audit._scd2_quote(name) %}
                {%- if quoted and loop.last %}
                case when endswith({{ column }}, '\r')
                    then substr({{ column }}, 1, length({{ column }}) - 1)
                    else {{ column }}
                end as {{ column }}
                {%- else %}
                {{ column }}
                {%- endif %}{{ ',' if not loop.last }}
                {%- endfor %}
            from {{ view_name }}
            where
                case
                    when {{ bad_record }} is null then true
                    when {{ bad_record }} rlike '^[{{ scd2_audit._scd2_seed_blanks() }}]*\\z' then false
                    else raise_error(
                        {{ scd2_audit._scd2_sql_string(where) }}
                        || {{ scd2_audit._scd2_seed_excerpt_sql(bad_record) }}
                        || {{ scd2_audit._scd2_sql_string(width) }}
                        || case
                            when {{ quoted | lower }} and {{ bad_record }} rlike '[\\r\\n]'
                                then {{ scd2_audit._scd2_sql_string(line_ends) }}
                            else ''
                        end
                        || {{ scd2_audit._scd2_sql_string(remedy) }}
                    )
                end
        ) as scd2_seed_records
    {%- endset -%}
    {{- return({
        'columns': names,
        'rows': none if quoted else [scan[1] - 1, 0] | max,
        'relation': relation,
    }) -}}
{%- endmacro %}
