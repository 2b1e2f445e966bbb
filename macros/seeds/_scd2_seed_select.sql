{% macro _scd2_seed_select(model, relation, columns, types, inferred) -%}
    {#-
        The seed's rows with their types, from `relation`, where every column is text.
        Each column: NULL by dbt's rule (`_scd2_seed_null_sql`), else the text cast to its type
        with Spark's `cast`, as dbt-spark's `cast(<value> as <type>)` does, so a loaded value is
        the one stock dbt would load. A typed column tests dbt's rule only where the cast gives
        NULL (every text dbt reads as NULL casts to NULL), which keeps the common path to one
        cast per cell. Text types (string, varchar, char, binary) take any text, so their cells
        are tested for NULL first. Where stock dbt loads a NULL without a word (Spark's cast
        of a malformed value, e.g. 'abc' as double), the load fails instead, naming the seed,
        its file, the column, the value and the row (by its first column), before anything is
        written. Columns in `inferred` (no `column_types` entry) are stripped first, as agate
        does; their integers go through double as dbt's Python float binding does, unless they
        are plain integers, which are cast exactly.
    -#}
    {%- set first = scd2_audit._scd2_quote(columns[0]) -%}
    select
        {%- for name in columns %}
        {%- set cell = scd2_audit._scd2_quote(name) %}
        {%- set type = types[name] | string | trim %}
        {%- set value = scd2_audit._scd2_seed_trim_sql(cell) if name in inferred else cell %}
        {%- set base_type = type | lower | replace(' ', '') %}
        {%- if base_type == 'string' %}
        case when {{ scd2_audit._scd2_seed_null_sql(cell) }} then null else {{ cell }} end as {{ cell }}
        {%- elif base_type == 'binary' or base_type.startswith('varchar(') or base_type.startswith('char(') %}
        case when {{ scd2_audit._scd2_seed_null_sql(cell) }} then null else cast({{ cell }} as {{ type }}) end as {{ cell }}
        {%- else %}
        {%- set where = "Seed '" ~ model['name'] ~ "' (" ~ model['original_file_path']
            ~ "): column '" ~ name ~ "' (" ~ type ~ "): the value '" %}
        {%- set row = "' is not a valid " ~ type ~ " (in the row whose first column "
            ~ columns[0] ~ " is '" %}
        {%- set remedy = "'). Fix the value, or the column's type in the seed's column_types. "
            ~ "Nothing was written; the seed table is unchanged." %}
        {%- if name in inferred and type == 'bigint' %}
        {%- set cast = 'coalesce(try_cast(' ~ value ~ ' as bigint), try_cast(try_cast(' ~ value ~ ' as double) as bigint))' %}
        {%- else %}
        {%- set cast = 'try_cast(' ~ value ~ ' as ' ~ type ~ ')' %}
        {%- endif %}
        coalesce(
            {{ cast }},
            case
                when {{ cell }} is null or {{ scd2_audit._scd2_seed_null_sql(cell) }} then null
                else raise_error(concat(
                    {{ scd2_audit._scd2_sql_string(where) }}, {{ cell }},
                    {{ scd2_audit._scd2_sql_string(row) }}, coalesce({{ first }}, 'null'),
                    {{ scd2_audit._scd2_sql_string(remedy) }}
                ))
            end
        ) as {{ cell }}
        {%- endif %}{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ relation }}
{%- endmacro %}
