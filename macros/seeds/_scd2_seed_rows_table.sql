{% macro _scd2_seed_rows_table(model, stage_relation) -%}
    {#-
        The fallback for servers that cannot read the seed file: dbt reads it (agate, as
        dbt-spark's `spark__load_csv_rows` does) and inserts its rows, as text, into a staging
        table in batches of SQL literals. Each value is an escaped string literal instead of
        a driver binding, so apostrophes and backslashes survive every connection method
        (dbt-spark's session method does not escape its bindings). Empty and `null` cells are
        already NULL here (agate). Returns the column names and, for columns without a
        `column_types` entry, the type dbt-spark infers from agate (`adapter.convert_type`).
    -#}
    {%- set agate_table = load_agate_table() -%}
    {#- agate raises StopIteration on an empty file, which Jinja turns into an undefined. -#}
    {%- set columns = [] if agate_table is undefined else agate_table.column_names | list -%}
    {%- do scd2_audit._scd2_seed_assert_header(model, columns) -%}
    {%- set inferred = {} -%}
    {%- for name in columns -%}
        {%- do inferred.update({name: adapter.convert_type(agate_table, loop.index0)}) -%}
    {%- endfor -%}
    {%- call statement('scd2_seed_stage_create') -%}
        create table {{ stage_relation }} (
            {%- for name in columns %}
            {{ adapter.quote(name) }} string{{ ',' if not loop.last }}
            {%- endfor %}
        )
        {{ file_format_clause() }}
    {%- endcall -%}
    {%- for chunk in agate_table.rows | batch(get_batch_size()) -%}
        {%- set sql -%}
            insert into {{ stage_relation }} values
            {%- for row in chunk %}
            (
                {%- for value in row -%}
                {{ 'null' if value is none else scd2_audit._scd2_sql_string(value) }}{{ ', ' if not loop.last }}
                {%- endfor -%}
            ){{ ',' if not loop.last }}
            {%- endfor %}
        {%- endset -%}
        {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
    {%- endfor -%}
    {{- return({'columns': columns, 'inferred_types': inferred}) -}}
{%- endmacro %}
