{% macro _scd2_debezium_kind(relation, field) -%}
    {#-
        The kind of value a field of Kafka Connect's schema envelope describes, where its JSON
        value encodes another type, as `_scd2_debezium_decoded` decodes it; none for the
        others. `field`: one description ({"field", "type", "name", "parameters"}).
        Debezium's temporal types (its default time.precision.mode=adaptive, and connect)
        and Kafka Connect's logical types, as JsonConverter writes them:
        - a date as days since 1970-01-01 (io.debezium.time.Date, Kafka Connect's Date);
        - a timestamp without time zone as milli-, micro- or nanoseconds since 1970-01-01
          00:00 (io.debezium.time.Timestamp and Kafka Connect's Timestamp, MicroTimestamp,
          NanoTimestamp), read as UTC, as event_ts is;
        - a timestamp with time zone as ISO-8601 text (ZonedTimestamp; IsoTimestamp and
          IsoDate with time.precision.mode=isostring);
        - a decimal (Kafka Connect's Decimal, decimal.handling.mode=precise, Debezium's
          default) as base64 of its unscaled value's bytes, its scale and precision in
          `parameters`;
        - other bytes as base64.
        Times of day (Time, MicroTime, ZonedTime...) stay numbers or text: Spark has no time
        type. io.debezium.data.VariableScaleDecimal (a numeric column without a scale) stays
        the struct of its scale and bytes (docs/events.md says what to set instead).
    -#}
    {%- set name = field.get('name') -%}
    {%- set names = {
        'io.debezium.time.Date': 'date',
        'org.apache.kafka.connect.data.Date': 'date',
        'io.debezium.time.Timestamp': 'timestamp_millis',
        'org.apache.kafka.connect.data.Timestamp': 'timestamp_millis',
        'io.debezium.time.MicroTimestamp': 'timestamp_micros',
        'io.debezium.time.NanoTimestamp': 'timestamp_nanos',
        'io.debezium.time.ZonedTimestamp': 'timestamp_text',
        'io.debezium.time.IsoTimestamp': 'timestamp_text',
        'io.debezium.time.IsoDate': 'date_text',
    } -%}
    {%- if name in names -%}
        {{ return(names[name]) }}
    {%- elif name == 'org.apache.kafka.connect.data.Decimal' -%}
        {%- set parameters = field.get('parameters') or {} -%}
        {%- set scale = parameters.get('scale') | string -%}
        {%- set precision = (parameters.get('connect.decimal.precision') or '38') | string -%}
        {%- if not (scale.isdigit() and precision.isdigit()
            and scale | int <= 38 and scale | int <= precision | int) -%}
            {{ exceptions.raise_compiler_error("scd2_debezium_events(" ~ relation ~ "): the "
                ~ "field " ~ field['field'] ~ " is a decimal of scale " ~ scale
                ~ " and precision " ~ precision ~ ", which Spark's decimal(precision, scale)"
                ~ " cannot hold (scale from 0 to 38, at most the precision). Set the "
                ~ "connector's decimal.handling.mode to string, and convert the field "
                ~ "yourself in a select over the relation.") }}
        {%- endif -%}
        {{ return('decimal(' ~ [precision | int, 38] | min ~ ', ' ~ scale ~ ')') }}
    {%- elif not name and field.get('type') == 'bytes' -%}
        {{ return('binary') }}
    {%- endif -%}
    {{ return(none) }}
{%- endmacro %}
