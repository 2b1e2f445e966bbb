{% macro _scd2_type_change(table_type, source_type) -%}
    {#-
        What a snapshot column of `table_type` needs to take values of `source_type`:
        'same', 'fits' (cast on insert, no loss: a narrower integer, float into double, int
        into double, an integer or decimal into a decimal with room for it, char/varchar into
        string), 'widen'
        (Iceberg's in-place promotions: int to bigint, float to double, decimal(P,S) to
        decimal(P2,S) with P2 > P), 'retype' (an integer column whose values now come as a
        float or a double: Iceberg changes neither in place, but a run that rewrites the
        table in one commit casts its values, exactly where each lies within
        _scd2_exact_integer_bound; the callers check that, or refuse) or 'incompatible'.
    -#}
    {%- set t = table_type | lower | replace(' ', '') -%}
    {%- set s = source_type | lower | replace(' ', '') -%}
    {#- Each integer type's largest value: the wider type has the larger one. -#}
    {%- set int_max = scd2_audit._scd2_integer_types() -%}
    {%- if t == s -%}{{ return('same') }}{%- endif -%}
    {#- Iceberg has no tinyint, smallint, char or varchar: it stores them as int and string,
        so a table describes the struct, array or map field a source gives as smallint as
        int, and every run after the first had taken the unchanged source for a type
        change. Such a field fits the table's; Spark casts it on insert and compares the two
        (= on structs) by their common type. -#}
    {%- if '<' in s -%}
        {%- set stored = modules.re.sub('(?<=[<:,])(tiny|small)int(?=[>,])', 'int', s) -%}
        {%- set stored = modules.re.sub('(?<=[<:,])(var)?char[(][0-9]+[)](?=[>,])', 'string',
            stored) -%}
        {%- if stored == t -%}{{ return('fits') }}{%- endif -%}
    {%- endif -%}
    {%- set t_dec = t.startswith('decimal(') -%}
    {%- set s_dec = s.startswith('decimal(') -%}
    {%- if t_dec -%}
        {%- set t_p, t_s = t[8:-1].split(',')[0] | int, t[8:-1].split(',')[1] | int -%}
    {%- endif -%}
    {%- if s_dec -%}
        {%- set s_p, s_s = s[8:-1].split(',')[0] | int, s[8:-1].split(',')[1] | int -%}
    {%- endif -%}
    {%- if t == 'string' and (s.startswith('varchar(') or s.startswith('char(')) -%}
        {{ return('fits') }}
    {%- elif s in int_max and t in int_max -%}
        {%- if int_max[s] <= int_max[t] -%}{{ return('fits') }}{%- endif -%}
        {%- if int_max[s] > int_max['int'] -%}{{ return('widen') }}{%- endif -%}
    {%- elif t in int_max and s in ['float', 'double'] -%}
        {{ return('retype') }}
    {%- elif t == 'double' and (s == 'float' or (s in int_max and int_max[s] <= int_max['int'])) -%}
        {{ return('fits') }}
    {%- elif t == 'float' and s == 'double' -%}
        {{ return('widen') }}
    {%- elif t_dec and s_dec -%}
        {%- if s_s <= t_s and (s_p - s_s) <= (t_p - t_s) -%}{{ return('fits') }}{%- endif -%}
        {%- if s_s == t_s and s_p > t_p -%}{{ return('widen') }}{%- endif -%}
    {%- elif t_dec and s in int_max -%}
        {%- if (int_max[s] | string | length) <= t_p - t_s -%}{{ return('fits') }}{%- endif -%}
    {%- endif -%}
    {{ return('incompatible') }}
{%- endmacro %}
