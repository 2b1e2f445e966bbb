{% macro _scd2_snapshot_layout(relation, exists) -%}
    {#-
        How an Iceberg snapshot table is laid out, so that a run reads and rewrites only its
        open versions: partitioned by the audit update_process_id column (identity). Every
        open version has NULL there and sits in one partition; each run that closes versions
        moves them into a partition of their own (its invocation_id). The staging query and
        the MERGE condition name `update_process_id is null`, so Iceberg prunes the closed
        history from both: a run costs the same on day 30 as on day 2.
        Returns {'managed': the table is (to be) laid out so: Iceberg, and no partition_by of
        the user's; 'partitioned': it is laid out so already (always false when not exists);
        'columns', 'partition_columns': the existing table's column names and (lower-case)
        partition columns, 'types': {lower-case column name: Spark type}, from the same
        `describe` (empty when not exists)}.
        A snapshot with its own partition_by, or a table partitioned otherwise, keeps its layout
        (its runs read the whole table).
    -#}
    {%- set audit = scd2_audit.scd2_audit_column_names() -%}
    {%- set file_format = config.get('file_format') or 'parquet' -%}
    {%- set managed = file_format == 'iceberg' and config.get('partition_by') is none
        and (not exists or relation.is_iceberg) -%}
    {%- set layout = {
        'managed': managed, 'partitioned': false, 'columns': [], 'partition_columns': [],
        'types': {},
    } -%}
    {%- if exists and execute -%}
        {#- `describe table` lists the columns, then the partition columns after
            '# Partition Information' and its '# col_name' header row; a table with a
            partition transform (bucket, days... added by `alter table ... add partition
            field`) lists every field after '# Partitioning' instead, as `Part <n>` rows
            whose second cell is the field (`audit_update_process_id`, `bucket(4, id)`).
            Read only as the first, such a table looked unpartitioned, and its next run
            re-created it partitioned by the audit column alone, dropping the user's
            fields. -#}
        {%- set partition_columns = layout.partition_columns -%}
        {%- set state = {'in_columns': true, 'in_partitioning': false} -%}
        {%- for row in run_query('describe table ' ~ relation).rows -%}
            {%- set name = (row[0] or '') | trim -%}
            {%- if name in ('# Partition Information', '# Partitioning') -%}
                {%- do state.update({'in_columns': false, 'in_partitioning': true}) -%}
            {%- elif name.startswith('#') or name == '' -%}
                {%- do state.update({'in_columns': false}) -%}
                {%- if state.in_partitioning and name != '# col_name' -%}
                    {%- do state.update({'in_partitioning': false}) -%}
                {%- endif -%}
            {%- elif state.in_columns -%}
                {%- do layout.columns.append(row[0]) -%}
                {%- do layout.types.update({row[0] | lower: row[1] | lower}) -%}
            {%- elif state.in_partitioning and name.startswith('Part ') -%}
                {%- do partition_columns.append((row[1] or '') | trim | lower) -%}
            {%- elif state.in_partitioning -%}
                {%- do partition_columns.append(name | lower) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {%- if managed and exists and execute -%}
        {%- set partition_columns = layout.partition_columns -%}
        {#- A table partitioned some other way (by hand) keeps its layout: only an
            unpartitioned one is upgraded. -#}
        {%- do layout.update({
            'managed': partition_columns in ([], [audit.update_process_id]),
            'partitioned': partition_columns == [audit.update_process_id],
        }) -%}
    {%- endif -%}
    {{ return(layout) }}
{%- endmacro %}
