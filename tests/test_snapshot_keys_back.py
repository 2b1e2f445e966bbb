"""Keys that come back after a hard delete (issue 11): never two valid versions at once,
never a row of the source dropped, never a dbt_scd_id used twice.

With the check strategy every validity instant is a run's time, so a key that comes back
starts after its delete (tests/test_snapshot_metadata.py). With the timestamp strategy dbt
dates a delete at the run's time but the returning row at its own updated_at, which can be
earlier. The rule (docs/snapshot-metadata.md, "When the source changes shape or keys come
back"): a new version starts at the source's updated_at unless that is not later than the
key's open version started, or earlier than any of its closed versions ended; it then starts
at the run's time. The check strategy with updated_at follows the same rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest
from pyspark.sql import SparkSession

from python_helpers.tooling.scratch import ScratchProject
from tests.snapshot_helpers import assert_closed, assert_open, history
from tests.test_reliability import (
    SCD2_TESTS,
    assert_generic_tests_pass,
    write_source,
    write_table_snapshot,
)

T = datetime.fromisoformat
TIMESTAMP = "unique_key='id', strategy='timestamp', updated_at='updated_at', hard_deletes="


def _key(project: ScratchProject, key: int) -> list[dict[str, Any]]:
    return [r for r in history(project, "snap") if r["id"] == key]


def assert_no_overlap(project: ScratchProject) -> None:
    """At every instant at most one version of a key is valid (effective ranges, half-open)."""
    table = project.table("snap")
    overlapping = project.spark.sql(
        f"""
        select a.id, a.dbt_scd_id, b.dbt_scd_id
        from {table} as a
        inner join {table} as b
            on a.id = b.id and a.dbt_scd_id < b.dbt_scd_id
            and a.effective_start_ts < b.effective_end_ts
            and b.effective_start_ts < a.effective_end_ts
        """
    ).collect()
    assert overlapping == []
    ids = project.spark.sql(f"select dbt_scd_id from {table}").collect()
    assert len({r[0] for r in ids}) == len(ids), "dbt_scd_id used twice"


def test_timestamp_key_back_with_its_old_updated_at(dbt_project: ScratchProject) -> None:
    write_table_snapshot(dbt_project, TIMESTAMP + "'invalidate'")
    write_source(dbt_project, [(1, "a", 10, T("2024-01-01")), (2, "b", 20, T("2024-01-01"))])
    run1 = dbt_project.dbt("snapshot")

    # Day 2: 1 deleted (closed at run 2's time, dbt's rule), 2 updated.
    write_source(dbt_project, [(2, "b", 21, T("2024-01-02"))])
    run2 = dbt_project.dbt("snapshot")
    (v1,) = _key(dbt_project, 1)
    assert_closed(v1, run1.invocation_id, run2.invocation_id)
    deleted_at = v1["dbt_valid_to"]
    assert deleted_at == v1["audit_update_ts"]  # the run's time

    # Day 3: 1 is back exactly as it was deleted, same updated_at (2024-01-01). dbt would give
    # it v1's dbt_scd_id, and its MERGE would drop it; and its updated_at is before the
    # delete. It opens a version of its own, from run 3's time.
    write_source(dbt_project, [(1, "a", 10, T("2024-01-01")), (2, "b", 21, T("2024-01-02"))])
    run3 = dbt_project.dbt("snapshot")
    v1, v2 = _key(dbt_project, 1)
    assert (v1["amount"], v1["dbt_valid_to"]) == (10, deleted_at)
    assert (v2["amount"], v2["dbt_valid_to"]) == (10, None)
    assert_open(v2, run3.invocation_id)
    assert v2["dbt_valid_from"] == v2["audit_insert_ts"] > deleted_at
    assert v2["dbt_updated_at"] == T("2024-01-01")  # the source's updated_at, as dbt keeps it
    assert v2["dbt_scd_id"] != v1["dbt_scd_id"]
    assert_no_overlap(dbt_project)

    # Day 4: unchanged: nothing happens (the version moved to run 3's time is not "changed").
    dbt_project.dbt("snapshot")
    assert len(_key(dbt_project, 1)) == 2

    # Day 5: 1 updated with an updated_at still before run 3 (2024-01-05): dbt's timestamp test
    # (dbt_valid_from < updated_at) would not see it; this one compares dbt_updated_at.
    write_source(dbt_project, [(1, "a", 12, T("2024-01-05")), (2, "b", 21, T("2024-01-02"))])
    run5 = dbt_project.dbt("snapshot")
    v1, v2, v3 = _key(dbt_project, 1)
    assert [(v["amount"], v["dbt_valid_to"] is None) for v in (v1, v2, v3)] == [
        (10, False),
        (10, False),
        (12, True),
    ]
    assert_closed(v2, run3.invocation_id, run5.invocation_id)
    assert_open(v3, run5.invocation_id)
    assert v2["dbt_valid_to"] == v3["dbt_valid_from"] == v3["audit_insert_ts"]

    # Day 6: an update dated after everything so far starts at its own updated_at (dbt's rule).
    later = datetime.now() + timedelta(days=1)
    write_source(dbt_project, [(1, "a", 13, later), (2, "b", 21, T("2024-01-02"))])
    run6 = dbt_project.dbt("snapshot")
    v4 = _key(dbt_project, 1)[-1]
    assert (v4["amount"], v4["dbt_valid_from"]) == (13, later)
    assert_open(v4, run6.invocation_id)
    assert_no_overlap(dbt_project)
    assert_generic_tests_pass(dbt_project)


def test_timestamp_new_record_key_back(dbt_project: ScratchProject) -> None:
    write_table_snapshot(dbt_project, TIMESTAMP + "'new_record'")
    write_source(dbt_project, [(1, "a", 10, T("2024-01-01")), (2, "b", 20, T("2024-01-01"))])
    run1 = dbt_project.dbt("snapshot")
    write_source(dbt_project, [(2, "b", 20, T("2024-01-01"))])  # 1 deleted
    run2 = dbt_project.dbt("snapshot")
    write_source(dbt_project, [(1, "a", 10, T("2024-01-01")), (2, "b", 20, T("2024-01-01"))])
    run3 = dbt_project.dbt("snapshot")  # 1 back, same updated_at

    versions = _key(dbt_project, 1)
    assert [(v["amount"], v["dbt_is_deleted"], v["dbt_valid_to"] is None) for v in versions] == [
        (10, "False", False),
        (10, "True", False),  # the deletion record, from run 2 to run 3
        (10, "False", True),
    ]
    v1, deletion, v2 = versions
    assert_closed(v1, run1.invocation_id, run2.invocation_id)
    assert_closed(deletion, run2.invocation_id, run3.invocation_id)
    assert_open(v2, run3.invocation_id)
    assert v1["dbt_valid_to"] == deletion["dbt_valid_from"]
    assert deletion["dbt_valid_to"] == v2["dbt_valid_from"] == v2["audit_insert_ts"]
    assert deletion["dbt_valid_from"] < deletion["dbt_valid_to"]
    assert_no_overlap(dbt_project)
    assert_generic_tests_pass(dbt_project)


@pytest.mark.parametrize("hard_deletes", ["invalidate", "new_record"])
def test_timestamp_key_back_later_keeps_dbt_validity(
    dbt_project: ScratchProject, hard_deletes: str
) -> None:
    """A key back with an updated_at after its delete: dbt's own validity, unchanged."""
    write_table_snapshot(dbt_project, TIMESTAMP + f"'{hard_deletes}'")
    write_source(dbt_project, [(1, "a", 10, T("2024-01-01")), (2, "b", 20, T("2024-01-01"))])
    dbt_project.dbt("snapshot")
    write_source(dbt_project, [(2, "b", 20, T("2024-01-01"))])
    dbt_project.dbt("snapshot")
    back = datetime.now() + timedelta(days=1)
    write_source(dbt_project, [(1, "a", 11, back), (2, "b", 20, T("2024-01-01"))])
    run3 = dbt_project.dbt("snapshot")
    last = _key(dbt_project, 1)[-1]
    assert (last["amount"], last["dbt_valid_from"], last["dbt_valid_to"]) == (11, back, None)
    assert_open(last, run3.invocation_id)
    if hard_deletes == "new_record":
        deletion = _key(dbt_project, 1)[-2]
        assert deletion["dbt_is_deleted"] == "True"
        assert deletion["dbt_valid_to"] == back
    assert_no_overlap(dbt_project)
    assert_generic_tests_pass(dbt_project)


def test_check_with_updated_at_a_change_that_keeps_or_moves_back_updated_at(
    dbt_project: ScratchProject,
) -> None:
    """The check strategy with updated_at sees a change by the values, whatever updated_at
    says. A change that keeps the open version's updated_at, or that moves it back (a row
    restored from a backup, with the values and updated_at of an earlier version), starts at
    the run's time and gets an id of its own. It used to fail the MERGE (the new version had the
    open one's dbt_scd_id: Spark's MERGE_CARDINALITY_VIOLATION), or to reuse the earlier
    version's dbt_scd_id."""
    write_table_snapshot(
        dbt_project,
        "unique_key='id', strategy='check', check_cols='all', updated_at='updated_at', "
        "hard_deletes='invalidate'",
    )
    nine, ten = T("2024-01-01 09:00:00"), T("2024-01-01 10:00:00")
    write_source(dbt_project, [(1, "a", 10, nine), (2, "b", 20, ten)])
    run1 = dbt_project.dbt("snapshot")

    # Run 2: 1 updated with a later updated_at (dbt's rule: from 10:00); 2 changed, same
    # updated_at as its open version: from run 2's time.
    write_source(dbt_project, [(1, "a", 11, ten), (2, "b", 21, ten)])
    run2 = dbt_project.dbt("snapshot")
    k1v1, k1v2 = _key(dbt_project, 1)
    assert (k1v1["amount"], k1v1["dbt_valid_from"], k1v1["dbt_valid_to"]) == (10, nine, ten)
    assert (k1v2["amount"], k1v2["dbt_valid_from"], k1v2["dbt_valid_to"]) == (11, ten, None)
    k2v1, k2v2 = _key(dbt_project, 2)
    assert_closed(k2v1, run1.invocation_id, run2.invocation_id)
    assert_open(k2v2, run2.invocation_id)
    assert (k2v1["amount"], k2v1["dbt_valid_from"]) == (20, ten)
    assert k2v2["amount"] == 21
    assert k2v1["dbt_valid_to"] == k2v2["dbt_valid_from"] == k2v2["audit_insert_ts"] > ten
    assert k2v2["dbt_updated_at"] == ten  # the source's updated_at, as dbt keeps it

    # Run 3: 1 restored from a backup (run 1's values and updated_at): from run 3's time, with
    # an id other than its first version's; 2 unchanged.
    write_source(dbt_project, [(1, "a", 10, nine), (2, "b", 21, ten)])
    run3 = dbt_project.dbt("snapshot")
    k1v1, k1v2, k1v3 = _key(dbt_project, 1)
    assert_closed(k1v2, run2.invocation_id, run3.invocation_id)
    assert_open(k1v3, run3.invocation_id)
    assert k1v3["amount"] == 10
    assert k1v2["dbt_valid_to"] == k1v3["dbt_valid_from"] == k1v3["audit_insert_ts"] > ten
    assert k1v3["dbt_updated_at"] == nine
    assert k1v3["dbt_scd_id"] != k1v1["dbt_scd_id"]
    assert len(_key(dbt_project, 2)) == 2
    assert_no_overlap(dbt_project)
    assert_generic_tests_pass(dbt_project)


# --- many days mixing every change ---------------------------------------------------------

WIDE = "id int, name string, amount int, updated_at timestamp, region string"
NARROW = "id int, name string, amount bigint, updated_at timestamp"
NEW_COLUMN = "id int, name string, amount bigint, updated_at timestamp, category string"
MIXED_DAYS: list[tuple[str, list[tuple]]] = [
    (WIDE, [(i, f"n{i}", 10 * i, T("2024-01-01"), "eu") for i in range(1, 6)]),
    # 1 and 5 updated, 2 and 4 deleted, 3 unchanged, 6 new.
    (
        WIDE,
        [
            (1, "n1", 11, T("2024-01-02"), "eu"),
            (3, "n3", 30, T("2024-01-01"), "eu"),
            (5, "n5", 51, T("2024-01-02"), "us"),
            (6, "n6", 60, T("2024-01-02"), "us"),
        ],
    ),
    # region removed and amount widened to bigint; 2 back exactly as deleted (same
    # updated_at); 4 back with an updated_at older than any version; 3 updated; 5 deleted;
    # 7 new with a value only bigint holds.
    (
        NARROW,
        [
            (1, "n1", 11, T("2024-01-02")),
            (2, "n2", 20, T("2024-01-01")),
            (3, "n3", 31, T("2024-01-03")),
            (4, "n4", 44, T("2023-12-31")),
            (6, "n6", 60, T("2024-01-02")),
            (7, "n7", 5_000_000_000, T("2024-01-03")),
        ],
    ),
    # category added; 5 back after its delete with a later updated_at; 2 updated; 7 deleted.
    (
        NEW_COLUMN,
        [
            (1, "n1", 11, T("2024-01-02"), None),
            (2, "n2", 22, T("2024-01-04"), "x"),
            (3, "n3", 31, T("2024-01-03"), None),
            (4, "n4", 44, T("2023-12-31"), None),
            (5, "n5", 55, datetime.now() + timedelta(days=1), "y"),
            (6, "n6", 60, T("2024-01-02"), None),
        ],
    ),
]
MIXED_CONFIGS = {
    "check-invalidate": "strategy='check', check_cols='all', hard_deletes='invalidate'",
    "check-new_record": "strategy='check', check_cols='all', hard_deletes='new_record'",
    "check-ignore": "strategy='check', check_cols='all', hard_deletes='ignore'",
    # Day 4's new column changes every row under its open version's updated_at.
    "check-updated_at-new_record": "strategy='check', check_cols='all', updated_at='updated_at', "
    "hard_deletes='new_record'",
    "timestamp-invalidate": "strategy='timestamp', updated_at='updated_at', "
    "hard_deletes='invalidate'",
    "timestamp-new_record-upper-case-names": "strategy='timestamp', updated_at='updated_at', "
    "hard_deletes='new_record', snapshot_meta_column_names={'dbt_valid_to': 'VALID_TO', "
    "'dbt_valid_from': 'VALID_FROM', 'dbt_scd_id': 'SCD_ID', 'dbt_updated_at': 'CHANGED_AT', "
    "'dbt_is_deleted': 'IS_DELETED'}",
}


MIXED_SCHEMA = "keys_back_mixed_days"


def _mixed_name(config_id: str) -> str:
    return "snap_" + config_id.replace("-", "_")


@dataclass
class MixedDay:
    """What one snapshot's table showed after one day's run."""

    open_versions: dict[int, tuple[str, int]]  # id -> (name, amount) of its live version
    live: int  # live versions (more than open_versions when a key has two)
    overlapping: list[int]  # keys with two versions valid at one instant
    scd_ids: list[str]
    rows: list[tuple]  # every version, every column, in dbt_scd_id order
    generic_tests: dict[str, str]  # the scd2 data test -> status


@pytest.fixture(scope="module")
def mixed_days(
    spark: SparkSession, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, list[MixedDay]]:
    """MIXED_DAYS and the last day again, on one snapshot per MIXED_CONFIGS entry over one
    source: each day one `dbt snapshot` and one `dbt test` run them all."""
    root = tmp_path_factory.mktemp("mixed_days")
    project = ScratchProject(root / "project", MIXED_SCHEMA, spark)
    for config_id, config in MIXED_CONFIGS.items():
        write_table_snapshot(project, f"unique_key='id', {config}", _mixed_name(config_id))
    seen: dict[str, list[MixedDay]] = {config_id: [] for config_id in MIXED_CONFIGS}
    for ddl, rows in [*MIXED_DAYS, MIXED_DAYS[-1]]:
        write_source(project, rows, ddl)
        project.dbt("snapshot")
        tested = project.dbt("test")
        statuses: dict[str, dict[str, str]] = {}
        for result in tested.result.results:
            (snapshot,) = [n.split(".")[-1] for n in result.node.depends_on.nodes]
            statuses.setdefault(snapshot, {})[result.node.test_metadata.name] = str(
                result.status
            ).lower()
        for config_id, config in MIXED_CONFIGS.items():
            name = _mixed_name(config_id)
            table = project.table(name)
            upper = "VALID_TO" in config
            valid_to, scd_id = ("VALID_TO", "SCD_ID") if upper else ("dbt_valid_to", "dbt_scd_id")
            is_deleted = "IS_DELETED" if upper else "dbt_is_deleted"
            live = f"{valid_to} is null"
            if "new_record" in config:
                live += f" and {is_deleted} = 'False'"
            overlapping = spark.sql(
                f"""
                select a.id from {table} as a
                inner join {table} as b
                    on a.id = b.id and a.{scd_id} < b.{scd_id}
                    and a.effective_start_ts < b.effective_end_ts
                    and b.effective_start_ts < a.effective_end_ts
                """
            ).collect()
            versions = spark.table(table).orderBy(scd_id).collect()
            seen[config_id].append(
                MixedDay(
                    open_versions={
                        r.id: (r.name, r.amount)
                        for r in spark.sql(
                            f"select id, name, amount from {table} where {live}"
                        ).collect()
                    },
                    live=spark.sql(f"select count(*) from {table} where {live}").first()[0],
                    overlapping=[r.id for r in overlapping],
                    scd_ids=[r[scd_id] for r in versions],
                    rows=[tuple(r) for r in versions],
                    generic_tests=statuses.get(name, {}),
                )
            )
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("config_id", list(MIXED_CONFIGS))
def test_many_days_of_mixed_changes_keep_every_rule(
    spark: SparkSession, mixed_days: dict[str, list[MixedDay]], config_id: str
) -> None:
    """After every day: each source row is exactly one open version with its values, deleted
    keys have none (unless deletes are ignored), no two versions of a key overlap, ids are
    unique, and every generic test passes. A day repeated changes nothing."""
    config = MIXED_CONFIGS[config_id]
    days = mixed_days[config_id]
    seen: set[int] = set()
    for number, ((_ddl, rows), day) in enumerate(
        zip([*MIXED_DAYS, MIXED_DAYS[-1]], days, strict=True), start=1
    ):
        open_versions = day.open_versions
        assert day.live == len(open_versions), f"day {number}: a key with two open versions"
        source = {r[0]: (r[1], r[2]) for r in rows}
        seen |= set(source)
        if "ignore" in config:
            for key in seen - set(source):
                assert key in open_versions, f"day {number}: {key} closed, deletes ignored"
            open_versions = {k: v for k, v in open_versions.items() if k in source}
        assert open_versions == source, f"day {number}"
        assert day.overlapping == [], f"day {number}: overlapping versions"
        assert len(set(day.scd_ids)) == len(day.scd_ids), f"day {number}: an id used twice"
        assert day.generic_tests == dict.fromkeys(SCD2_TESTS, "pass"), f"day {number}"
    # The last day again: nothing changes.
    assert days[-1].rows == days[-2].rows
    table = f"{MIXED_SCHEMA}.{_mixed_name(config_id)}"
    columns = spark.table(table).columns
    assert {"region", "category"} <= set(columns)
    assert dict(spark.table(table).dtypes)["amount"] == "bigint"


@pytest.mark.parametrize("hard_deletes", ["invalidate", "new_record"])
def test_a_key_dated_in_the_future_once_never_gets_a_version_that_ends_before_it_starts(
    dbt_project: ScratchProject, hard_deletes: str
) -> None:
    """An updated_at in the future (F, past the runs' times) on day 1; key 1 is deleted on
    day 2 and comes back on day 3 dated before F. The rule starts the returning version at
    the run's time, or at F where that is later: the delete closed the key at F (where its
    version started), so it comes back at F, and with new_record the deletion record opened
    at F ends there too. dbt_updated_at keeps the source's own."""
    future = T("2099-12-30")
    write_table_snapshot(dbt_project, TIMESTAMP + repr(hard_deletes))
    write_source(dbt_project, [(1, "a", 10, future), (2, "b", 20, T("2024-01-01"))])
    dbt_project.dbt("snapshot")
    write_source(dbt_project, [(2, "b", 20, T("2024-01-01"))])
    dbt_project.dbt("snapshot")
    write_source(dbt_project, [(1, "a", 10, T("2024-01-02")), (2, "b", 20, T("2024-01-01"))])
    dbt_project.dbt("snapshot")

    versions = [
        (r["dbt_valid_from"], r["dbt_valid_to"], r["dbt_updated_at"], r.get("dbt_is_deleted"))
        for r in sorted(_key(dbt_project, 1), key=lambda r: r["audit_insert_ts"])
    ]
    first = (future, future, future)
    back = (future, None, T("2024-01-02"))
    if hard_deletes == "invalidate":
        assert [v[:3] for v in versions] == [first, back]
    else:
        # The deletion record holds the version's values and the run's time as dbt_updated_at.
        assert [(v[0], v[1], v[3]) for v in versions] == [
            (future, future, "False"),
            (future, future, "True"),
            (future, None, "False"),
        ]
        assert versions[2][2] == T("2024-01-02")
    assert_no_overlap(dbt_project)
    assert_generic_tests_pass(dbt_project)
