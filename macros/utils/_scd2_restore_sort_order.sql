{% macro _scd2_restore_sort_order(relation, properties) -%}
    {#-
        Gives a table replaced in one commit (`create or replace table ... as`) the write
        order it had (`properties`: _scd2_table_properties, read before), which Iceberg's
        replace drops while it keeps the table's other properties: a metadata-only commit,
        after the rows' own. `write locally ordered by` leaves write.distribution-mode as the
        replace kept it (`write ordered by` would set it to range). Iceberg describes the
        order in the statement's syntax (`bucket(4, id) DESC NULLS LAST, v ASC NULLS FIRST`)
        but with its columns' names as they are: a name that is no plain name, such as
        `Cust Id`, is quoted here (each part of a nested field's path), where it failed the
        statement after the rows' commit and the order was lost. A name holding a dot, a
        comma or a quote is not told apart. Nothing to do for an unsorted table.
    -#}
    {%- set order = properties.get('sort-order') -%}
    {%- if order -%}
        {%- set re = modules.re -%}
        {#- Iceberg's transforms as it describes them: the width before the column in
            bucket, after it in truncate, none in years, months, days and hours. -#}
        {%- set forms = [
            '^(bucket\\(\\d+, )(.*)(\\))$',
            '^(truncate\\()(.*)(, \\d+\\))$',
            '^(\\w+\\()(.*)(\\))$',
            '^()(.*)()$',
        ] -%}
        {%- set terms = [] -%}
        {%- for term in scd2_audit._scd2_split_top_level(order, '(', ')') -%}
            {%- set parts = re.match(
                '^\\s*(.*?) (ASC|DESC) (NULLS FIRST|NULLS LAST)\\s*$', term) -%}
            {%- if parts is none -%}
                {%- do terms.append(term | trim) -%}
            {%- else -%}
                {%- set field = namespace(form=none) -%}
                {%- for form in forms if field.form is none -%}
                    {%- set field.form = re.match(form, parts.group(1)) -%}
                {%- endfor -%}
                {#- A nested field's path (`addr.zip`) quoted part by part. -#}
                {%- set path = [] -%}
                {%- for part in field.form.group(2).split('.') -%}
                    {%- do path.append(part if scd2_audit._scd2_is_plain_name(part)
                        else scd2_audit._scd2_quote(part)) -%}
                {%- endfor -%}
                {%- do terms.append(field.form.group(1) ~ path | join('.')
                    ~ field.form.group(3) ~ ' ' ~ parts.group(2) ~ ' ' ~ parts.group(3)) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- do scd2_audit._scd2_run_sql(
            'alter table ' ~ relation ~ ' write locally ordered by ' ~ terms | join(', ')) -%}
    {%- endif -%}
{%- endmacro %}
