{% macro _scd2_seed_assert_column_types(model, columns, column_types, file_format) -%}
    {#-
        Each `column_types` entry of a column in the file must name a type that a CSV cell's
        text can be cast to and a table can hold, else the seed fails before anything is
        written, naming the seed, its file, every such entry and what to write instead. Stock
        dbt sends the type into the SQL as written, so a misspelt type (`dubble`), an unclosed
        `decimal(10` or a type Spark casts no text to (`array<int>`) failed with Spark's bare
        parser or analyzer message, which names neither the seed's column nor the entry. The
        grammar is Spark 3.5's primitive types (SqlBaseParser's `primitiveDataType`), any case,
        spaces allowed where Spark allows blanks (spaces only: _scd2_seed_select reads a text
        type with its spaces taken out); its limits on a decimal's precision and scale are
        checked too. An interval type is refused for an Iceberg or Delta seed, which cannot
        hold one, and left to Spark in other formats (parquet holds `interval year to
        month` and `interval day to second`). Entries of columns the file lacks are left to
        _scd2_seed_warn_column_types, as stock dbt ignores them.
    -#}
    {%- set re = modules.re -%}
    {%- set simple = ['boolean', 'tinyint', 'byte', 'smallint', 'short', 'int', 'integer',
        'bigint', 'long', 'float', 'real', 'double', 'date', 'timestamp', 'timestamp_ntz',
        'timestamp_ltz', 'string', 'binary'] -%}
    {%- set problems = [] -%}
    {%- for name in columns if name in column_types -%}
        {%- set written = column_types[name] -%}
        {%- set type = (written | string | trim | lower) if written is not none else '' -%}
        {%- set decimal = re.fullmatch(
            '(?:decimal|dec|numeric) *(?:\\( *([0-9]+) *(?:, *([0-9]+) *)?\\))?', type) -%}
        {%- set text = re.fullmatch('(?:varchar|char|character) *\\( *[0-9]+ *\\)', type) -%}
        {%- set word = re.match('[a-z_]+', type) -%}
        {%- set word = word.group(0) if word else '' -%}
        {%- set why = none -%}
        {%- if type == '' -%}
            {%- set why = 'no type' -%}
        {%- elif type in simple or text -%}
        {%- elif decimal -%}
            {%- set precision = (decimal.group(1) or 10) | int -%}
            {%- set scale = (decimal.group(2) or 0) | int -%}
            {%- if precision < 1 or precision > 38 -%}
                {%- set why = "a decimal's precision is 1 to 38" -%}
            {%- elif scale > precision -%}
                {%- set why = "a decimal's scale is at most its precision" -%}
            {%- endif -%}
        {%- elif word in ['array', 'map', 'struct'] -%}
            {%- set why = 'Spark casts no text to an array, map or struct: load the column as'
                ~ ' string and parse it in a model, with from_json' -%}
        {%- elif word == 'void' -%}
            {%- set why = 'no table takes a column of type void' -%}
        {%- elif word == 'interval' -%}
            {%- if file_format in ['iceberg', 'delta'] -%}
                {%- set why = 'an ' ~ file_format ~ ' table takes no interval column' -%}
            {%- endif -%}
        {%- elif word in ['varchar', 'char', 'character'] -%}
            {%- set why = word ~ ' takes a length, as in ' ~ word ~ '(20)' -%}
        {%- elif word in simple -%}
            {%- set why = word ~ ' takes no length or other argument' -%}
        {%- else -%}
            {%- set why = 'not a Spark SQL type' -%}
        {%- endif -%}
        {%- if why is not none -%}
            {%- do problems.append("'" ~ name ~ "': "
                ~ ("'" ~ written ~ "'" if written is not none else 'nothing') ~ ' (' ~ why ~ ')') -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if problems -%}
        {%- do exceptions.raise_compiler_error(
            "Seed '" ~ model['name'] ~ "' (" ~ model['original_file_path'] ~ "): column_types"
            ~ " gives " ~ problems | join('; ') ~ ". Write a type a CSV cell can be cast to:"
            ~ " boolean, tinyint, smallint, int, bigint, float, double, decimal(p,s) (p 1 to 38),"
            ~ " string, varchar(n), char(n), binary, date, timestamp, timestamp_ntz or"
            ~ " timestamp_ltz. Nothing was written; the seed table is unchanged.") -%}
    {%- endif -%}
{%- endmacro %}
