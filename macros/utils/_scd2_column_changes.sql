{% macro _scd2_column_changes(table_types, new_columns) -%}
    {#-
        The one rule by which a history table follows its input's columns, for the snapshots
        (_scd2_schema_change) and scd2_events (_scd2_events_schema_change): `table_types` maps
        the table's columns (lower-case names) to their Spark types, `new_columns` lists the
        input's as [name, type] pairs, compared by name without regard to case (Spark's own
        rule). Returns:
        - added: the names (as given) of the input columns the table lacks;
        - widened: {lower-case name: input type} for the table columns whose type must widen
          to hold the input's values, as Iceberg allows it in place (_scd2_type_change: int to
          bigint, float to double, a decimal to a larger precision at the same scale);
        - retyped: [name, table type, input type] for the integer columns whose input now
          brings floats or doubles (_scd2_type_change's 'retype'): the snapshots follow them
          in their one-commit rewrite where the table's values allow it
          (_scd2_assert_type_changes), scd2_events likewise for its value columns;
        - incompatible: [name, table type, input type] for any other type change, which the
          callers refuse before anything is written.
        A type the table's column holds as it is (a narrower int, float into double, a decimal
        that fits) changes nothing: values are cast on insert.
    -#}
    {%- set change = {'added': [], 'widened': {}, 'retyped': [], 'incompatible': []} -%}
    {%- for name, new_type in new_columns -%}
        {%- set table_type = table_types.get(name | lower) -%}
        {%- if table_type is none -%}
            {%- do change.added.append(name) -%}
        {%- else -%}
            {%- set verdict = scd2_audit._scd2_type_change(table_type, new_type) -%}
            {%- if verdict == 'widen' -%}
                {%- do change.widened.update({name | lower: new_type}) -%}
            {%- elif verdict == 'retype' -%}
                {%- do change.retyped.append([name, table_type, new_type]) -%}
            {%- elif verdict == 'incompatible' -%}
                {%- do change.incompatible.append([name, table_type, new_type]) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(change) }}
{%- endmacro %}
