{% macro _scd2_sql_string(value) -%}
    {#-
        A Spark SQL string literal holding `value` exactly. Spark reads backslash escapes in
        string literals (`\n`, `\t`, `\'`, `\\`), so both the backslash and the quote are
        escaped; anything else (newlines, unicode, `%`) may stand as it is. Used wherever a
        value or a path is written into SQL, instead of driver-side bindings: dbt-spark's
        session method formats bindings as '<value>' without escaping
        (dbt-spark `SessionConnectionWrapper._fix_binding`), so `O'Brien` broke the statement.
    -#}
    {{- return("'" ~ (value | string | replace('\\', '\\\\') | replace("'", "\\'")) ~ "'") -}}
{%- endmacro %}
