{% macro _scd2_assert_history_table(relation, what) -%}
    {#-
        Before a snapshot or scd2_events run reads or writes its table: `relation` (the
        relation found under the node's name, or none) must be a table. dbt's own check
        (`relation_wrong_type`) tells to run with `--full-refresh`, which drops neither here,
        and dbt-spark's snapshot said a view was "in another format". A view there is what
        `dbt clone` makes of a state's table on Iceberg (_scd2_clone_materialization). `what`
        names the node in the message, e.g. "Snapshot 'customers'".
    -#}
    {%- if relation is not none and not relation.is_table -%}
        {{ exceptions.raise_compiler_error(
            what ~ ": " ~ relation ~ " is a " ~ relation.type ~ ", where its history table "
            ~ "belongs (dbt clone makes views of the state's relations on Iceberg). Drop it "
            ~ "(drop " ~ relation.type ~ " " ~ relation ~ ") to begin the history here; or, "
            ~ "to go on from another table's history, copy that table into its place first "
            ~ "(create table " ~ relation ~ " using iceberg as select * from <that table>). "
            ~ "Nothing was written.") }}
    {%- endif -%}
{%- endmacro %}
