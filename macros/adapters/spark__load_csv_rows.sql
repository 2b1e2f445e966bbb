{% macro spark__load_csv_rows(model, agate_table) %}
    {#-
        dbt-spark's spark__load_csv_rows, except that empty CSV cells load as NULL.
        The session method formats every non-numeric binding as '<value>', so an empty cell
        (None) became the string 'None' in string columns
        (https://github.com/dbt-labs/dbt-adapters/issues/487). A NULL is now written as a SQL
        null literal instead of a binding, for every connection method.
    -#}
    {% set batch_size = get_batch_size() %}
    {% set column_override = model['config'].get('column_types', {}) %}

    {% set statements = [] %}

    {% for chunk in agate_table.rows | batch(batch_size) %}
        {% set bindings = [] %}

        {% for row in chunk %}
            {% do bindings.extend(row | reject('none') | list) %}
        {% endfor %}

        {% set sql %}
            insert into {{ this.render() }} values
            {% for row in chunk -%}
                ({%- for col_name in agate_table.column_names -%}
                    {%- set inferred_type = adapter.convert_type(agate_table, loop.index0) -%}
                    {%- set type = column_override.get(col_name, inferred_type) -%}
                    {%- if row[loop.index0] is none -%}
                      cast(null as {{ type }})
                    {%- else -%}
                      cast({{ get_binding_char() }} as {{ type }})
                    {%- endif -%}
                    {%- if not loop.last %},{%- endif %}
                {%- endfor -%})
                {%- if not loop.last %},{%- endif %}
            {%- endfor %}
        {% endset %}

        {% do adapter.add_query(sql, bindings=bindings, abridge_sql_log=True) %}

        {% if loop.index0 == 0 %}
            {% do statements.append(sql) %}
        {% endif %}
    {% endfor %}

    {# Return SQL so we can render it out into the compiled files #}
    {{ return(statements[0]) }}
{% endmacro %}
