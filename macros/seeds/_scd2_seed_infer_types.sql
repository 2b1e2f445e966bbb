{% macro _scd2_seed_infer_types(relation, columns) -%}
    {#-
        The Spark type dbt would give each of `columns` (seed columns without a
        `column_types` entry), in one pass over the seed's text. dbt types a column with the
        first of agate's types (dbt_common's `build_type_tester`) that reads every non-NULL
        cell, and dbt-spark maps it (`SparkAdapter.convert_*_type`):
        - no non-NULL cell: agate's Integer, `bigint`;
        - numbers (sign, digits, decimal point, exponent): `double` if any cell is not a
          whole number, else `bigint`: agate's Decimal, normalized, counts the places
          (dbt-spark's `MaxPrecision`), so `2.0`, `100.00` and `1.5e1` are whole (a float
          column written by pandas, `1.0`, is `bigint` in stock dbt too). Without an exponent
          that is a digit other than 0 after the point; with one, Spark's double of the
          cell has a remainder;
        - `YYYY-MM-DD` dates: `date`;
        - `YYYY-MM-DD HH:MM:SS` and ISO 8601 (`T`, fraction, zone) timestamps: `timestamp`;
        - `true`/`false` in any case: `boolean`;
        - anything else: `string`.
        agate also reads numbers with thousands separators, `%` or currency symbols ("1,000",
        "$5"); those columns stay `string` here: pin them in `column_types` to load them as
        numbers.
    -#}
    {%- if columns | length == 0 -%}{{ return({}) }}{%- endif -%}
    {%- set patterns = {
        'number': '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$',
        'fraction': '[.][0-9]*[1-9]',
        'date': '^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}$',
        'datetime': '^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2} [0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}$',
        'iso': '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]+)?)?(Z|[+-][0-9]{2}(:?[0-9]{2})?)?$',
    } -%}
    {%- set query -%}
        with cells as (
            select
                {%- for name in columns %}
                case
                    when {{ scd2_audit._scd2_seed_null_sql(scd2_audit._scd2_quote(name)) }} then null
                    else {{ scd2_audit._scd2_seed_trim_sql(scd2_audit._scd2_quote(name)) }}
                end as c{{ loop.index0 }}{{ ',' if not loop.last }}
                {%- endfor %}
            from {{ relation }}
        )

        select
            {%- for name in columns %}
            {%- set c = 'c' ~ loop.index0 %}
            {%- set present = ' filter (where ' ~ c ~ ' is not null)' %}
            coalesce(bool_and({{ c }} rlike '{{ patterns.number }}'){{ present }}, true) as number_{{ c }},
            coalesce(bool_or(case
                when {{ c }} rlike '[eE]' then try_cast({{ c }} as double) % 1 != 0
                else {{ c }} rlike '{{ patterns.fraction }}'
            end){{ present }}, false) as fraction_{{ c }},
            coalesce(bool_and({{ c }} rlike '{{ patterns.date }}' and try_cast({{ c }} as date) is not null){{ present }}, true) as date_{{ c }},
            coalesce(bool_and({{ c }} rlike '{{ patterns.datetime }}' and try_cast({{ c }} as timestamp) is not null){{ present }}, true) as datetime_{{ c }},
            coalesce(bool_and({{ c }} rlike '{{ patterns.iso }}' and try_cast({{ c }} as timestamp) is not null){{ present }}, true) as iso_{{ c }},
            coalesce(bool_and(lower({{ c }}) in ('true', 'false')){{ present }}, true) as boolean_{{ c }},
            count({{ c }}) as values_{{ c }}{{ ',' if not loop.last }}
            {%- endfor %}
        from cells
    {%- endset -%}
    {%- set row = run_query(query).rows[0] -%}
    {%- set types = {} -%}
    {%- for name in columns -%}
        {%- set at = loop.index0 * 7 -%}
        {%- if row[at + 6] == 0 -%}
            {%- set type = 'bigint' -%}
        {%- elif row[at] -%}
            {%- set type = 'double' if row[at + 1] else 'bigint' -%}
        {%- elif row[at + 2] -%}
            {%- set type = 'date' -%}
        {%- elif row[at + 3] or row[at + 4] -%}
            {%- set type = 'timestamp' -%}
        {%- elif row[at + 5] -%}
            {%- set type = 'boolean' -%}
        {%- else -%}
            {%- set type = 'string' -%}
        {%- endif -%}
        {%- do types.update({name: type}) -%}
    {%- endfor -%}
    {{- return(types) -}}
{%- endmacro %}
