{% macro _scd2_sql_string(value) -%}
    {#-
        A Spark SQL string literal holding `value` exactly. Spark reads backslash escapes in
        string literals (`\n`, `\t`, `\'`, `\\`), so both the backslash and the quote are
        escaped; and it substitutes `${...}` anywhere in a statement's text before parsing it,
        string literals included (`spark.sql.variable.substitute`, on by default: `${env:HOME}`
        became the server's home folder), so every `$` is written as the escape `\u0024`.
        Anything else (newlines, unicode, `%`) may stand as it is. Used wherever a value or a
        path is written into SQL, instead of driver-side bindings: dbt-spark's session method
        formats bindings as '<value>' without escaping
        (dbt-spark `SessionConnectionWrapper._fix_binding`), so `O'Brien` broke the statement.
    -#}
    {{- return("'" ~ (value | string | replace('\\', '\\\\') | replace("'", "\\'")
        | replace('$', '\\u0024')) ~ "'") -}}
{%- endmacro %}
