{% macro _scd2_debezium_decoded(expression, kind, wire_type) -%}
    {#-
        `expression`, a field as the JSON lines hold it (Spark's type `wire_type`), decoded
        into the type its `kind` names (`_scd2_debezium_kind`). A field whose JSON value is
        not of the kind's encoding (a number where base64 text is due, as with
        decimal.handling.mode=double or JsonConverter's decimal.format=NUMERIC, or a relation
        whose schema declares the field's type already) is cast instead, or left as it is.
        Text that does not read as its type fails the run, naming it, rather than loading
        NULL.
    -#}
    {%- set wire = wire_type | lower -%}
    {%- set number = wire in ['tinyint', 'smallint', 'int', 'bigint'] -%}
    {%- set text = wire == 'string' -%}
    {%- if kind == 'date' and number -%}
        {{ return("date_add(date '1970-01-01', cast(" ~ expression ~ " as int))") }}
    {%- elif kind == 'timestamp_millis' and number -%}
        {{ return('timestamp_millis(' ~ expression ~ ')') }}
    {%- elif kind == 'timestamp_micros' and number -%}
        {{ return('timestamp_micros(' ~ expression ~ ')') }}
    {%- elif kind == 'timestamp_nanos' and number -%}
        {#- Spark holds microseconds: the nanoseconds are cut, towards the past. -#}
        {{ return('timestamp_micros(cast(floor(' ~ expression ~ ' / 1000) as bigint))') }}
    {%- elif kind in ['timestamp_text', 'date_text'] and text -%}
        {%- set type = kind.split('_')[0] -%}
        {{ return(scd2_audit._scd2_debezium_checked(
            'cast(' ~ expression ~ ' as ' ~ type ~ ')', expression, type)) }}
    {%- elif kind == 'binary' and text -%}
        {{ return(scd2_audit._scd2_debezium_checked(
            'unbase64(' ~ expression ~ ')', expression, 'base64')) }}
    {%- elif kind and kind.startswith('decimal(') and text -%}
        {%- set scale = kind.split(',')[1].strip(' )') | int -%}
        {#- The unscaled value: the bytes as a big-endian two's complement integer (Java's
            BigInteger), read a byte at a time into a decimal(38, 0); then written out with
            its decimal point and cast, which keeps every digit (decimal arithmetic would
            round beyond Spark's 38 digits). `transform(array(x), name -> ...)[0]` names an
            intermediate value once instead of repeating its expression. -#}
        {%- set unscaled -%}
            aggregate(
                sequence(1, length(h) div 2),
                cast(0 as decimal(38, 0)),
                (acc, i) -> cast(
                    acc * 256 + cast(conv(substr(h, 2 * i - 1, 2), 16, 10) as int)
                    - if(i = 1 and h >= '8', 256, 0)
                    as decimal(38, 0)
                )
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
        {%- set decoded = 'transform(array(hex(unbase64(' ~ expression ~ '))), h -> '
            ~ 'transform(array(' ~ unscaled ~ '), u -> transform(array(' ~ digits ~ '), d -> '
            ~ 'cast(' ~ written ~ ' as ' ~ kind ~ '))[0])[0])[0]' -%}
        {{ return(scd2_audit._scd2_debezium_checked(decoded, expression, kind)) }}
    {%- elif kind and kind.startswith('decimal(') and wire not in ['binary', 'struct'] -%}
        {{ return('cast(' ~ expression ~ ' as ' ~ kind ~ ')') }}
    {%- endif -%}
    {{ return(expression) }}
{%- endmacro %}
