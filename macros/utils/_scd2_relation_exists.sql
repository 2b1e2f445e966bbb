{% macro _scd2_relation_exists(relation) -%}
    {#-
        Whether the table or view `relation` names exists: true, 'view' (below) or false, or
        none where it cannot be asked (a string, a unit test's fixture or an ephemeral
        model's CTE, a relation without a schema, one in a catalog the session has not
        loaded, a name that Spark's `like` would read as a pattern, and a query of files by
        path, parquet.`/data/x`, which Spark reads when no such schema exists). Asked
        by name (`show namespaces ... like`, `show tables ... like`), not through dbt's
        relation cache, which would list a source's whole schema (and fail on a view there
        that the metastore cannot read back). Spark's schema of global temporary views, which
        no catalog lists, is asked for its views directly.
    -#}
    {%- set table = scd2_audit._scd2_table_relation(relation) -%}
    {%- if table is none or scd2_audit._scd2_fixture_name(table) or not table.schema -%}
        {{ return(none) }}
    {%- endif -%}
    {#- A schema with a catalog in it (`spark_catalog.raw`, as a source may name one, since
        dbt-spark takes no `database`): its namespace is asked of its parent, each part
        quoted (`show namespaces in cat.a like 'b'`; `show databases` lists the current
        catalog's only). Of a catalog the session has not loaded (`show catalogs` lists the
        loaded ones; Spark loads a configured one when a statement first names it) nothing
        can be said without loading it: none, so that a source there is neither refreshed
        nor taken for missing. -#}
    {%- set parts = table.schema.split('.') -%}
    {#- Spark's `like` takes a pattern (`*` any text, `|` alternatives, the rest a regular
        expression) and compares names without regard to case, as Spark resolves them
        (dbt-spark's check_schema_exists does not: a schema configured `MySchema`, listed
        `myschema`, was taken for missing, and its sources were not refreshed). A name with a
        character that means something in a pattern cannot be asked so: none. This also
        covers an identifier with a dot, an Iceberg metadata table (`orders.snapshots`) or a
        file by its path (parquet.`data.parquet`). -#}
    {%- for name in parts + [table.identifier]
            if modules.re.search('[.^$*+?()\\[\\]{}|\\\\]', name) -%}
        {{ return(none) }}
    {%- endfor -%}
    {%- set quoted_parts = [] -%}
    {%- for part in parts -%}
        {%- do quoted_parts.append(scd2_audit._scd2_quote(part)) -%}
    {%- endfor -%}
    {%- if parts | length > 1 -%}
        {%- if run_query('show catalogs like '
                ~ scd2_audit._scd2_sql_string(parts[0])).rows | length == 0 -%}
            {{ return(none) }}
        {%- endif -%}
        {#- Level by level from the catalog (`show namespaces in` a namespace that does not
            exist fails). A last part that is a table of its parent names an Iceberg metadata
            table (`spark_catalog.db.orders` with identifier `snapshots`): none. -#}
        {%- set level = namespace(found=true) -%}
        {%- for depth in range(1, parts | length) -%}
            {%- if level.found -%}
                {%- set parent = quoted_parts[:depth] | join('.') -%}
                {%- set name = scd2_audit._scd2_sql_string(parts[depth]) -%}
                {%- set level.found = run_query('show namespaces in ' ~ parent ~ ' like '
                    ~ name).rows | length > 0 -%}
                {%- if not level.found and depth > 1 and depth == parts | length - 1
                        and run_query('show tables in ' ~ parent ~ ' like ' ~ name).rows -%}
                    {{ return(none) }}
                {%- endif -%}
            {%- endif -%}
        {%- endfor -%}
        {%- set schema_exists = level.found -%}
    {%- else -%}
        {%- set schema_exists = run_query('show namespaces like '
            ~ scd2_audit._scd2_sql_string(table.schema)).rows | length > 0
            or table.schema | lower == run_query(
                'set spark.sql.globalTempDatabase').rows[0][1] | lower -%}
    {%- endif -%}
    {#- A schema that does not exist may be a file format, for files read by their path
        (parquet.`/data/x`, which Spark reads when no such schema exists): none. -#}
    {%- if not schema_exists -%}
        {{ return(none if parts | length == 1 and ('/' in table.identifier or table.schema | lower
            in ['parquet', 'orc', 'json', 'csv', 'text', 'avro', 'binaryfile', 'delta', 'hudi'])
            else false) }}
    {%- endif -%}
    {%- set pattern = scd2_audit._scd2_sql_string(table.identifier) -%}
    {%- if run_query('show tables in ' ~ quoted_parts | join('.') ~ ' like ' ~ pattern).rows -%}
        {{ return(true) }}
    {%- endif -%}
    {#- A catalog of Iceberg's own (SparkCatalog) lists its views under `show views` only
        (list_relations_show_tables_without_caching); temporary views are not the schema's.
        Such a view is 'view', which exists but which `refresh table` cannot plan (Spark's
        "No plan for RefreshTable"). -#}
    {%- for view in run_query('show views in ' ~ quoted_parts | join('.') ~ ' like '
            ~ pattern).rows if not view[2] -%}
        {{ return('view') }}
    {%- endfor -%}
    {{ return(false) }}
{%- endmacro %}
