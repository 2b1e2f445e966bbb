"""The package's fixes of dbt-spark's relation handling on Iceberg: views that change, fail or
become tables (macros/adapters/)."""

from __future__ import annotations

from python_helpers.tooling.scratch import ScratchProject


def test_a_view_model_changes_survives_a_failed_run_and_becomes_a_table(
    dbt_project: ScratchProject,
) -> None:
    """A view model, run by dbt as users change it:
    - a new definition shows (Iceberg's `create or replace view` left the old SQL text in the
      metastore, so the view kept its first definition);
    - a definition Spark cannot resolve fails, and the view stays as it was (the drop that
      works around the Iceberg bug had removed it before the failing create);
    - switched to an Iceberg table and back (an Iceberg view was listed as an Iceberg table, so
      dbt-spark did not drop it, and Iceberg refused the table: a view of that name exists)."""
    project = dbt_project
    project.write(
        "models/shape.sql",
        "{{ config(materialized=var('kind', 'view'), file_format='iceberg') }}\n"
        "select 1 as id, {{ var('value', \"'first'\") }} as value\n",
    )
    table = project.table("shape")

    def run(kind: str, value: str, check: bool = True):
        return project.dbt(
            "run",
            "--select",
            "shape",
            "--vars",
            f'{{kind: {kind}, value: "{value}"}}',
            check=check,
        )

    def state() -> tuple[str, list[tuple]]:
        kind = (
            "view"
            if any(
                r.viewName == "shape" and r.isTemporary is False
                for r in project.spark.sql(f"show views in {project.schema}").collect()
            )
            else "table"
        )
        return kind, [tuple(r) for r in project.spark.sql(f"select * from {table}").collect()]

    run("view", "'first'")
    assert state() == ("view", [(1, "first")])
    run("view", "'second'")
    assert state() == ("view", [(1, "second")])
    failed = run("view", "no_such_column", check=False)
    assert str(failed.result.results[0].status) == "error"
    assert "no_such_column" in failed.result.results[0].message
    assert state() == ("view", [(1, "second")])
    run("table", "'third'")
    assert state() == ("table", [(1, "third")])
    assert project.spark.sql(f"select * from {table}.snapshots").count() == 1  # Iceberg
    run("view", "'fourth'")
    assert state() == ("view", [(1, "fourth")])
