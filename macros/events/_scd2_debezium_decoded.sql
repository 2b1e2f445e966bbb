{% macro _scd2_debezium_decoded(expression, kind, wire_type) -%}
    {#-
        `expression`, a field as the JSON lines hold it (Spark's type `wire_type`), decoded
        into the type its `kind` names (`_scd2_debezium_kind`). Numbers may arrive as text:
        a field null on every line of a batch is inferred as a string. A decimal that
        arrives as a number (JsonConverter's decimal.format=NUMERIC) is cast; a relation whose
        schema declares the field's type already is left as it is. Text that does not read
        as its type fails the run, naming it, rather than loading NULL.
    -#}
    {%- set wire = wire_type | lower -%}
    {%- set number = wire in ['tinyint', 'smallint', 'int', 'bigint'] -%}
    {%- set text = wire == 'string' -%}
    {%- set epoch = {
        'date': "date_add(date '1970-01-01', cast({} as int))",
        'timestamp_millis': 'timestamp_millis({})',
        'timestamp_micros': 'timestamp_micros({})',
        'timestamp_nanos': 'timestamp_micros({0} div 1000 - if({0} % 1000 < 0, 1, 0))',
    } -%}
    {#- A base64 text as Java writes it (RFC 4648, padded): Spark's unbase64 skips other
        characters instead of failing. -#}
    {%- set base64 = "if(" ~ expression ~ " rlike '^([A-Za-z0-9+/]{4})*"
        ~ "([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$', unbase64(" ~ expression ~ "), null)" -%}
    {%- if kind in epoch and number -%}
        {#- Nanoseconds: Spark holds microseconds, so they are cut, towards the past, in
            integer arithmetic (a double would round them). -#}
        {{ return(epoch[kind].format(expression)) }}
    {%- elif kind in epoch and text -%}
        {{ return(scd2_audit._scd2_debezium_checked(
            epoch[kind].format('cast(' ~ expression ~ ' as bigint)'), expression,
            'a number (' ~ kind ~ ')')) }}
    {%- elif kind == 'timestamp_text' and text -%}
        {{ return(scd2_audit._scd2_debezium_checked(
            'cast(' ~ expression ~ ' as timestamp)', expression, 'timestamp')) }}
    {%- elif kind == 'date_text' and text -%}
        {#- Debezium's IsoDate writes the UTC date with its offset (ISO_OFFSET_DATE:
            2023-11-21Z), which Spark's cast does not read. -#}
        {{ return(scd2_audit._scd2_debezium_checked("cast(regexp_replace(" ~ expression
            ~ ", '(Z|[+-][0-9]{2}:[0-9]{2})$', '') as date)", expression, 'date')) }}
    {%- elif kind == 'binary' and text -%}
        {{ return(scd2_audit._scd2_debezium_checked(base64, expression, 'base64')) }}
    {%- elif kind and kind.startswith('decimal(') and text -%}
        {%- set scale = kind.split(',')[1].strip(' )') | int -%}
        {#- The unscaled value: the bytes as a big-endian two's complement integer (Java's
            BigInteger), read a byte at a time into a decimal(38, 0); then written out with
            its decimal point and cast, which keeps every digit (decimal arithmetic would
            round beyond Spark's 38 digits). A negative value is read as its one's
            complement (each byte inverted), a magnitude whose every prefix is smaller, then
            negated less one: reading it directly would overflow 38 digits near -10^38.
            `transform(array(x), name -> ...)[0]` names an intermediate value once instead
            of repeating its expression. -#}
        {%- set unscaled -%}
            aggregate(
                sequence(1, length(h) div 2),
                cast(0 as decimal(38, 0)),
                (acc, i) -> cast(
                    acc * 256 + abs(
                        cast(conv(substr(h, 2 * i - 1, 2), 16, 10) as int)
                        - if(h >= '8', 255, 0)
                    )
                    as decimal(38, 0)
                ),
                acc -> cast(if(h >= '8', -acc - 1, acc) as decimal(38, 0))
            )
        {%- endset -%}
        {%- set digits = "lpad(cast(abs(u) as string), greatest(length(cast(abs(u) as string)), "
            ~ (scale + 1) ~ "), '0')" -%}
        {%- if scale > 0 -%}
            {%- set written = "concat(if(u < 0, '-', ''), substr(d, 1, length(d) - " ~ scale
                ~ "), '.', right(d, " ~ scale ~ "))" -%}
        {%- else -%}
            {%- set written = 'cast(u as string)' -%}
        {%- endif -%}
        {%- set decoded = 'transform(array(hex(' ~ base64 ~ ')), h -> '
            ~ 'transform(array(' ~ unscaled ~ '), u -> transform(array(' ~ digits ~ '), d -> '
            ~ 'cast(' ~ written ~ ' as ' ~ kind ~ '))[0])[0])[0]' -%}
        {{ return(scd2_audit._scd2_debezium_checked(decoded, expression, kind)) }}
    {%- elif kind and kind.startswith('decimal(') and wire not in ['binary', 'struct'] -%}
        {{ return('cast(' ~ expression ~ ' as ' ~ kind ~ ')') }}
    {%- endif -%}
    {{ return(expression) }}
{%- endmacro %}
