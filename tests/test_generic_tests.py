"""The scd2_* generic data tests: pass on real snapshots, fail on copies broken on purpose."""

from __future__ import annotations

import pytest
import yaml

from python_helpers.tooling.scratch import ScratchProject
from tests.snapshot_helpers import day, write_snapshot, write_stock_built_table

TESTS = (
    "scd2_one_open_version_per_key",
    "scd2_contiguous_validity",
    "scd2_open_closed_metadata",
    "scd2_insert_metadata",
)
HEADER = "k1,k2,amount"

# Each broken copy: the generic test it must trip, and the update that breaks it.
BREAKS = {
    # A closed version re-opened: the key now has two open versions.
    "two_open": (
        "scd2_one_open_version_per_key",
        "update {t} set dbt_valid_to = null, audit_update_process_id = null, "
        "audit_update_ts = null, effective_end_ts = timestamp '9999-12-31 23:59:59 UTC' "
        "where k1 = 'a' and k2 = 1 and amount = 10",
    ),
    # The successor of an updated version starts an hour late: a gap while the key exists.
    "gap": (
        "scd2_contiguous_validity",
        "update {t} set effective_start_ts = effective_start_ts + interval 1 hour, "
        "dbt_valid_from = dbt_valid_from + interval 1 hour "
        "where k1 = 'a' and k2 = 1 and amount = 11",
    ),
    # An open version that claims to have been closed by a run.
    "open_with_closer": (
        "scd2_open_closed_metadata",
        "update {t} set audit_update_process_id = 'someone' where k1 = 'a' and k2 = 2",
    ),
    # A version nobody inserted.
    "no_inserter": (
        "scd2_insert_metadata",
        "update {t} set audit_insert_process_id = null where k1 = 'b' and k2 = 2",
    ),
}


def _statuses(step) -> dict[str, str]:
    """test name -> status, for every test node of a `dbt test` result."""
    return {r.node.name: str(r.status).lower() for r in step.result.results}


@pytest.fixture
def snapshotted(dbt_project: ScratchProject) -> ScratchProject:
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key=['k1', 'k2'], strategy='check', check_cols='all', hard_deletes='invalidate'",
    )
    properties = {
        "version": 2,
        "snapshots": [{"name": "snap", "description": "test snapshot", "data_tests": list(TESTS)}],
    }
    dbt_project.write("snapshots/snap.yml", yaml.safe_dump(properties))
    day(dbt_project, HEADER, ["a,1,10", "a,2,20", "b,1,30"])
    # a/1 updated, a/2 unchanged, b/1 deleted, b/2 new
    day(dbt_project, HEADER, ["a,1,11", "a,2,20", "b,2,40"])
    # b/1 comes back a run later: a legitimate gap
    day(dbt_project, HEADER, ["a,1,11", "a,2,20", "b,1,31", "b,2,40"])
    return dbt_project


def test_generic_tests_pass_on_snapshot_and_fail_on_broken_copies(
    snapshotted: ScratchProject,
) -> None:
    project = snapshotted
    step = project.dbt("test", "--select", "snap")
    statuses = _statuses(step)
    assert len(statuses) == len(TESTS)
    assert set(statuses.values()) == {"pass"}, statuses

    spark = project.spark
    for name, (_, break_sql) in BREAKS.items():
        table = project.table(f"snap_{name}")
        spark.sql(f"create table {table} using iceberg as select * from {project.table('snap')}")
        spark.sql(break_sql.format(t=table))
    broken_tables = [
        {
            "name": f"snap_{name}",
            "data_tests": [{test: {"arguments": {"unique_key": ["k1", "k2"]}}}],
        }
        for name, (test, _) in BREAKS.items()
    ]
    sources = {"name": "broken", "schema": project.schema, "tables": broken_tables}
    project.write("models/broken.yml", yaml.safe_dump({"version": 2, "sources": [sources]}))
    step = project.dbt("test", "--select", "source:broken", check=False)
    statuses = _statuses(step)
    for name, (test, _) in BREAKS.items():
        failed = [
            n for n, s in statuses.items() if n.startswith(f"source_{test}_broken_snap_{name}")
        ]
        assert failed, (name, statuses)
        assert all(statuses[n] == "fail" for n in failed), (name, statuses)


def test_generic_tests_take_dbt_where_config(dbt_project: ScratchProject) -> None:
    """dbt's `where` config hands a generic test a subquery of its snapshot in place of the
    relation: the scd2 tests still read the snapshot's config (keys and renamed dbt columns)
    and test only the rows the filter keeps. They failed asking for a unique_key, and a
    snapshot with renamed columns could not be tested at all."""
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key=['k1', 'k2'], strategy='check', check_cols='all', hard_deletes='invalidate', "
        "snapshot_meta_column_names={'dbt_valid_from': 'valid_from', 'dbt_valid_to': 'valid_to', "
        "'dbt_scd_id': 'scd_id', 'dbt_updated_at': 'updated_at'}",
    )
    data_tests = [
        {test: {"name": f"{test}_{k1}", "config": {"where": f"k1 = '{k1}'"}}}
        for test in TESTS
        for k1 in ("a", "b")
    ]
    properties = {"version": 2, "snapshots": [{"name": "snap", "data_tests": data_tests}]}
    dbt_project.write("snapshots/snap.yml", yaml.safe_dump(properties))
    day(dbt_project, HEADER, ["a,1,10", "b,1,30"])
    day(dbt_project, HEADER, ["a,1,11", "b,1,30"])  # a/1 updated
    statuses = _statuses(dbt_project.dbt("test", "--select", "snap"))
    assert statuses == {f"{test}_{k1}": "pass" for test in TESTS for k1 in ("a", "b")}

    # a/1's closed version re-opened: two open versions of a/1; b untouched.
    dbt_project.spark.sql(
        f"update {dbt_project.table('snap')} set valid_to = null, "
        "audit_update_process_id = null, audit_update_ts = null, "
        "effective_end_ts = timestamp '9999-12-31 23:59:59 UTC' where k1 = 'a' and amount = 10"
    )
    statuses = _statuses(dbt_project.dbt("test", "--select", "snap", check=False))
    assert statuses["scd2_one_open_version_per_key_a"] == "fail"
    assert statuses["scd2_contiguous_validity_a"] == "fail"
    assert {statuses[f"{test}_b"] for test in TESTS} == {"pass"}

    # Under --empty dbt reads the snapshot through a subquery of no rows inside the filter's:
    # the tests still find it, and pass on no rows; the snapshot writes nothing.
    statuses = _statuses(dbt_project.dbt("build", "--select", "snap", "--empty"))
    assert statuses == {
        "snap": "success",
        **{f"{test}_{k1}": "pass" for test in TESTS for k1 in ("a", "b")},
    }


def test_generic_tests_on_a_table_without_the_audit_columns_fail_clearly(
    dbt_project: ScratchProject,
) -> None:
    """A snapshot table built by dbt's own snapshot macros (dbt's columns, no audit columns):
    the tests that read the audit columns fail naming them and the fix, where they failed on
    Spark's UNRESOLVED_COLUMN."""
    write_stock_built_table(dbt_project, "stock_built")
    checked = ("scd2_contiguous_validity", "scd2_open_closed_metadata", "scd2_insert_metadata")
    table = {
        "name": "stock_built",
        "data_tests": [{test: {"arguments": {"unique_key": ["id"]}}} for test in checked],
    }
    sources = {"name": "stock", "schema": dbt_project.schema, "tables": [table]}
    dbt_project.write("models/stock.yml", yaml.safe_dump({"version": 2, "sources": [sources]}))
    step = dbt_project.dbt("test", "--select", "source:stock", check=False)
    results = step.result.results
    assert len(results) == len(checked)
    for result in results:
        assert str(result.status).lower() == "error", result.status
        assert (
            "the table has no column(s) effective_start_ts, effective_end_ts, "
            "audit_insert_process_id" in result.message
        ), result.message
        assert "install the package as docs/package.md says" in result.message, result.message
