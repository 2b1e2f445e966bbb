{% macro _scd2_seed_csv_view_sql(view_name, path, delimiter, quoted, names=[], bad_record=none) -%}
    {#-
        The temporary view over a seed's CSV file (_scd2_seed_csv_view): every column text.
        With `names` (the header's, as Spark's reader names them), the view's schema is given,
        which saves Spark's own read of the header, and `bad_record` names a column that holds
        the text of each record not as wide as the header (Spark's PERMISSIVE mode), for the
        load to skip or fail on with a message of its own; without, Spark reads the header and
        fails on such a record itself (FAILFAST).
        Spark reads a backslash in `sep` as the start of an escape (`\t`), and refuses a
        delimiter that is one backslash: it is given doubled, the backslash itself, as
        Python's csv module (dbt) reads a `\` delimiter.
    -#}
    create or replace temporary view {{ view_name }}
    {%- if names %} (
        {%- for name in names %}
        {{ scd2_audit._scd2_quote(name) }} string,
        {%- endfor %}
        {{ bad_record }} string
    )
    {%- endif %}
    using csv
    options (
        path {{ scd2_audit._scd2_sql_string(path) }},
        header 'true',
        sep {{ scd2_audit._scd2_sql_string(delimiter | replace('\\', '\\\\')) }},
        quote '"',
        escape '"',
        multiLine '{{ quoted | lower }}',
        {%- if names %}
        mode 'PERMISSIVE',
        columnNameOfCorruptRecord '{{ bad_record }}',
        {%- else %}
        mode 'FAILFAST',
        {%- endif %}
        encoding 'UTF-8'
    )
{%- endmacro %}
