{% macro _scd2_seed_header(line, delimiter) -%}
    {#-
        The column names Spark's CSV reader gives a file whose first line is `line`, read
        here instead of by a Spark job: the line split on `delimiter`, `"`-quoted cells
        unquoted (`""` inside them is a `"`), then Spark's own renaming of a header
        (CSVUtils: an empty name becomes `_c<position>`, and each of names that occur more
        than once, in any case, `<name><position>`), positions counted from 0.
        None, to leave the header to Spark, where reading it here could differ: no line or a
        blank one (Spark takes the first line that is not blank), a character beyond ASCII (a
        byte-order mark), a quoted cell left open (a header cell that spans lines), a
        multi-character delimiter with quotes, a name with surrounding spaces or a backtick.
    -#}
    {%- if line is not string or not line.isascii() or line.strip() == '' -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if '"' not in line -%}
        {%- set cells = line.split(delimiter) -%}
    {%- elif delimiter | length != 1 -%}
        {{ return(none) }}
    {%- else -%}
        {%- set cells = [] -%}
        {%- set state = {'cell': '', 'quoted': false, 'closed': false, 'skip': false} -%}
        {%- for i in range(line | length) -%}
            {%- set c = line[i] -%}
            {%- if state.skip -%}
                {%- do state.update({'skip': false}) -%}
            {%- elif state.quoted -%}
                {%- if c == '"' and line[i + 1:i + 2] == '"' -%}
                    {%- do state.update({'cell': state.cell ~ '"', 'skip': true}) -%}
                {%- elif c == '"' -%}
                    {%- do state.update({'quoted': false, 'closed': true}) -%}
                {%- else -%}
                    {%- do state.update({'cell': state.cell ~ c}) -%}
                {%- endif -%}
            {%- elif c == delimiter -%}
                {%- do cells.append(state.cell) -%}
                {%- do state.update({'cell': '', 'closed': false}) -%}
            {%- elif c == '"' and state.cell == '' and not state.closed -%}
                {%- do state.update({'quoted': true}) -%}
            {%- elif state.closed -%}
                {#- Text after a closing quote: read as Spark's parser settles it. -#}
                {{ return(none) }}
            {%- else -%}
                {%- do state.update({'cell': state.cell ~ c}) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- if state.quoted -%}{{ return(none) }}{%- endif -%}
        {%- do cells.append(state.cell) -%}
    {%- endif -%}
    {%- for cell in cells if cell != cell.strip() or '`' in cell -%}
        {{ return(none) }}
    {%- endfor -%}
    {%- set lowered = cells | map('lower') | list -%}
    {%- set names = [] -%}
    {%- for cell in cells -%}
        {%- if cell == '' -%}
            {%- do names.append('_c' ~ loop.index0) -%}
        {%- elif lowered.count(cell | lower) > 1 -%}
            {%- do names.append(cell ~ loop.index0) -%}
        {%- else -%}
            {%- do names.append(cell) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(names) }}
{%- endmacro %}
