{% macro _scd2_assert_demo_at_home(what) -%}
    {#-
        This project's own seeds, snapshots and models are its demo, read only under its own
        profile's name, `scd2_lakehouse` (dbt_project.yml's paths, docs/package.md). A project
        that installs the package and names its profile so (copying this project's
        profiles.yml) got the demo's nodes beside its own, and `dbt build` built them into its
        schema. A node of the package (`model.package_name`) run from another root project
        (`project_name`) is one of those: it stops here, before anything is written.
    -#}
    {%- if execute and model.package_name == 'scd2_audit' and project_name != 'scd2_audit' -%}
        {{ exceptions.raise_compiler_error(
            what ~ " is a node of the scd2_audit package's demo, which dbt reads in project '"
            ~ project_name ~ "' because its profile is named scd2_lakehouse, the demo's own. "
            ~ "Nothing was written. Name the profile after your project (profiles.yml, and "
            ~ "profile: in your dbt_project.yml); the package's macros need no profile of "
            ~ "their own.") }}
    {%- endif -%}
{%- endmacro %}
