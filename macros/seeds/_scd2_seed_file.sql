{% macro _scd2_seed_file(model) -%}
    {#-
        Absolute path of the seed's CSV file, as dbt's `load_agate_table` finds it: under the
        root of the project or package that owns the seed.
        dbt keeps a relative `--project-dir` as it was given (`--project-dir .` gives a
        `root_path` of `.`, which partial parsing then keeps for later runs) and reads the
        file from its working directory; Spark took `file://./seeds/...` for a host named `.`
        and failed (UNSUPPORTED_DATASOURCE_FOR_DIRECT_QUERY). A relative root is taken from
        the working directory the shell gives dbt (`PWD`; Jinja cannot ask Python for its
        own), which is also the path a Thrift server on a shared filesystem needs.
        The root project's seeds are read under the project's folder as this invocation has
        it (dbt's `config.project_root`, here `--project-dir`), as dbt does: `root_path` is
        set when dbt parses the file, and partial parsing keeps it, so a project moved or
        copied with its target/ folder (an image built with it, a cached checkout) read the
        old folder's file, or failed. A package's seeds keep the root dbt parsed them under.
    -#}
    {%- set root = model['root_path'] -%}
    {%- if model['package_name'] == project_name
        and invocation_args_dict.get('project_dir') -%}
        {%- set root = invocation_args_dict['project_dir'] | string -%}
    {%- endif -%}
    {%- if not root.startswith('/') -%}
        {%- set cwd = env_var('PWD', '') -%}
        {%- if not cwd.startswith('/') -%}
            {{ exceptions.raise_compiler_error(
                "Seed '" ~ model['name'] ~ "' (" ~ model['original_file_path'] ~ "): dbt holds "
                ~ "the project's folder as the relative path '" ~ root ~ "' (a relative "
                ~ "--project-dir), and the environment gives no absolute working directory "
                ~ "(PWD) to read it from. Give dbt an absolute --project-dir (e.g. "
                ~ "--project-dir \"$(pwd)\"), then reparse once: dbt parse --no-partial-parse. "
                ~ "Nothing was written; the seed table is unchanged.") }}
        {%- endif -%}
        {%- set relative = modules.re.sub('^(\\./)+|^\\.$', '', root) -%}
        {%- set root = cwd.rstrip('/') ~ ('/' ~ relative if relative else '') -%}
    {%- endif -%}
    {{- return(root ~ '/' ~ model['original_file_path']) -}}
{%- endmacro %}
