{% macro _scd2_seed_row_batches(model, view_name) -%}
    {#-
        The fallback for servers that cannot read the seed file: dbt reads it (agate, as
        dbt-spark's `spark__load_csv_rows` does) and sends its rows, as text, in batches of SQL
        literals. Each value is an escaped string literal instead of a driver binding, so
        apostrophes and backslashes survive every connection method (dbt-spark's session
        method does not escape its bindings). Empty and `null` cells are already NULL here
        (agate). The rows stay out of the catalog (the load reads them from the SQL itself, or
        from temporary views `<view_name>_<n>`, which belong to the connection's Spark
        session), so a seed that fails or is killed leaves nothing behind (the staging table
        this replaced stayed in the session's current schema). Returns the column names, the
        views to drop after the load, the relation (SQL) of all their rows, and, for columns
        without a `column_types` entry, the type dbt-spark infers from agate
        (`adapter.convert_type`).
    -#}
    {%- set agate_table = load_agate_table() -%}
    {#- agate raises StopIteration on an empty file, which Jinja turns into an undefined. -#}
    {%- set columns = [] if agate_table is undefined else agate_table.column_names | list -%}
    {%- do scd2_audit._scd2_seed_assert_header(model, columns) -%}
    {%- set inferred = {} -%}
    {%- for name in columns -%}
        {%- do inferred.update({name: adapter.convert_type(agate_table, loop.index0)}) -%}
    {%- endfor -%}
    {#- Every column as text, named after the file's header (positional names inside, so
        that a header name needs no quoting in the values' alias list). -#}
    {%- set typed -%}
        {%- for name in columns %}
            cast(c{{ loop.index }} as string) as {{ scd2_audit._scd2_quote(name) }}{{ ',' if not loop.last }}
        {%- endfor %}
    {%- endset -%}
    {%- set batches = [] -%}
    {%- for chunk in agate_table.rows | batch(get_batch_size()) -%}
        {%- set sql -%}
            select {{ typed }}
            from values
            {%- for row in chunk %}
            (
                {%- for value in row -%}
                {%- set literal = scd2_audit._scd2_sql_string(value) if value is not none -%}
                {{ literal or 'null' }}{{ ', ' if not loop.last }}
                {%- endfor -%}
            ){{ ',' if not loop.last }}
            {%- endfor %}
            as rows (
                {%- for name in columns -%}
                c{{ loop.index }}{{ ', ' if not loop.last }}
                {%- endfor -%}
            )
        {%- endset -%}
        {%- do batches.append(sql) -%}
    {%- endfor -%}
    {#- One batch (up to `get_batch_size()` rows, 10,000 by default) goes into the load as it
        is, parsed once. Several become views, which the load reads in one union: Spark keeps a
        temporary view as its SQL text, so the load parses their literals once more, and a
        view over them would parse them a third time (seconds for 10,000 rows). -#}
    {%- set views = [] -%}
    {%- if batches | length > 1 -%}
        {%- for sql in batches -%}
            {%- set batch_view = view_name ~ '_' ~ loop.index -%}
            {%- do adapter.add_query(
                'create or replace temporary view ' ~ batch_view ~ ' as ' ~ sql,
                abridge_sql_log=True) -%}
            {%- do views.append(batch_view) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- if views -%}
        {%- set rows_sql = 'select * from ' ~ views | join(' union all select * from ') -%}
    {%- elif batches -%}
        {%- set rows_sql = batches[0] -%}
    {%- else -%}
        {%- set rows_sql -%}
            select
                {%- for name in columns %}
                cast(null as string) as {{ scd2_audit._scd2_quote(name) }}{{ ',' if not loop.last }}
                {%- endfor %}
            limit 0
        {%- endset -%}
    {%- endif -%}
    {{- return({
        'columns': columns,
        'inferred_types': inferred,
        'views': views,
        'relation': '(' ~ rows_sql ~ ') as scd2_seed_rows',
    }) -}}
{%- endmacro %}
