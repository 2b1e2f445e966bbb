{% macro _scd2_events_table_values(ctx, alias) -%}
    {#-
        The value columns of a version read from the table (`alias`), as one struct comparable
        with an event's (_scd2_named_struct of ctx.value_columns): a value column the table
        does not have yet (added by this run, _scd2_events_schema_change) reads as a NULL of
        the events' type, as the versions already there will hold it.
    -#}
    {%- set added = ctx.added_columns or {} -%}
    {%- set expressions = [] -%}
    {%- for column in ctx.value_columns -%}
        {%- do expressions.append(
            ('cast(null as ' ~ added[column] ~ ')') if column in added
            else (alias ~ '.' ~ column)) -%}
    {%- endfor -%}
    {{ return(scd2_audit._scd2_named_struct(expressions, ctx.value_columns)) }}
{%- endmacro %}
