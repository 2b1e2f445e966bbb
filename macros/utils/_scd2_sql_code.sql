{% macro _scd2_sql_code(sql) -%}
    {#-
        `sql` with its string literals and comments each blanked to one space, so that a search
        finds only what the statement itself names: a ref() inside a `-- depends_on:` comment
        or a quoted label is read by nothing. Tokens as Spark's lexer reads them, scanned left
        to right (a quote inside a comment, or `--` inside a string, is part of what encloses
        it): identifiers in backticks, kept (`customer's name` opens no string) unless they
        hold a blank (a label such as `rows in raw.orders`, blanked too); raw strings
        (r'C:\', where a backslash escapes nothing); strings in ' or " with backslash escapes;
        `--` comments (a backslash before the line end continues them); `/* */` comments,
        nested up to four deep, one left open running to the end. Only on the way to an error
        message (_scd2_refresh_upstream), so its speed does not matter.
    -#}
    {%- set plain = '[^*/]|\\*(?!/)|/(?!\\*)' -%}
    {%- set comment = namespace(pattern='/\\*(?:' ~ plain ~ ')*\\*/') -%}
    {%- for _ in range(3) -%}
        {%- set comment.pattern = '/\\*(?:' ~ plain ~ '|' ~ comment.pattern ~ ')*\\*/' -%}
    {%- endfor -%}
    {%- set token = [
        '`(?:[^`]|``)*`',
        "(?<!\\w)[rR]'[^']*'",
        '(?<!\\w)[rR]"[^"]*"',
        "'(?:[^'\\\\]|\\\\.)*'",
        '"(?:[^"\\\\]|\\\\.)*"',
        '--(?:\\\\\\n|[^\\r\\n])*',
        comment.pattern,
        '/\\*.*',
    ] | join('|') -%}
    {%- set code = namespace(text='', end=0) -%}
    {%- for found in modules.re.finditer(token, sql, modules.re.DOTALL) -%}
        {%- set code.text = code.text ~ sql[code.end:found.start()]
            ~ (found.group(0) if found.group(0).startswith('`')
                and not modules.re.search('\\s', found.group(0)) else ' ') -%}
        {%- set code.end = found.end() -%}
    {%- endfor -%}
    {{- return(code.text ~ sql[code.end:]) -}}
{%- endmacro %}
