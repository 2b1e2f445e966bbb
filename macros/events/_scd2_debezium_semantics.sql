{% macro _scd2_debezium_semantics(relation, columns) -%}
    {#-
        What Kafka Connect's `schema` envelope says each row field holds, where the relation
        has it (JsonConverter's schemas.enable=true, its default): {field (lowercase): kind},
        for the fields whose JSON value is an encoding of another type (Debezium's and Kafka
        Connect's logical types, bytes as base64). `_scd2_debezium_decoded` turns a kind back
        into the value. Fields of no such type are left out. `columns`: the relation's
        {name: type}.
        The lines' schemas are read whole (one distinct over the `before` and `after`
        descriptions), since a batch may hold several: a field described differently by two of
        them (a database column whose type changed within the batch) fails here, naming both,
        as one output column cannot hold both; but for decimals of one scale, read as the
        widest.
    -#}
    {%- set schema_type = columns.get('schema', '') -%}
    {#- A relation whose schema is declared with `schema string` (the envelope's text, where
        only `payload` is spelt out) holds the same descriptions as JSON text: read so, where
        they were left undecoded without a word (a date stayed its number of days). -#}
    {%- if columns.get('payload') and schema_type == 'string' -%}
        {%- set schema = "from_json(schema, 'struct<fields: array<struct<field: string, "
            ~ "fields: array<struct<field: string, type: string, name: string, "
            ~ "parameters: map<string, string>>>>>>')" -%}
    {%- elif columns.get('payload') and 'fields:array<struct<' in schema_type
            and 'field:string' in schema_type -%}
        {%- set schema = 'schema' -%}
    {%- else -%}
        {{ return({}) }}
    {%- endif -%}
    {%- set kinds = {} -%}
    {%- set sql = "select distinct to_json(filter(" ~ schema ~ ".fields, s -> s.field in "
        ~ "('before', 'after'))) from " ~ relation ~ " where schema is not null" -%}
    {%- for row in run_query(sql).rows if row[0] -%}
        {%- for side in fromjson(row[0]) -%}
            {%- for field in side.get('fields') or [] if field.get('field') -%}
                {%- set kind = scd2_audit._scd2_debezium_kind(relation, field) -%}
                {%- do kinds.setdefault(field['field'] | lower, []).append(kind) -%}
            {%- endfor -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- set semantics = {} -%}
    {%- for field, found in kinds.items() -%}
        {%- set distinct = found | unique | list -%}
        {#- Decimals of one scale, the column's precision raised (numeric(12, 2) to (14, 2))
            within the batch, or in a relation that holds every batch: each value decodes
            alike at that scale, and the widest holds them all (the table widens in place).
            Iceberg's in-place widening (_scd2_type_change's 'widen') is that change exactly. -#}
        {%- set fold = {'widest': distinct[0]} -%}
        {%- for kind in distinct[1:] if fold.widest and kind -%}
            {%- if scd2_audit._scd2_type_change(fold.widest, kind) == 'widen' -%}
                {%- do fold.update({'widest': kind}) -%}
            {%- elif scd2_audit._scd2_type_change(kind, fold.widest) != 'widen' -%}
                {%- do fold.update({'widest': none}) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- if fold.widest and none not in distinct -%}
            {%- set distinct = [fold.widest] -%}
        {%- endif -%}
        {%- if distinct | length > 1 -%}
            {{ exceptions.raise_compiler_error("scd2_debezium_events(" ~ relation ~ "): the "
                ~ "lines' schemas describe the field " ~ field ~ " in different ways ("
                ~ distinct | map('default', 'no logical type', true) | join(', ') ~ "), as when the "
                ~ "database column's type changed within the batch; one column cannot hold "
                ~ "both (a decimal may gain precision at one scale, nothing else). Apply the "
                ~ "lines before the change and those after it in two runs (a relation of one "
                ~ "batch at a time), or convert the field yourself in a select over the "
                ~ "relation.") }}
        {%- endif -%}
        {%- if distinct[0] -%}
            {%- do semantics.update({field: distinct[0]}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(semantics) }}
{%- endmacro %}
