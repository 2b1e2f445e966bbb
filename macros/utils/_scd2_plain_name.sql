{% macro _scd2_plain_name(name) -%}
    {#-
        `name` as a plain column name (lowercase letters, digits and underscores, not starting
        with a digit), the form the events SQL writes unquoted: a plain name stays as it is
        (lowercased); otherwise each run of other characters becomes `_`, as Debezium's own
        Avro name adjustment does (`field.name.adjustment.mode=avro`), the ends lose their
        underscores and a leading digit gets one: `e-Mail` gives `e_mail`, `2nd line`
        `_2nd_line`. `true`, `false` and `null`, which Spark reads as values, get `_value`
        (`true_value`). Two names can give the same plain name: callers check.
    -#}
    {%- set lowered = name | lower -%}
    {%- if lowered in ['true', 'false', 'null'] -%}{{ return(lowered ~ '_value') }}{%- endif -%}
    {%- if scd2_audit._scd2_is_plain_name(name) -%}{{ return(lowered) }}{%- endif -%}
    {%- set plain = modules.re.sub('[^a-z0-9_]+', '_', lowered).strip('_') or 'c' -%}
    {{ return(('_' ~ plain) if modules.re.match('^[0-9]', plain) else plain) }}
{%- endmacro %}
