{% macro _scd2_seed_infer_types(relation, columns) -%}
    {#-
        The Spark type dbt would give each of `columns` (seed columns without a
        `column_types` entry), in one pass over the seed's text. The cells are unpivoted
        (one row a cell, with its column's position) and tested by one expression, grouped by
        position: one expression a column made a query Spark took seconds to analyse and
        compile for a wide seed (150 columns of 3 rows: 8.7 s for the seed, 3.2 s so), and
        the unpivot is no slower over many rows (16 columns of 300,000 rows: 14.9 s against
        16.3 s). Each column's tests come back as bits, each set by a cell that fails a
        test, and 64 by any cell. dbt types a column with the
        first of agate's types (dbt_common's `build_type_tester`) that reads every non-NULL
        cell, and dbt-spark maps it (`SparkAdapter.convert_*_type`):
        - no non-NULL cell: agate's Integer, `bigint`;
        - numbers (sign, digits, decimal point, exponent): `double` if any cell is not a
          whole number, else `bigint`: agate's Decimal, normalized, counts the places
          (dbt-spark's `MaxPrecision`), so `2.0`, `100.00` and `1.5e1` are whole (a float
          column written by pandas, `1.0`, is `bigint` in stock dbt too). Without an exponent
          that is a digit other than 0 after the point; with one, the places counted from
          the text as agate's normalized Decimal has them: the digits after the point up to
          the last that is not 0, less the exponent, or where there is none such, the
          exponent below the whole part's trailing zeros (`1e-400` and `1.00000000000000001e0`
          are not whole, though a double of either is; agate's 28-digit context rounds
          numbers of more significant digits, below). `inf` and `infinity` (any case, signed
          or not) and `nan` (any case, unsigned; signed only as `NaN`) are numbers with no
          places, as agate reads them (its Decimal, which `MaxPrecision` skips): the forms
          Spark's cast reads as a double. agate also reads `-nan` or `NaN5`; those columns
          stay `string`. A number of more than 28 digits before the point (1E28 and
          beyond) makes the column `double` too: agate counts the places within Python's
          28-digit decimal context, and a number beyond it gives a count that is not 0
          (`1e30`, `1e308` or a 29-digit integer are `double` in stock dbt, and a bigint
          cannot hold them). agate counts at most 28 places less the longest whole part, so a
          column of a 28-digit whole number and `0.5` is `bigint` in dbt; `double` here;
        - `YYYY-MM-DD` dates: `date`; the year 0000 is none (Python's dates start at 1, and
          PySpark cannot read such a value back);
        - `YYYY-MM-DD HH:MM:SS` and ISO 8601 (`T`, fraction, zone) timestamps: `timestamp`;
        - `true`/`false` in any case: `boolean`;
        - anything else: `string`.
        agate also reads numbers with thousands separators, `%` or currency symbols ("1,000",
        "$5"); those columns stay `string` here: pin them in `column_types` to load them as
        numbers.
    -#}
    {%- if columns | length == 0 -%}{{ return({}) }}{%- endif -%}
    {%- set patterns = {
        'number': '^([+-]?(([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?|(?i:inf|infinity))|(?i:nan)|[+-]NaN)$',
        'fraction': '[.][0-9]*[1-9]',
        'date': '^(?!0000)[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}$',
        'datetime': '^(?!0000)[0-9]{4}-[0-9]{1,2}-[0-9]{1,2} [0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}$',
        'iso': '^(?!0000)[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]+)?)?'
            ~ scd2_audit._scd2_seed_zone_pattern() ~ '?$',
    } -%}
    {%- set query -%}
        with cells as (
            select
                posexplode(array(
                    {%- for name in columns %}
                    case
                        when {{ scd2_audit._scd2_seed_null_sql(scd2_audit._scd2_quote(name)) }} then null
                        else {{ scd2_audit._scd2_seed_trim_sql(scd2_audit._scd2_quote(name)) }}
                    end{{ ',' if not loop.last }}
                    {%- endfor %}
                )) as (position, c)
            from {{ relation }}
        ),

        tested as (
            select
                position,
                bit_or(case
                    when c is null then 0
                    else 64
                        + if(c rlike '{{ patterns.number }}', 0, 1)
                        + if(c rlike '[0-9]' and (case
                            when c rlike '[eE]' then coalesce(case
                                when c rlike '{{ patterns.fraction }}'
                                    then length(regexp_extract(c, '{{ patterns.fraction }}', 0)) - 1
                                        > try_cast(regexp_extract(c, '[eE]([+-]?[0-9]+)', 1) as int)
                                else c rlike '^[+-]?[0-9]*[1-9]'
                                    and try_cast(regexp_extract(c, '[eE]([+-]?[0-9]+)', 1) as int)
                                        < -length(regexp_extract(c, '(0*)([.]0*)?[eE]', 1))
                            end, true)
                            else c rlike '{{ patterns.fraction }}'
                        end or coalesce(
                            abs(try_cast(c as decimal(38, 0))) >= 1e28bd,
                            abs(try_cast(c as double)) >= 1e28
                        )), 2, 0)
                        + if(c rlike '{{ patterns.date }}' and try_cast(c as date) is not null, 0, 4)
                        + if(c rlike '{{ patterns.datetime }}' and try_cast(c as timestamp) is not null, 0, 8)
                        + if(c rlike '{{ patterns.iso }}' and try_cast({{ scd2_audit._scd2_seed_iso_sql('c') }} as timestamp) is not null, 0, 16)
                        + if(lower(c) in ('true', 'false'), 0, 32)
                end) as bits
            from cells
            group by position
        )

        select position, bits from tested
    {%- endset -%}
    {%- set found = {} -%}
    {%- for position, bits in run_query(query).rows -%}
        {%- do found.update({position | int: bits}) -%}
    {%- endfor -%}
    {%- set types = {} -%}
    {%- for name in columns -%}
        {#- The column's tests as bits, each set by a cell that fails it (64: a cell); a
            file without records has no position at all. -#}
        {%- set bits = found.get(loop.index0) or 0 -%}
        {%- set failed = [] -%}
        {%- for bit in range(7) -%}
            {%- do failed.append((bits // 2 ** bit) % 2 == 1) -%}
        {%- endfor -%}
        {%- if not failed[6] -%}
            {%- set type = 'bigint' -%}
        {%- elif not failed[0] -%}
            {%- set type = 'double' if failed[1] else 'bigint' -%}
        {%- elif not failed[2] -%}
            {%- set type = 'date' -%}
        {%- elif not failed[3] or not failed[4] -%}
            {%- set type = 'timestamp' -%}
        {%- elif not failed[5] -%}
            {%- set type = 'boolean' -%}
        {%- else -%}
            {%- set type = 'string' -%}
        {%- endif -%}
        {%- do types.update({name: type}) -%}
    {%- endfor -%}
    {{- return(types) -}}
{%- endmacro %}
