"""The package's fixes of dbt-spark's relation handling on Iceberg: views that change, fail or
become tables (macros/adapters/)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from python_helpers.tooling.scratch import ScratchProject
from tests.snapshot_helpers import write_snapshot


def _views(spark: SparkSession, schema: str) -> set[str]:
    """The schema's views (`show views` lists the session's temporary views too)."""
    rows = spark.sql(f"show views in {schema}").collect()
    return {row.viewName for row in rows if not row.isTemporary}


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


def test_dbt_clone_makes_views_of_the_state_relations_on_iceberg(
    dbt_project: ScratchProject, tmp_path: Path
) -> None:
    """`dbt clone` of a state built on Iceberg: dbt-spark's clone failed every node whose
    file_format is not delta ("shallow clone requires file_format be set to 'delta'"). Each
    node (seed, table, view, snapshot, events history) becomes a view over the state's
    relation, as dbt does where a platform has no zero-copy clone; a snapshot or events run
    onto such a view fails, saying what to do; a second clone changes nothing,
    `--full-refresh` makes the views again, and a clone onto the state's own schema leaves its
    tables alone."""
    prod = dbt_project
    prod.write_seed("people", "id,name", ["1,ann", "2,bob"])
    prod.write(
        "models/people_table.sql",
        "{{ config(materialized='table', file_format='iceberg') }}\n"
        "select id, upper(name) as name from {{ ref('people') }}\n",
    )
    prod.write(
        "models/people_view.sql",
        "{{ config(materialized='view') }}\nselect id from {{ ref('people_table') }}\n",
    )
    prod.write(
        "snapshots/people_snap.sql",
        """
        {% snapshot people_snap %}
        {{ config(unique_key='id', strategy='check', check_cols='all', file_format='iceberg') }}
        select * from {{ ref('people') }}
        {% endsnapshot %}
        """,
    )
    spark = prod.spark
    spark.sql(f"create schema if not exists {prod.schema}")
    spark.sql(
        f"create table {prod.table('raw_events')} using iceberg as select 1 as id, "
        "'ann' as name, 'c' as op, timestamp'2024-01-01 08:00:00' as ts"
    )
    prod.write(
        "models/people_events.sql",
        "{{ config(materialized='scd2_events', file_format='iceberg', unique_key='id', "
        "event_order_by=['ts']) }}\nselect * from {{ target.schema }}.raw_events\n",
    )
    prod.dbt("build", "--write-json")  # the suite runs without artifacts (conftest.py)
    state = tmp_path / "prod_state"
    state.mkdir()
    shutil.copy(prod.root / "target" / "manifest.json", state / "manifest.json")
    nodes = ["people", "people_table", "people_view", "people_snap", "people_events"]

    def rows(table: str) -> list[tuple]:
        return [tuple(r) for r in spark.sql(f"select * from {table} order by 1").collect()]

    def prod_contents() -> dict[str, list[tuple]]:
        return {name: rows(prod.table(name)) for name in ("people", "people_table")}

    # A temporary view of the session (as runs that failed elsewhere leave) is no clone.
    spark.sql("create or replace temporary view stray_temporary_view as select 1 as id")
    before = prod_contents()
    assert before == {"people": [(1, "ann"), (2, "bob")], "people_table": [(1, "ANN"), (2, "BOB")]}
    assert _views(spark, prod.schema) == {"people_view"}

    dev = ScratchProject(prod.root, prod.schema + "_dev", spark)
    clone = dev.dbt("clone", "--state", str(state))
    assert sorted(r.node.name for r in clone.result.results) == sorted(nodes)
    assert _views(spark, dev.schema) == set(nodes)
    assert rows(dev.table("people_table")) == [(1, "ANN"), (2, "BOB")]
    assert rows(dev.table("people_view")) == [(1,), (2,)]
    snapshot = spark.sql(f"select id, name, dbt_valid_to from {dev.table('people_snap')}")
    assert sorted(tuple(r) for r in snapshot.collect()) == [(1, "ann", None), (2, "bob", None)]

    # A snapshot or an events run onto such a view: a message that says what to do, and the
    # view as it was (dbt's own said to run with --full-refresh, which drops neither).
    for command in (("snapshot",), ("run", "--select", "people_events")):
        (result,) = dev.dbt(*command, check=False).result.results
        assert str(result.status) == "error", result.status
        assert "is a view, where its history table belongs" in str(result.message), result
    assert _views(spark, dev.schema) == set(nodes)

    # Views over the state: a change in prod shows in dev.
    spark.sql(f"insert into {prod.table('people_table')} values (3, 'CAT')")
    assert rows(dev.table("people_view")) == [(1,), (2,), (3,)]

    # Again: every relation exists, so nothing is done, even to a view changed by hand (made
    # again by drop and create: Iceberg's `create or replace view` keeps the old text, see
    # _scd2_view_materialization); with --full-refresh, the views of the state again.
    spark.sql(f"drop view {dev.table('people_view')}")
    spark.sql(f"create view {dev.table('people_view')} as select 99 as id")
    dev.dbt("clone", "--state", str(state))
    assert rows(dev.table("people_view")) == [(99,)]
    dev.dbt("clone", "--state", str(state), "--full-refresh")
    assert _views(spark, dev.schema) == set(nodes)
    assert rows(dev.table("people_view")) == [(1,), (2,), (3,)]
    assert rows(dev.table("people_table")) == [(1, "ANN"), (2, "BOB"), (3, "CAT")]

    # A clone onto the state's own relations (prod's target) skips them: replacing a table by
    # a view over itself would drop it.
    prod.dbt("clone", "--state", str(state), "--full-refresh")
    assert _views(spark, prod.schema) == {"people_view"}
    assert rows(prod.table("people")) == before["people"]
    assert rows(prod.table("people_table")) == [(1, "ANN"), (2, "BOB"), (3, "CAT")]


@pytest.fixture
def named_catalog(dbt_project: ScratchProject, tmp_path: Path) -> Iterator[str]:
    """A catalog of Iceberg's own (Iceberg's SparkCatalog over its in-memory catalog, which
    holds views, as REST or JDBC catalogs do) made the session's default for the test, as
    users who do not go through the session catalog configure Iceberg."""
    spark = dbt_project.spark
    name = "scd2_named"
    prefix = f"spark.sql.catalog.{name}"
    spark.conf.set(prefix, "org.apache.iceberg.spark.SparkCatalog")
    spark.conf.set(f"{prefix}.catalog-impl", "org.apache.iceberg.inmemory.InMemoryCatalog")
    spark.conf.set(f"{prefix}.io-impl", "org.apache.iceberg.hadoop.HadoopFileIO")
    spark.conf.set(f"{prefix}.warehouse", str(tmp_path / "named_warehouse"))
    before = spark.conf.get("spark.sql.defaultCatalog")
    spark.conf.set("spark.sql.defaultCatalog", name)
    try:
        yield name
    finally:
        spark.conf.set("spark.sql.defaultCatalog", before)


def test_events_and_analyst_views_in_a_named_iceberg_catalog(
    dbt_project: ScratchProject, named_catalog: str
) -> None:
    """With a catalog of Iceberg's own as the default (docs/lakehouse.md): a second events run
    publishes its branch (the procedure was called in spark_catalog: "Couldn't load table");
    a view over the change feed, and the run audit over that view, read (Iceberg analyses a
    view of its own catalogs without Spark's named windows); and a view model changed to a
    table replaces the view (dbt-spark's listing there saw no view: "View with same name
    already exists")."""
    from tests.test_events import brief, ev, run, versions, write_events, write_model

    project = dbt_project
    spark = project.spark
    write_model(project)
    project.write(
        "models/feed.sql",
        "{{ config(materialized='view') }}\n{{ scd2_audit.scd2_change_feed(ref('history')) }}\n",
    )
    project.write(
        "models/audit.sql",
        "{{ config(materialized=var('audit_as', 'view')) }}\n"
        "{{ scd2_audit.scd2_run_audit(ref('feed')) }}\n",
    )
    write_events(project, [ev("r", 1, "Alice", 0), ev("r", 2, "Bob", 0)])
    run(project)
    write_events(
        project, [ev("u", 1, "Angela", 1, old=1), ev("d", 2, None, 2), ev("c", 2, "Carol", 3)]
    )
    run2 = run(project).invocation_id
    assert brief(versions(project)) == [
        (1, "Alice", 0, 1, "update"),
        (1, "Angela", 1, None, None),
        (2, "Bob", 0, 2, "delete"),
        (2, "Carol", 3, None, None),
    ]
    current = spark.sql("select current_catalog()").first()[0]
    assert current == named_catalog
    assert spark.sql(f"select * from {project.table('history')}.refs").count() == 1  # main

    project.dbt("run", "--select", "feed", "audit")
    changes = spark.sql(
        f"select id, _change_type from {project.table('feed')} where _process_id = '{run2}'"
    ).collect()
    assert sorted(tuple(r) for r in changes) == [
        (1, "update_postimage"),
        (1, "update_preimage"),
        (2, "delete"),
        (2, "insert"),
    ]
    audit = spark.sql(
        f"select versions_inserted, versions_updated, versions_deleted "
        f"from {project.table('audit')} where process_id = '{run2}'"
    ).collect()
    assert [tuple(r) for r in audit] == [(2, 1, 1)]

    # A snapshot over a view model: the catalog lists its views under `show views` only, and
    # the snapshot's check of what it reads took the view for missing.
    project.write("models/stg.sql", "{{ config(materialized='view') }} select 1 as id, 'a' as v")
    write_snapshot(
        project,
        "snap_of_view",
        "unique_key='id', strategy='check', check_cols='all'",
        select="select * from {{ ref('stg') }}",
    )
    project.dbt("run", "--select", "stg")
    project.dbt("snapshot", "--select", "snap_of_view")
    rows = spark.sql(f"select id, v, dbt_valid_to from {project.table('snap_of_view')}").collect()
    assert [tuple(r) for r in rows] == [(1, "a", None)]

    project.dbt("run", "--select", "audit", "--vars", "{audit_as: table}")
    tables = {r.tableName for r in spark.sql(f"show tables in {project.schema}").collect()}
    views = _views(spark, project.schema)
    assert "audit" in tables and "audit" not in views, (tables, views)
