"""The scd2_audit package installed the way a user installs it: the `integration_tests/` dbt
project (its own profile, seed, YAML snapshot, models and tests) with `packages.yml`, `dbt deps`,
one `dispatch` block and dbt's opt-in wrappers for the package's materializations.

Day 1: customers 1 Alice, 2 Bob, 3 O'Brien. Day 2: Alice moves, Bob is deleted, 4 Dan is new.
"""

from __future__ import annotations

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
    # The package brings its macros only: none of the demo's seeds, snapshots or models.
    listed = project.dbt("ls", "--quiet", "--output", "name").result
    assert sorted(listed) == sorted(
        [
            "customers",
            "customers_snapshot",
            "customers_current",
            "customers_change_feed",
            *[n for n in listed if n.startswith(("not_null_", "unique_", "scd2_audit_"))],
        ]
    ), listed
    assert not [n for n in listed if n.startswith("cdc_")], listed
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
