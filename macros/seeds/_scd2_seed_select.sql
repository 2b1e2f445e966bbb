{% macro _scd2_seed_select(model, relation, columns, types, inferred, decoded_by_spark=false) -%}
    {#-
        The seed's rows with their types, from `relation`, where every column is text. Each
        column: NULL by dbt's rule (`_scd2_seed_null_sql`), else the text cast to its type
        with Spark's `cast`, as dbt-spark's `cast(<value> as <type>)` does, so a loaded
        value is the one stock dbt would load, but for the differences below (all in
        docs/seeds.md). A typed column tests dbt's rule only where the cast gives NULL
        (every text dbt reads as NULL casts to NULL), which keeps the common path to one
        cast per cell. Text types (string, varchar, char or character, binary) take any
        text, so their cells are tested for NULL first. Where stock dbt loads a NULL without
        a word (Spark's cast of a malformed value, e.g. 'abc' as double), the load fails
        instead, naming the seed, its file, the column, the value and the row (by its first
        column), before anything is written. Columns in `inferred` (no `column_types` entry)
        are stripped first, as agate does; their integers go through double as dbt's Python
        float binding does, unless they are plain integers, which are cast exactly, and a
        timestamp column, inferred or pinned in `column_types`, gives its ISO timestamps
        written to the minute with a zone their seconds where the cast alone fails
        (_scd2_seed_iso_sql; so a pinned timestamp column loads what the inferred one
        would, where stock dbt-spark's cast loads NULL; a pinned date's cell must read as a
        timestamp too, so that text after the date fails). An integer type pinned in `column_types`
        also takes a whole number written with a fraction of zeros (`2.0`, `-3.`, `.0`: the
        cast's 0), as stock dbt-spark's cast does, with the blanks and control characters
        around it that the cast skips (_scd2_seed_blanks: a tab, `\x0b`, `\x1c`, DEL...;
        `trim` takes spaces alone); `1.5` fails, where that cast cuts it to 1, and so does a
        lone `.`, which it makes 0. The message quotes the value and the row's first cell up
        to 200 characters (_scd2_seed_excerpt_sql).
        `decoded_by_spark`: the text comes from Spark's CSV reader, which puts U+FFFD for
        bytes that are not UTF-8 and says nothing; a row whose text cells hold it fails the load
        (dbt's own reader fails on such a file; a file that holds U+FFFD itself loads with
        `seed_load_method: sql_inserts`). Other types fail on it as on any malformed value.
        The SQL is shaped for Spark's analysis, which at 10,000 rows costs more than the load
        itself: its analyzer resolves one level of nested function calls per round, and each
        round walks the whole select. So a column's casts and its check are the arguments of
        one `coalesce`, a message is joined with `||` (an operator, not a function call), the
        first cell's NULL is a `case`, and the check of a typed column, which runs only where
        its cast gave NULL, is the regular expression alone (`rare`). Against nested
        `coalesce`, `concat` and three-function excerpts, this halved the rounds and the
        planning of the 10,000-row day's source file (figures: docs/seeds.md, "Known limit:
        the speed of small seeds").
    -#}
    {%- set integer_types = scd2_audit._scd2_integer_types() -%}
    {%- set first = scd2_audit._scd2_quote(columns[0]) -%}
    {%- set blanks = scd2_audit._scd2_seed_blanks('number') -%}
    {#- A first cell with no value is said so: quoted as 'null', it read as the text null. -#}
    {%- set first_excerpt = scd2_audit._scd2_seed_excerpt_sql('case when ' ~ first
        ~ " is null then '(no value: an empty, blank or null cell)' else " ~ first ~ ' end') -%}
    {%- set text_cells = [] -%}
    select
        {%- for name in columns %}
        {%- set cell = scd2_audit._scd2_quote(name) %}
        {%- set type = types[name] | string | trim %}
        {%- set value = scd2_audit._scd2_seed_trim_sql(cell) if name in inferred else cell %}
        {%- set base_type = type | lower | replace(' ', '') %}
        {%- if base_type in ['string', 'binary'] or base_type.startswith('varchar(')
            or base_type.startswith('char(') or base_type.startswith('character(') %}
        {%- set text = cell if base_type == 'string' else 'cast(' ~ cell ~ ' as ' ~ type ~ ')' %}
        {%- do text_cells.append(cell) %}
        case when {{ scd2_audit._scd2_seed_null_sql(cell) }} then null else {{ text }} end as {{ cell }}
        {%- else %}
        {%- set where = "Seed '" ~ model['name'] ~ "' (" ~ model['original_file_path']
            ~ "): column '" ~ name ~ "' (" ~ type ~ "): the value '" %}
        {%- set row = "' is not a valid " ~ type ~ " (malformed, or beyond the type's range or "
            ~ "precision), in the row whose first column " ~ columns[0] ~ " is '" %}
        {%- set remedy = "'. Fix the value, or the column's type in the seed's column_types. "
            ~ "Nothing was written; the seed table is unchanged." %}
        {%- set casts = ['try_cast(' ~ value ~ ' as ' ~ type ~ ')'] %}
        {#- Spark's cast to a date reads the date at the text's start and ignores whatever
            follows a blank or a T (`2024-01-05 junk`, `2024-01-05T99`): a pinned date's cell
            must read as a timestamp too (a date with or without a time and an offset), whose
            date it keeps. An inferred date column holds only dates (_scd2_seed_infer_types). #}
        {%- if base_type == 'date' and name not in inferred %}
        {%- set casts = ['case when try_cast(' ~ scd2_audit._scd2_seed_iso_sql(value, blanks)
            ~ ' as timestamp) is not null then ' ~ casts[0] ~ ' end'] %}
        {%- endif %}
        {%- if name in inferred and type == 'bigint' %}
        {%- do casts.append('try_cast(try_cast(' ~ value ~ ' as double) as bigint)') %}
        {%- elif base_type in ['timestamp', 'timestamp_ntz', 'timestamp_ltz'] %}
        {%- do casts.append(
            'try_cast(' ~ scd2_audit._scd2_seed_iso_sql(value, blanks) ~ ' as ' ~ type ~ ')') %}
        {%- elif base_type in integer_types %}
        {%- set whole = "'^[" ~ blanks ~ "]*([+-]?)(?:([0-9]+)[.]0*|[.](0)0*)["
            ~ blanks ~ "]*\\\\z'" %}
        {%- do casts.append(
            'try_cast(regexp_replace(' ~ value ~ ', ' ~ whole ~ ", '$1$2$3') as " ~ type ~ ')') %}
        {%- endif %}
        coalesce(
            {%- for cast in casts %}
            {{ cast }},
            {%- endfor %}
            case
                when {{ cell }} is null or {{ scd2_audit._scd2_seed_null_sql(cell, rare=true) }} then null
                else raise_error(
                    {{ scd2_audit._scd2_sql_string(where) }}
                    || {{ scd2_audit._scd2_seed_excerpt_sql(cell) }}
                    || {{ scd2_audit._scd2_sql_string(row) }}
                    || {{ first_excerpt }}
                    || {{ scd2_audit._scd2_sql_string(remedy) }}
                )
            end
        ) as {{ cell }}
        {%- endif %}{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ relation }}
    {#- One test a row, not one a cell: eleven such branches in the select of the 10,000-row
        day made its seed 0.1 to 0.2 s slower (Spark's analysis and code generation). -#}
    {%- if decoded_by_spark and text_cells %}
    {%- set where = "Seed '" ~ model['name'] ~ "' (" ~ model['original_file_path']
        ~ "): the row whose first column " ~ columns[0] ~ " is '" %}
    {%- set row = "' holds U+FFFD, which Spark's reader puts for bytes that are not UTF-8, in "
        ~ "its text cells '" %}
    {%- set remedy = "'. Save the file as UTF-8 text, as dbt reads seeds; a file that holds "
        ~ "U+FFFD itself loads with the seed config seed_load_method: sql_inserts. Nothing was "
        ~ "written; the seed table is unchanged." %}
    where
        case
            when {% for cell in text_cells %}contains({{ cell }}, '\ufffd'){{ ' or ' if not loop.last }}{% endfor %}
                then raise_error(
                    {{ scd2_audit._scd2_sql_string(where) }}
                    || {{ first_excerpt }}
                    || {{ scd2_audit._scd2_sql_string(row) }}
                    || {{ scd2_audit._scd2_seed_excerpt_sql(
                        "concat_ws('\\', \\'', " ~ text_cells | join(', ') ~ ")") }}
                    || {{ scd2_audit._scd2_sql_string(remedy) }}
                )
            else true
        end
    {%- endif %}
{%- endmacro %}
