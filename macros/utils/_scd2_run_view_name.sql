{% macro _scd2_run_view_name(relation, role) -%}
    {#-
        The name of a view a run makes for `relation` (a seed's file, a snapshot's staging
        rows, the steps of an events run): `<identifier>__<role>_<hash>_<invocation id>`, a
        plain name. Such views are mostly temporary: they belong to the Spark session, which
        all of dbt's threads share, and have neither a schema nor a case. The invocation id
        keeps two runs apart; the hash of the relation's schema-qualified name (lower case)
        keeps apart the nodes of one run whose identifiers are the same in two schemas (an
        `alias`) or become the same as a plain name: two seeds of one alias loading side by
        side read each other's view, and each loaded the other's rows.
    -#}
    {%- set plain = modules.re.sub('[^0-9A-Za-z_]', '_', relation.identifier) -%}
    {%- set hash = local_md5((relation.schema ~ '.' ~ relation.identifier) | lower)[:8] -%}
    {{- return(plain ~ '__' ~ role ~ '_' ~ hash ~ '_' ~ invocation_id | replace('-', '')) -}}
{%- endmacro %}
