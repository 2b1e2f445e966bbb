{% macro _scd2_restore_sort_order(relation, properties) -%}
    {#-
        Gives a table replaced in one commit (`create or replace table ... as`) the write
        order it had (`properties`: _scd2_table_properties, read before), which Iceberg's
        replace drops while it keeps the table's other properties: a metadata-only commit,
        after the rows' own. `write locally ordered by` leaves write.distribution-mode as the
        replace kept it (`write ordered by` would set it to range). Iceberg describes the
        order in the statement's syntax (`bucket(4, id) DESC NULLS LAST, v ASC NULLS FIRST`)
        but with its columns' names as they are: a name that is no plain (dotted) name, such
        as `Cust Id`, is quoted here, where it failed the statement after the rows' commit and
        the order was lost. Nothing to do for an unsorted table.
    -#}
    {%- set order = properties.get('sort-order') -%}
    {%- if order -%}
        {%- set re = modules.re -%}
        {%- set plain = '[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*' -%}
        {%- set terms = [] -%}
        {%- for term in scd2_audit._scd2_split_top_level(order, '(', ')') -%}
            {%- set parts = re.match(
                '^\\s*(.*?) (ASC|DESC) (NULLS FIRST|NULLS LAST)\\s*$', term) -%}
            {%- if parts is none -%}
                {%- do terms.append(term | trim) -%}
            {%- else -%}
                {%- set field = parts.group(1) -%}
                {%- set call = re.match('^(\\w+)\\((?:(\\d+), )?(.*)\\)$', field) -%}
                {%- set name = call.group(3) if call else field -%}
                {%- set quoted = name if re.fullmatch(plain, name)
                    else '`' ~ name | replace('`', '``') ~ '`' -%}
                {%- if call -%}
                    {%- set quoted = call.group(1) ~ '(' ~ (call.group(2) ~ ', '
                        if call.group(2) else '') ~ quoted ~ ')' -%}
                {%- endif -%}
                {%- do terms.append(quoted ~ ' ' ~ parts.group(2) ~ ' ' ~ parts.group(3)) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- do scd2_audit._scd2_run_sql(
            'alter table ' ~ relation ~ ' write locally ordered by ' ~ terms | join(', ')) -%}
    {%- endif -%}
{%- endmacro %}
