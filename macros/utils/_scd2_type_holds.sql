{% macro _scd2_type_holds(type, name) -%}
    {#-
        Whether the Spark type `type`, as `describe` writes it (map<string,int>,
        array<struct<a:void>>), is or holds at any depth the type `name` (map, void): the one
        reading of the column types a snapshot or an events model cannot take. A struct field
        named like the type (struct<map:int>) does not count.
    -#}
    {{ return(modules.re.search('(^|[<,:])' ~ name ~ '($|[<>,])', type | lower) is not none) }}
{%- endmacro %}
