"""The scd2_audit package installed the way a user installs it: the `integration_tests/` dbt
project (its own profile, seed, YAML snapshot, models and tests) with `packages.yml`, `dbt deps`,
one `dispatch` block and dbt's opt-in wrappers for the package's materializations.

Day 1: customers 1 Alice, 2 Bob, 3 O'Brien. Day 2: Alice moves, Bob is deleted, 4 Dan is new.
"""

from __future__ import annotations

import copy
import os
import shutil
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from python_helpers.runtime.dbt_invoke import DbtStep, DbtStepError, run_dbt
from python_helpers.runtime.lakehouse import PROJECT_ROOT
from tests.snapshot_helpers import AUDIT

HEADER = "customer_id,name,city,updated_at"
DAY1 = [
    "1,Alice,Lyon,2024-01-01 08:00:00",
    "2,Bob,Paris,2024-01-01 08:00:00",
    '3,"O\'Brien, Pat",Nantes,2024-01-01 08:00:00',
]
DAY2 = [
    "1,Alice,Grenoble,2024-01-02 08:00:00",
    '3,"O\'Brien, Pat",Nantes,2024-01-01 08:00:00',
    "4,Dan,Lille,2024-01-02 08:00:00",
]


class UserProject:
    """A copy of integration_tests/ whose packages.yml points at this repository."""

    def __init__(self, root: Path, schema: str, spark: SparkSession) -> None:
        shutil.copytree(PROJECT_ROOT / "integration_tests", root)
        packages = root / "packages.yml"
        text = packages.read_text()
        assert "- local: ../" in text, "integration_tests/packages.yml installs the repo root"
        packages.write_text(text.replace("- local: ../", f"- local: {PROJECT_ROOT}"))
        self.root, self.schema, self.spark = root, schema, spark

    def dbt(self, *args: str, check: bool = True) -> DbtStep:
        os.environ["DBT_SCHEMA"] = self.schema
        return run_dbt(args, project_dir=self.root, profiles_dir=self.root, check=check)

    def seed_file(self, rows: list[str]) -> None:
        (self.root / "seeds" / "customers.csv").write_text("\n".join([HEADER, *rows]) + "\n")

    def rows(self, sql: str) -> list[dict]:
        return [r.asDict() for r in self.spark.sql(sql.format(schema=self.schema)).collect()]


@pytest.fixture(scope="module")
def two_days(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory):
    project = UserProject(tmp_path_factory.mktemp("package") / "user_project", "pkg_it", spark)
    project.dbt("deps")
    installed = project.root / "dbt_packages" / "scd2_audit"
    assert installed.exists(), "dbt deps installed the package"
    # The package brings its macros only: none of the demo's seeds, snapshots, models or
    # tests, not even the demo's tests on a model named snapshot_run_audit, which the user's
    # project has too (dbt attaches a package's tests to a root node of the same name).
    listed = sorted(project.dbt("ls", "--quiet", "--output", "name").result)
    assert listed == sorted(
        [
            "customers",
            "customers_snapshot",
            "customers_current",
            "customers_change_feed",
            "snapshot_run_audit",
            "not_null_customers_customer_id",
            "unique_customers_customer_id",
            "not_null_customers_current_customer_id",
            "unique_customers_current_customer_id",
            "not_null_customers_change_feed_customer_id",
            "not_null_snapshot_run_audit_process_id",
            "scd2_audit_scd2_one_open_version_per_key_customers_snapshot_",
            "scd2_audit_scd2_contiguous_validity_customers_snapshot_",
            "scd2_audit_scd2_insert_metadata_customers_snapshot_",
            "scd2_audit_scd2_open_closed_metadata_customers_snapshot_",
        ]
    ), listed
    project.seed_file(DAY1)
    run1 = project.dbt("build").invocation_id
    project.seed_file(DAY2)
    run2 = project.dbt("build").invocation_id
    return project, run1, run2


def test_snapshot_has_the_metadata_columns(two_days) -> None:
    project, _run1, _run2 = two_days
    columns = [
        r["col_name"]
        for r in project.rows("describe table {schema}.customers_snapshot")
        if r["col_name"] and not r["col_name"].startswith("#")
    ]
    for name in (*AUDIT, "dbt_scd_id", "dbt_valid_from", "dbt_valid_to", "dbt_updated_at"):
        assert name in columns, columns


def test_versions_and_process_ids(two_days) -> None:
    project, run1, run2 = two_days
    versions = project.rows(
        """
        select customer_id, name, city, audit_insert_process_id, audit_update_process_id,
            dbt_valid_to is null as is_open,
            effective_end_ts = timestamp '9999-12-31 23:59:59 UTC' as high_end
        from {schema}.customers_snapshot
        order by customer_id, dbt_valid_from
        """
    )
    got = [
        (
            v["customer_id"],
            v["city"],
            v["audit_insert_process_id"],
            v["audit_update_process_id"],
            v["is_open"],
            v["high_end"],
        )
        for v in versions
    ]
    assert got == [
        (1, "Lyon", run1, run2, False, False),  # updated on day 2: closed by run 2
        (1, "Grenoble", run2, None, True, True),
        (2, "Paris", run1, run2, False, False),  # deleted on day 2
        (3, "Nantes", run1, None, True, True),  # unchanged
        (4, "Lille", run2, None, True, True),  # new on day 2
    ]
    assert versions[3]["name"] == "O'Brien, Pat"


def test_analyst_macros_through_the_package(two_days) -> None:
    project, _run1, run2 = two_days
    current = project.rows("select customer_id, city from {schema}.customers_current")
    assert sorted((r["customer_id"], r["city"]) for r in current) == [
        (1, "Grenoble"),
        (3, "Nantes"),
        (4, "Lille"),
    ]
    audit = project.rows(
        "select versions_inserted, versions_updated, versions_deleted, versions_unchanged "
        f"from {{schema}}.snapshot_run_audit where process_id = '{run2}'"
    )
    # Run 2: Alice's new version and Dan inserted, Alice's old one closed, Bob deleted,
    # O'Brien untouched.
    assert audit == [
        {
            "versions_inserted": 2,
            "versions_updated": 1,
            "versions_deleted": 1,
            "versions_unchanged": 1,
        }
    ]
    feed = project.rows(
        "select customer_id, _change_type as change_type from {schema}.customers_change_feed "
        f"where _process_id = '{run2}'"
    )
    assert sorted((r["customer_id"], r["change_type"]) for r in feed) == [
        (1, "update_postimage"),
        (1, "update_preimage"),
        (2, "delete"),
        (4, "insert"),
    ]


def test_dbt_clone_through_the_package(two_days, tmp_path: Path) -> None:
    """`dbt clone` in the user's project, with the package's clone wrapper: the seed and the
    snapshot become views of their state in another schema (dbt-spark's own clone fails on
    Iceberg: "shallow clone requires file_format be set to 'delta'")."""
    project, _run1, _run2 = two_days
    project.dbt("parse", "--write-json")  # the suite runs without artifacts (conftest.py)
    state = tmp_path / "state"
    state.mkdir()
    shutil.copy(project.root / "target" / "manifest.json", state / "manifest.json")
    dev = copy.copy(project)
    dev.schema = "pkg_it_dev"
    project.spark.sql("create or replace temporary view stray_temporary_view as select 1 as id")
    dev.dbt("clone", "--state", str(state), "--select", "customers", "customers_snapshot")
    views = dev.rows("show views in {schema}")  # the session's temporary views too
    assert {r["viewName"] for r in views if not r["isTemporary"]} == {
        "customers",
        "customers_snapshot",
    }
    snapshot = "select customer_id, city, dbt_valid_to from {schema}.customers_snapshot"
    assert sorted(map(str, dev.rows(snapshot))) == sorted(map(str, project.rows(snapshot)))
    assert len(dev.rows(snapshot)) == 5  # Alice twice, Bob closed, O'Brien, Dan


def test_guard_stops_a_duplicate_key_and_writes_nothing(two_days) -> None:
    project, _run1, _run2 = two_days
    before = project.rows("select * from {schema}.customers_snapshot order by dbt_scd_id")
    commits = project.rows("select snapshot_id from {schema}.customers_snapshot.snapshots")
    project.seed_file([*DAY2, "4,Dan again,Lille,2024-01-03 08:00:00"])
    project.dbt("seed")
    with pytest.raises(DbtStepError, match="duplicate"):
        project.dbt("snapshot")
    assert project.rows("select * from {schema}.customers_snapshot order by dbt_scd_id") == before
    assert project.rows("select snapshot_id from {schema}.customers_snapshot.snapshots") == commits
    project.seed_file(DAY2)
    project.dbt("seed")


def test_dispatch_alone_then_the_wrapper_then_no_dispatch(
    spark: SparkSession, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The package's snapshot macros under dbt-spark's own snapshot materialization (the
    dispatch block without the package's snapshot wrapper): the metadata columns and nothing
    of the package's own in the table. The wrapper added later takes the table over. A project
    whose dispatch block is then lost fails with what to add, and writes nothing."""
    project = UserProject(
        tmp_path_factory.mktemp("dispatch") / "user_project", "pkg_dispatch", spark
    )
    wrappers = project.root / "macros" / "scd2_audit_materializations.sql"
    with_snapshot = wrappers.read_text()
    snapshot_wrapper = (
        "{% materialization snapshot, adapter='spark' %}\n"
        "    {{ return(scd2_audit.materialization_snapshot_spark()) }}\n"
        "{% endmaterialization %}\n"
    )
    assert snapshot_wrapper in with_snapshot
    wrappers.write_text(with_snapshot.replace(snapshot_wrapper, ""))
    project.dbt("deps")
    project.seed_file(DAY1)
    project.dbt("seed")
    run1 = project.dbt("snapshot").invocation_id
    project.seed_file(DAY2)
    project.dbt("seed")
    run2 = project.dbt("snapshot").invocation_id
    columns = [
        r["col_name"]
        for r in project.rows("describe table {schema}.customers_snapshot")
        if r["col_name"] and not r["col_name"].startswith("#")
    ]
    assert sorted(columns) == sorted(
        [
            "customer_id",
            "name",
            "city",
            "updated_at",
            "dbt_scd_id",
            "dbt_updated_at",
            "dbt_valid_from",
            "dbt_valid_to",
            *AUDIT,
        ]
    ), columns

    # Day 3, with the wrapper: O'Brien moves.
    wrappers.write_text(with_snapshot)
    project.seed_file(
        [
            "1,Alice,Grenoble,2024-01-02 08:00:00",
            '3,"O\'Brien, Pat",Rennes,2024-01-03 08:00:00',
            "4,Dan,Lille,2024-01-02 08:00:00",
        ]
    )
    project.dbt("seed")
    run3 = project.dbt("snapshot").invocation_id
    versions = project.rows(
        """
        select customer_id, city, audit_insert_process_id, audit_update_process_id
        from {schema}.customers_snapshot
        order by customer_id, dbt_valid_from
        """
    )
    assert [tuple(v.values()) for v in versions] == [
        (1, "Lyon", run1, run2),
        (1, "Grenoble", run2, None),
        (2, "Paris", run1, run2),
        (3, "Nantes", run1, run3),
        (3, "Rennes", run3, None),
        (4, "Lille", run2, None),
    ]
    # The wrapper's run rewrote the table into the open-partition layout: open versions, and
    # those closed by run 2 and run 3.
    partitions = project.rows(
        "select partition.audit_update_process_id as run, record_count "
        "from {schema}.customers_snapshot.partitions"
    )
    assert sorted(partitions, key=lambda p: p["run"] or "") == sorted(
        [
            {"run": None, "record_count": 3},
            {"run": run2, "record_count": 2},
            {"run": run3, "record_count": 1},
        ],
        key=lambda p: p["run"] or "",
    )

    # The dispatch block lost: the seed and the snapshot stop before anything is written.
    config = project.root / "dbt_project.yml"
    text = config.read_text()
    start = text.index("dispatch:")
    end = text.index("seeds:", start)
    config.write_text(text[:start] + text[end:])
    commits = project.rows("select snapshot_id from {schema}.customers_snapshot.snapshots")
    seed_commits = project.rows("select snapshot_id from {schema}.customers.snapshots")
    for command in ("seed", "snapshot"):
        step = project.dbt(command, check=False)
        message = step.result.results[0].message
        assert "resolve to dbt's versions, not the package's" in message, message
        assert "macro_namespace: dbt" in message, message
    assert project.rows("select snapshot_id from {schema}.customers_snapshot.snapshots") == commits
    assert project.rows("select snapshot_id from {schema}.customers.snapshots") == seed_commits
    assert len(project.rows("select * from {schema}.customers_snapshot")) == len(versions)


def test_a_project_whose_profile_has_the_demos_name_gets_a_clear_error(
    spark: SparkSession, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A user project that names its profile scd2_lakehouse (copying this project's
    profiles.yml) makes dbt read the package's demo folders too: the demo's seed fails,
    saying to rename the profile, and writes nothing (its table was built in the user's
    schema)."""
    project = UserProject(
        tmp_path_factory.mktemp("demo_profile") / "user_project", "pkg_demo_profile", spark
    )
    for name in ("profiles.yml", "dbt_project.yml"):
        path = project.root / name
        path.write_text(
            path.read_text()
            .replace("scd2_audit_integration_tests:", "scd2_lakehouse:", 1)
            .replace("profile: scd2_audit_integration_tests", "profile: scd2_lakehouse")
        )
    # Its own models go: one shares a name with a demo model, which dbt refuses first.
    shutil.rmtree(project.root / "models")
    project.dbt("deps")
    with pytest.raises(DbtStepError) as failed:
        project.dbt("seed", "--select", "cdc_source")
    message = str(failed.value)
    assert "Seed 'cdc_source' is a node of the scd2_audit package's demo" in message, message
    assert "Name the profile after your project" in message, message
    assert not spark.catalog.tableExists("pkg_demo_profile.cdc_source")
