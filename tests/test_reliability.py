"""Reliability: whatever happens to a snapshot run, no SCD2 version is lost or duplicated.

Each test compares the full set of versions (every column: key, data, dbt_scd_id,
dbt_valid_from/to, the operational metadata) before and after, and counts Iceberg commits
(``<table>.snapshots``) where "nothing changed" is the claim.

1. a re-run on an unchanged source changes nothing;
2. a day's run repeated changes nothing (no duplicate versions);
3. a merge that fails mid-way, or a run killed (SIGKILL) during its merge (subprocesses on
   their own lakehouse: slow), leaves the table as it was; the next run completes the day
   and records its own process id (the dead run's staging view, left behind, is not reused:
   each run names its own, see macros/snapshots/spark_build_snapshot_staging_table.sql);
4. the mass-delete guard stops an empty or truncated extract on a larger table; an intended mass
   delete passes with ``scd2_max_delete_share: 1``;
5. null or duplicate parts of a composite key fail clearly, the table unchanged;
6. two runs at once through a Spark Thrift Server: one commits, the other fails cleanly (or
   finds nothing left to do); generic tests pass (own server and lakehouse: slow);
7. bad arguments of the generator and of the pipeline: exit status 2, nothing written.

Tests marked ``slow`` start JVMs of their own; deselect them with ``-m "not slow"``.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from dbt_common.invocation import get_invocation_id
from pyhive import hive
from pyspark.sql import SparkSession

from python_helpers.runtime.dbt_invoke import DbtStep, DbtStepError
from python_helpers.runtime.lakehouse import PROJECT_ROOT
from python_helpers.tooling.scratch import ScratchProject
from tests import reliability_driver as driver
from tests.snapshot_helpers import assert_closed, assert_open, history
from tests.subprocess_helpers import logged_since, results, wait_for

SCD2_TESTS = (
    "scd2_one_open_version_per_key",
    "scd2_contiguous_validity",
    "scd2_open_closed_metadata",
    "scd2_insert_metadata",
)
CHECK_INVALIDATE = "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'"
SOURCE_DDL = "id int, name string, amount int, updated_at timestamp"
START_TIMEOUT = 240  # seconds for a Thrift server to become ready (2 loaded cores)
SUBPROCESS_TIMEOUT = 900


# --- helpers ------------------------------------------------------------------------------


def write_table_snapshot(project: ScratchProject, config: str, name: str = "snap") -> None:
    """A snapshot over the table ``<schema>.src`` (written by Spark, no seed), with the scd2
    generic data tests attached."""
    project.write(
        f"snapshots/{name}.sql",
        f"""
        {{% snapshot {name} %}}
        {{{{ config({config}) }}}}
        select * from {{{{ target.schema }}}}.src
        {{% endsnapshot %}}
        """,
    )
    properties = {"version": 2, "snapshots": [{"name": name, "data_tests": list(SCD2_TESTS)}]}
    project.write(f"snapshots/{name}.yml", yaml.safe_dump(properties))


def write_source(project: ScratchProject, rows: list[tuple], ddl: str = SOURCE_DDL) -> None:
    """Replace the source table ``<schema>.src`` with ``rows``."""
    spark = project.spark
    spark.sql(f"create schema if not exists {project.schema}")
    frame = spark.createDataFrame(rows, ddl)
    frame.writeTo(project.table("src")).using("iceberg").createOrReplace()


def write_source_range(project: ScratchProject, first: int, last: int) -> None:
    """Replace ``<schema>.src`` with ids ``first..last-1`` (a larger, generated extract)."""
    project.spark.sql(f"create schema if not exists {project.schema}")
    project.spark.sql(
        f"""
        create or replace table {project.table("src")} using iceberg as
        select id, concat('name-', cast(id as string)) as name, cast(id % 1000 as int) as amount
        from range({first}, {last})
        """
    )


def iceberg_commits(project: ScratchProject, table: str = "snap") -> int:
    return project.spark.sql(f"select count(*) from {project.table(table)}.snapshots").first()[0]


def all_rows(project: ScratchProject, table: str = "snap") -> list[Any]:
    """Every version, every column, in a stable order (for exact before/after comparisons)."""
    frame = project.spark.table(project.table(table))
    return frame.orderBy(*frame.columns).collect()


def process_ids(rows: list[dict[str, Any]]) -> set[str]:
    return {r["audit_insert_process_id"] for r in rows} | {
        r["audit_update_process_id"] for r in rows if r["audit_update_process_id"]
    }


def assert_one_open_version_per_key(rows: list[dict[str, Any]], key: str = "id") -> None:
    open_keys = [r[key] for r in rows if r["dbt_valid_to"] is None]
    assert len(open_keys) == len(set(open_keys)), f"keys with two open versions: {open_keys}"


def assert_generic_tests_pass(project: ScratchProject, *args: str, name: str = "snap") -> None:
    step = project.dbt("test", "--select", name, *args)
    statuses = {r.node.name: str(r.status).lower() for r in step.result.results}
    assert len(statuses) == len(SCD2_TESTS), statuses
    assert set(statuses.values()) == {"pass"}, statuses


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- 1. re-run on an unchanged source -----------------------------------------------------


DAY1 = [
    (1, "a", 10, "2024-01-01 00:00:00"),
    (2, "b", 20, "2024-01-01 00:00:00"),
    (3, "c", 30, "2024-01-01 00:00:00"),
    (4, "d", 40, "2024-01-01 00:00:00"),
]
# id 1 updated, ids 2 and 4 unchanged, id 3 deleted, id 5 new.
DAY2 = [
    (1, "a", 11, "2024-01-02 00:00:00"),
    (2, "b", 20, "2024-01-01 00:00:00"),
    (4, "d", 40, "2024-01-01 00:00:00"),
    (5, "e", 50, "2024-01-02 00:00:00"),
]


def _rows(day: list[tuple]) -> list[tuple]:
    return [(*r[:3], datetime.fromisoformat(r[3])) for r in day]


def test_rerun_on_unchanged_source_changes_nothing(dbt_project: ScratchProject) -> None:
    write_table_snapshot(dbt_project, CHECK_INVALIDATE)
    write_source(dbt_project, _rows(DAY1))
    run1 = dbt_project.dbt("snapshot")
    before = history(dbt_project, "snap")
    # Day 1: four open versions, all inserted by run 1.
    assert [(r["id"], r["amount"], r["dbt_valid_to"]) for r in before] == [
        (1, 10, None),
        (2, 20, None),
        (3, 30, None),
        (4, 40, None),
    ]
    for r in before:
        assert_open(r, run1.invocation_id)
    commits = iceberg_commits(dbt_project)

    # The same source again: no version inserted or closed, no metadata touched.
    run2 = dbt_project.dbt("snapshot")
    after = history(dbt_project, "snap")
    assert after == before  # every column: dbt_scd_id, validity, audit timestamps and ids
    assert run2.invocation_id not in process_ids(after)
    # The merge found nothing to change. Iceberg still records a commit for it (an empty
    # overwrite): it must not have added or removed a single row.
    commits_after = dbt_project.spark.sql(
        f"select operation, summary from {dbt_project.table('snap')}.snapshots "
        "order by committed_at"
    ).collect()
    print("no-change run's Iceberg commits:", [tuple(c) for c in commits_after[commits:]])
    assert len(commits_after) <= commits + 1
    for commit in commits_after[commits:]:
        for counter in (
            "added-records",
            "deleted-records",
            "added-data-files",
            "deleted-data-files",
        ):
            assert commit.summary.get(counter, "0") == "0", commit


# --- 2. a day's run repeated --------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        pytest.param(
            "unique_key='id', strategy='check', check_cols='all', hard_deletes='new_record'",
            # (id, amount, open, dbt_is_deleted) after day 2
            [
                (1, 10, False, "False"),
                (1, 11, True, "False"),
                (2, 20, True, "False"),
                (3, 30, False, "False"),
                (3, 30, True, "True"),  # dbt's deletion record, opened by day 2's run
                (4, 40, True, "False"),
                (5, 50, True, "False"),
            ],
            id="check-new_record",
        ),
        pytest.param(
            "unique_key='id', strategy='timestamp', updated_at='updated_at', "
            "hard_deletes='invalidate'",
            [
                (1, 10, False, None),
                (1, 11, True, None),
                (2, 20, True, None),
                (3, 30, False, None),
                (4, 40, True, None),
                (5, 50, True, None),
            ],
            id="timestamp-invalidate",
        ),
    ],
)
def test_day_run_twice_creates_no_duplicates(
    dbt_project: ScratchProject, config: str, expected: list[tuple]
) -> None:
    write_table_snapshot(dbt_project, config)
    write_source(dbt_project, _rows(DAY1))
    run1 = dbt_project.dbt("snapshot")
    write_source(dbt_project, _rows(DAY2))
    run2 = dbt_project.dbt("snapshot")
    after_first = history(dbt_project, "snap")
    assert [
        (r["id"], r["amount"], r["dbt_valid_to"] is None, r.get("dbt_is_deleted"))
        for r in after_first
    ] == expected
    live = expected[0][3]  # dbt_is_deleted of a live version: 'False' (new_record) or None
    version = {(r["id"], r["amount"], r.get("dbt_is_deleted")): r for r in after_first}
    assert_closed(version[1, 10, live], run1.invocation_id, run2.invocation_id)
    assert_open(version[1, 11, live], run2.invocation_id)
    assert_open(version[2, 20, live], run1.invocation_id)
    assert_closed(version[3, 30, live], run1.invocation_id, run2.invocation_id)
    if live:
        assert_open(version[3, 30, "True"], run2.invocation_id)  # the deletion record
    assert_open(version[5, 50, live], run2.invocation_id)
    assert_one_open_version_per_key(after_first)

    # Day 2 again (a retried job): exactly the same versions, nothing from the repeat.
    run3 = dbt_project.dbt("snapshot")
    after_second = history(dbt_project, "snap")
    assert after_second == after_first
    assert run3.invocation_id not in process_ids(after_second)
    assert_generic_tests_pass(dbt_project)


# --- 2b. a run undone as docs/reliability.md says -----------------------------------------


def _states(project: ScratchProject) -> list[Any]:
    """docs/reliability.md's query, "Undoing a run": the states the table has been in."""
    table = project.table("snap")
    return project.spark.sql(
        f"""
        select h.made_current_at, h.snapshot_id, s.operation, s.summary['added-records'] as added
        from {table}.history as h
        inner join {table}.snapshots as s on h.snapshot_id = s.snapshot_id
        order by h.made_current_at
        """
    ).collect()


def _versions(project: ScratchProject) -> list[tuple]:
    return [
        (r["id"], r["amount"], r["note"], r["dbt_valid_to"] is None)
        for r in history(project, "snap")
    ]


def test_runs_are_undone_as_the_docs_say_also_one_that_added_a_column(
    dbt_project: ScratchProject,
) -> None:
    """Day 3 adds a column, so its run replaces the table in one commit: a new lineage, where
    Iceberg's rollback_to_snapshot refuses the states before it. The documented query and
    set_current_snapshot undo it, then day 2's MERGE; the days run again give the history a
    straight run gave, but for the column: it stays, so day 3 no longer adds it."""
    write_table_snapshot(dbt_project, CHECK_INVALIDATE)
    spark, table = dbt_project.spark, dbt_project.table("snap")
    note_ddl = SOURCE_DDL + ", note string"
    t = datetime(2024, 1, 1)
    day2 = [(1, "a", 11, t), (2, "b", 20, t)]
    day3 = [(1, "a", 11, t, None), (2, "b", 21, t, "n")]

    write_source(dbt_project, [(1, "a", 10, t), (2, "b", 20, t)])
    dbt_project.dbt("snapshot")
    day1_rows, day1_states = all_rows(dbt_project), len(_states(dbt_project))
    write_source(dbt_project, day2)
    dbt_project.dbt("snapshot")
    day2_rows, day2_states = all_rows(dbt_project), len(_states(dbt_project))
    write_source(dbt_project, day3, note_ddl)
    dbt_project.dbt("snapshot")
    straight = _versions(dbt_project)
    # check_cols='all' takes every key as changed when a column is added, as dbt's does.
    assert straight == [
        (1, 10, None, False),
        (1, 11, None, False),
        (1, 11, None, True),
        (2, 20, None, False),
        (2, 21, "n", True),
    ]

    # Undo day 3: the state before its commit is the last one logged before it.
    before_day3 = _states(dbt_project)[day2_states - 1].snapshot_id
    with pytest.raises(Exception, match="not an ancestor of the current state"):
        spark.sql(f"call spark_catalog.system.rollback_to_snapshot('{table}', {before_day3})")
    spark.sql(f"call spark_catalog.system.set_current_snapshot('{table}', {before_day3})")
    # Day 2's rows, with the column day 3 added (a rollback restores rows, not the schema).
    undone = all_rows(dbt_project)
    assert [r["note"] for r in undone] == [None] * len(day2_rows)
    assert [{k: v for k, v in r.asDict().items() if k != "note"} for r in undone] == [
        r.asDict() for r in day2_rows
    ]

    # Undo day 2, a MERGE, the same way: day 1's rows.
    before_day2 = _states(dbt_project)[day1_states - 1].snapshot_id
    spark.sql(f"call spark_catalog.system.set_current_snapshot('{table}', {before_day2})")
    assert [
        {k: v for k, v in r.asDict().items() if k != "note"} for r in all_rows(dbt_project)
    ] == [r.asDict() for r in day1_rows]

    # Days 2 and 3 again: the straight run's history, but for the version day 3 gave key 1
    # when it added the column, which the table now has.
    write_source(dbt_project, day2)
    dbt_project.dbt("snapshot")
    write_source(dbt_project, day3, note_ddl)
    dbt_project.dbt("snapshot")
    assert _versions(dbt_project) == [straight[0], straight[2], *straight[3:]]
    assert_generic_tests_pass(dbt_project)


# --- 3. a run that dies during its merge -------------------------------------------------

# Regression guard: dbt-spark's staging view was default.<snapshot>__dbt_tmp, left behind by a
# run that died in its merge; the next run's `create or replace view` kept the old text
# (apache/iceberg#15490), so it merged the dead run's staging query and recorded the dead
# run's invocation_id. Each run now names its own staging view, a temporary one (Iceberg).


def _staging_view_left(spark: SparkSession, name: str, run_id: str) -> bool:
    """Whether the run's staging view, `<name>__dbt_tmp_<hash>_<run id>`, is still there."""
    return any(
        view.isTemporary
        and view.viewName.startswith(f"{name}__dbt_tmp_")
        and view.viewName.endswith(f"_{run_id.replace('-', '')}")
        for view in spark.sql("show views").collect()
    )


@dataclass(frozen=True)
class FailedMerge:
    run1: DbtStep
    error: str
    failed_run: str
    staging_view_left: bool  # the merge failed, not a check before it
    before: list[Any]
    after_failure: list[Any]
    commits_before: int
    commits_after_failure: int
    rerun: DbtStep
    after_rerun: list[dict[str, Any]]


@pytest.fixture(scope="module")
def failed_merge(
    spark: SparkSession, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FailedMerge]:
    """In-process: day 1; day 2 whose merge fails mid-way (a value only the merge reads raises
    an error: the key checks and the mass-delete guard read keys only); day 2 again, fixed."""
    project = ScratchProject(
        tmp_path_factory.mktemp("failed_merge"), "reliability_failed_merge", spark
    )
    name = "snap_failed_merge"
    project.write(
        f"snapshots/{name}.sql",
        f"""
        {{% snapshot {name} %}}
        {{{{ config({CHECK_INVALIDATE}) }}}}
        select id, name, updated_at,
            case when amount >= 0 then amount
                else raise_error('negative amount in the extract') end as amount
        from {{{{ target.schema }}}}.src
        {{% endsnapshot %}}
        """,
    )
    try:
        write_source(project, _rows(DAY1))
        run1 = project.dbt("snapshot")
        before, commits_before = all_rows(project, name), iceberg_commits(project, name)
        # Day 2 with a broken row (id 4's amount -1): the merge fails after the staging view
        # was created.
        broken = [*_rows(DAY2)[:2], (4, "d", -1, datetime(2024, 1, 2)), _rows(DAY2)[3]]
        write_source(project, broken)
        with pytest.raises(DbtStepError) as failure:
            project.dbt("snapshot")
        failed_run = get_invocation_id()
        staging_view_left = _staging_view_left(spark, name, failed_run)
        after_failure = all_rows(project, name)
        commits_after_failure = iceberg_commits(project, name)
        # The extract fixed: day 2 as it should have been.
        write_source(project, _rows(DAY2))
        rerun = project.dbt("snapshot")
        yield FailedMerge(
            run1,
            str(failure.value),
            failed_run,
            staging_view_left,
            before,
            after_failure,
            commits_before,
            commits_after_failure,
            rerun,
            history(project, name),
        )
    finally:
        # SHOW VIEWS, not spark.catalog.listTables(): the latter's result decoding fails without
        # code generation (WORKER_SPARK_CONF in tests/conftest.py).
        for view in spark.sql("show views").collect():
            if view.isTemporary and view.viewName.startswith(f"{name}__dbt_tmp"):
                spark.catalog.dropTempView(view.viewName)


def test_failed_merge_leaves_table_unchanged(failed_merge: FailedMerge) -> None:
    assert "negative amount in the extract" in failed_merge.error
    assert failed_merge.staging_view_left, "the run failed before its merge"
    # Day 1's four open versions, exactly as before the failed run; no Iceberg commit.
    assert failed_merge.after_failure == failed_merge.before
    assert [(r.id, r.amount, r.dbt_valid_to) for r in failed_merge.before] == [
        (1, 10, None),
        (2, 20, None),
        (3, 30, None),
        (4, 40, None),
    ]
    assert failed_merge.commits_after_failure == failed_merge.commits_before


def test_run_after_failed_merge_has_the_right_versions(failed_merge: FailedMerge) -> None:
    rows = failed_merge.after_rerun
    # Day 2: id 1 updated, 2 and 4 unchanged, 3 deleted, 5 new; nothing lost or duplicated.
    assert [(r["id"], r["amount"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, 10, False),
        (1, 11, True),
        (2, 20, True),
        (3, 30, False),
        (4, 40, True),
        (5, 50, True),
    ]
    assert_one_open_version_per_key(rows)


def test_run_after_failed_merge_records_its_own_process_id(failed_merge: FailedMerge) -> None:
    rows = failed_merge.after_rerun
    run1, rerun = failed_merge.run1.invocation_id, failed_merge.rerun.invocation_id
    assert failed_merge.failed_run not in process_ids(rows), "the failed run's id recorded"
    assert process_ids(rows) == {run1, rerun}
    by_key = {(r["id"], r["amount"]): r for r in rows}
    assert_closed(by_key[1, 10], run1, rerun)
    assert_open(by_key[1, 11], rerun)
    assert_closed(by_key[3, 30], run1, rerun)
    assert_open(by_key[5, 50], rerun)


KILL_ROWS = driver.KILL_ROWS
KILL_DELAY = driver.KILL_DELAY


def _driver(
    command: str, lake: Path, project: Path, schema: str, *args: str
) -> tuple[list[str], dict[str, str]]:
    argv = [sys.executable, "-m", "tests.reliability_driver", command]
    argv += ["--project", str(project), "--schema", schema, *args]
    env = {**os.environ, "LAKEHOUSE_DIR": str(lake), "DBT_SCHEMA": schema}
    return argv, env


def _wait_for(
    condition: Callable[[], bool], process: subprocess.Popen, what: str, output: Path
) -> None:
    wait_for(condition, process, what, output, SUBPROCESS_TIMEOUT)


@dataclass(frozen=True)
class KilledRun:
    before: dict[str, Any]  # day 1 done; the table's state before the killed run
    returncode: int
    output: str
    verify: dict[str, Any]  # the table after the kill, then after the next run


@pytest.fixture(scope="module")
def killed_run(tmp_path_factory: pytest.TempPathFactory) -> KilledRun:
    """Subprocesses on their own lakehouse (the test process's JVM holds another Derby
    metastore): day 1 (KILL_ROWS keys), then day 2's snapshot, SIGKILLed with its process
    group (Python and the Spark JVM) KILL_DELAY s into its `merge into`; then, in a fresh
    process, the table's state and day 2's snapshot again."""
    tmp = tmp_path_factory.mktemp("killed_run")
    lake, project, schema = tmp / "lakehouse", tmp / "project", "killed_merge"
    state_file, output = tmp / "state.json", tmp / "setup.out"
    dbt_log = project / "logs" / "dbt.log"
    argv, env = _driver(
        "setup", lake, project, schema, "--rows", str(KILL_ROWS), "--state", str(state_file)
    )
    with output.open("w") as out:
        process = subprocess.Popen(
            [*argv, "--snapshot"],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the JVM is a child
        )
    try:
        _wait_for(state_file.exists, process, "day 1 was done", output)
        before = json.loads(state_file.read_text())

        def merging() -> bool:
            return logged_since(dbt_log, before["log_offset"], "merge into")

        _wait_for(merging, process, "day 2's merge started", output)
        time.sleep(KILL_DELAY)
        if process.poll() is not None:
            pytest.fail("day 2's run ended before it could be killed: make the merge longer")
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=60)

    argv, env = _driver("verify", lake, project, schema, "--day1-run", before["day1_run"])
    verify = subprocess.run(
        argv, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT
    )
    assert verify.returncode == 0, verify.stdout[-5000:] + verify.stderr[-5000:]
    (result,) = results(verify.stdout)
    killed = KilledRun(before, process.returncode, output.read_text(), result)
    after_kill = result["table_after_kill"]
    if after_kill["iceberg_snapshots"] != before["table"]["iceberg_snapshots"]:
        pytest.fail(
            "the kill landed after the merge had committed (Iceberg snapshots "
            f"{before['table']['iceberg_snapshots']} -> {after_kill['iceberg_snapshots']}): "
            "the scenario proved nothing; make the merge longer (KILL_ROWS) or KILL_DELAY shorter"
        )
    print(
        f"killed {KILL_DELAY:.1f} s into the merge; the next run took "
        f"{result['rerun_seconds']:.0f} s"
    )
    return killed


@pytest.mark.slow
def test_killed_merge_leaves_table_unchanged(killed_run: KilledRun) -> None:
    assert killed_run.returncode == -signal.SIGKILL
    assert "day2_run" not in killed_run.output, "the killed run reported success"
    before = killed_run.before["table"]
    # Day 1: KILL_ROWS open versions, one Iceberg snapshot.
    assert before["versions"] == before["open_versions"] == before["scd_ids"] == KILL_ROWS
    # Exactly the previous state: same rows (hash over every column of every row), same
    # counts, same Iceberg snapshots (count and current snapshot id).
    assert killed_run.verify["table_after_kill"] == before


@pytest.mark.slow
def test_run_after_killed_merge_completes_the_day(killed_run: KilledRun) -> None:
    counts = killed_run.verify["counts"]
    # Every version of day 1 kept, day 2's changes each once, open versions = day 2's source.
    assert {k: counts[k] for k in driver.DATA_COUNTS} == driver.expected_counts(KILL_ROWS)
    after_kill = killed_run.verify["table_after_kill"]
    after_rerun = killed_run.verify["table_after_rerun"]
    assert after_rerun["iceberg_snapshots"] == after_kill["iceberg_snapshots"] + 1


@pytest.mark.slow
def test_run_after_killed_merge_records_its_own_process_id(killed_run: KilledRun) -> None:
    expected = driver.expected_changes(KILL_ROWS)
    counts = killed_run.verify["counts"]
    assert {k: counts[k] for k in ("closed_by_rerun", "inserted_by_rerun", "foreign_metadata")} == {
        "closed_by_rerun": expected["updated"] + expected["deleted"],
        "inserted_by_rerun": expected["updated"] + expected["inserted"],
        "foreign_metadata": 0,  # nothing attributed to the killed run
    }


# --- 4. mass-delete guard on a larger table -----------------------------------------------


GUARD_ROWS = 5_000


def test_mass_delete_guard_on_a_larger_table(dbt_project: ScratchProject) -> None:
    write_table_snapshot(dbt_project, CHECK_INVALIDATE)
    write_source_range(dbt_project, 0, GUARD_ROWS)
    run1 = dbt_project.dbt("snapshot")
    before = all_rows(dbt_project)
    # Day 1: GUARD_ROWS open versions.
    assert len(before) == GUARD_ROWS and all(r.dbt_valid_to is None for r in before)
    commits = iceberg_commits(dbt_project)

    # An empty extract, then one truncated to the first 1,500 rows: stopped before the merge.
    for kept, share in ((0, "100.0%"), (1_500, "70.0%")):
        write_source_range(dbt_project, 0, kept)
        with pytest.raises(DbtStepError) as failure:
            dbt_project.dbt("snapshot")
        message = str(failure.value)
        deleted = GUARD_ROWS - kept
        assert (
            f"would close {deleted} of {GUARD_ROWS} open versions as deleted ({share})" in message
        ), message
        assert "above the limit of 50.0%" in message
        assert "snapshot table is unchanged" in message
        assert "scd2_max_delete_share: 1" in message  # how to let an intended one through
        assert all_rows(dbt_project) == before
        assert iceberg_commits(dbt_project) == commits

    # The truncation was intended: allowed for this run, 3,500 versions closed by it.
    allowed = dbt_project.dbt("snapshot", "--vars", "{scd2_max_delete_share: 1}")
    rows = history(dbt_project, "snap")
    assert len(rows) == GUARD_ROWS  # nothing inserted
    closed = [r for r in rows if r["dbt_valid_to"] is not None]
    assert sorted(r["id"] for r in closed) == list(range(1_500, GUARD_ROWS))
    for r in closed:
        assert_closed(r, run1.invocation_id, allowed.invocation_id)
    for r in rows[:1_500]:
        assert_open(r, run1.invocation_id)
    assert_generic_tests_pass(dbt_project)


def test_empty_flag_writes_nothing_to_an_existing_snapshot(dbt_project: ScratchProject) -> None:
    """`dbt snapshot --empty` (and `dbt build --empty`, which CI runs to check SQL and schemas)
    gives the query's refs and sources no rows. On an existing table it writes nothing, even
    with the delete guard off: stock dbt closed every open version
    (dbt-labs/dbt-adapters#1329), and the guard stopped the run, blaming a truncated source.
    A first run creates the table empty, as --empty does for models; a real run then fills it."""
    dbt_project.write_seed("people", "id,name", ["1,a", "2,b", "3,c"])

    def write_snapshot(name: str, hard_deletes: str) -> None:
        dbt_project.write(
            f"snapshots/{name}.sql",
            f"""
            {{% snapshot {name} %}}
            {{{{ config(unique_key='id', strategy='check', check_cols='all',
                hard_deletes='{hard_deletes}') }}}}
            select * from {{{{ ref('people') }}}}
            {{% endsnapshot %}}
            """,
        )

    names = ("snap_invalidate", "snap_new_record")
    for name, hard_deletes in zip(names, ("invalidate", "new_record"), strict=True):
        write_snapshot(name, hard_deletes)
    dbt_project.dbt("seed")
    dbt_project.dbt("snapshot")
    before = {
        name: (all_rows(dbt_project, name), iceberg_commits(dbt_project, name)) for name in names
    }
    assert all(len(rows) == 3 for rows, _ in before.values())

    step = dbt_project.dbt("snapshot", "--empty", "--vars", "{scd2_max_delete_share: 1}")
    assert {r.node.name: r.message for r in step.result.results} == dict.fromkeys(
        names, "NOTHING WRITTEN (--empty)"
    )
    for name in names:
        assert (all_rows(dbt_project, name), iceberg_commits(dbt_project, name)) == before[name]

    write_snapshot("snap_later", "invalidate")
    dbt_project.dbt("snapshot", "--empty", "--select", "snap_later")
    assert all_rows(dbt_project, "snap_later") == []
    dbt_project.dbt("snapshot", "--select", "snap_later")
    rows = all_rows(dbt_project, "snap_later")
    assert sorted((r.id, r.name, r.dbt_valid_to) for r in rows) == [
        (1, "a", None),
        (2, "b", None),
        (3, "c", None),
    ]


def test_build_empty_runs_the_package_tests_and_analyst_models(
    dbt_project: ScratchProject,
) -> None:
    """`dbt build --empty`, the CI check of SQL and schemas: dbt renders each ref as a
    subquery with `limit 0`, which dbt-spark's `describe` of a relation cannot take, and the
    package's generic tests and analyst macros failed so when they read the snapshot's
    columns. They read its table's columns instead: every node passes, on no rows, and the
    snapshot keeps its 3 versions and its commits."""
    dbt_project.write_seed("people", "id,name", ["1,a", "2,b", "3,c"])
    dbt_project.write(
        "snapshots/people_snapshot.sql",
        f"""
        {{% snapshot people_snapshot %}}
        {{{{ config({CHECK_INVALIDATE}) }}}}
        select * from {{{{ ref('people') }}}}
        {{% endsnapshot %}}
        """,
    )
    properties = {
        "version": 2,
        "snapshots": [{"name": "people_snapshot", "data_tests": list(SCD2_TESTS)}],
    }
    dbt_project.write("snapshots/people_snapshot.yml", yaml.safe_dump(properties))
    for macro in ("scd2_current", "scd2_change_feed", "scd2_legacy"):
        dbt_project.write(
            f"models/people_{macro}.sql",
            f"{{{{ scd2_audit.{macro}(ref('people_snapshot')) }}}}",
        )
    dbt_project.dbt("build")

    def state() -> tuple:
        return all_rows(dbt_project, "people_snapshot"), iceberg_commits(
            dbt_project, "people_snapshot"
        )

    before = state()
    assert len(before[0]) == 3

    step = dbt_project.dbt("build", "--empty", "--vars", "{scd2_max_delete_share: 1}")
    statuses = {r.node.name: str(r.status).lower() for r in step.result.results}
    assert len(statuses) == 1 + 1 + len(SCD2_TESTS) + 3, statuses  # seed, snapshot, tests, views
    assert set(statuses.values()) <= {"success", "pass"}, statuses
    assert state() == before


# --- 5. null or duplicate composite keys --------------------------------------------------


def test_bad_composite_keys_fail_and_leave_table_unchanged(dbt_project: ScratchProject) -> None:
    """Single-key nulls and duplicates: tests/test_snapshot_metadata.py::
    test_bad_source_keys_fail_before_merge; composite duplicates on a first build:
    ::test_duplicate_composite_keys_on_first_build_create_nothing. Here: composite keys on an
    existing table, a null in one key part only, then a duplicate pair."""
    write_table_snapshot(
        dbt_project,
        "unique_key=['k1', 'k2'], strategy='check', check_cols='all', hard_deletes='invalidate'",
    )
    ddl = "k1 string, k2 int, amount int"
    write_source(dbt_project, [("a", 1, 10), ("a", 2, 20), ("b", 1, 30)], ddl)
    run1 = dbt_project.dbt("snapshot")
    before = all_rows(dbt_project)
    assert [(r.k1, r.k2, r.amount, r.dbt_valid_to) for r in before] == [
        ("a", 1, 10, None),
        ("a", 2, 20, None),
        ("b", 1, 30, None),
    ]
    commits = iceberg_commits(dbt_project)

    for rows, problem in (
        # (a, 1) updated, but (a, null) has a null in k2 only.
        (
            [("a", 1, 11), ("a", None, 20), ("b", 1, 30)],
            "has 1 row(s) with a null unique_key, e.g. (k1=a, k2=null)",
        ),
        # (a, 1) twice.
        (
            [("a", 1, 11), ("a", 1, 12), ("a", 2, 20), ("b", 1, 30)],
            "has duplicate unique_key values: (k1=a, k2=1) appears 2 times",
        ),
    ):
        write_source(dbt_project, rows, ddl)
        with pytest.raises(DbtStepError) as failure:
            dbt_project.dbt("snapshot")
        message = str(failure.value)
        assert "Snapshot 'snap'" in message and problem in message, message
        assert "(unique_key: k1, k2)" in message
        assert "snapshot table is unchanged" in message
        assert all_rows(dbt_project) == before
        assert iceberg_commits(dbt_project) == commits

    # The fixed extract goes through: (a, 1) updated, the rest unchanged.
    write_source(dbt_project, [("a", 1, 11), ("a", 2, 20), ("b", 1, 30)], ddl)
    run2 = dbt_project.dbt("snapshot")
    rows = history(dbt_project, "snap", order_by="k1, k2")
    assert [(r["k1"], r["k2"], r["amount"], r["dbt_valid_to"] is None) for r in rows] == [
        ("a", 1, 10, False),
        ("a", 1, 11, True),
        ("a", 2, 20, True),
        ("b", 1, 30, True),
    ]
    assert_closed(rows[0], run1.invocation_id, run2.invocation_id)
    assert_open(rows[1], run2.invocation_id)


# --- 6. two runs at once through the Thrift server ----------------------------------------


@dataclass(frozen=True)
class Server:
    lakehouse: Path
    port: int

    def query(self, sql: str, fetch: bool = True) -> list[tuple]:
        conn = hive.connect(host="127.0.0.1", port=self.port, username="pytest")
        try:
            cursor = conn.cursor()
            cursor.execute(sql)
            return [tuple(row) for row in cursor.fetchall()] if fetch else []
        finally:
            conn.close()


def _thrift_cli(*args: str, lake: Path, port: int) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "python_helpers.operations.thrift", *args, "--port", str(port)]
    return subprocess.run(
        [*command, "--lakehouse-dir", str(lake)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT + 60,
    )


@pytest.fixture(scope="module")
def thrift_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A Spark Thrift Server on its own temporary lakehouse and a free port; always stopped."""
    lake, port = tmp_path_factory.mktemp("reliability_thrift"), _free_port()
    try:
        started = _thrift_cli("start", "--timeout", str(START_TIMEOUT), lake=lake, port=port)
        assert started.returncode == 0, f"start failed:\n{started.stdout}\n{started.stderr}"
        yield Server(lake, port)
    finally:
        _thrift_cli("stop", lake=lake, port=port)


THRIFT_ROWS = 10_000
# How the losing run of two concurrent ones may fail, cleanly (nothing written by it): each
# run stages in its own view, so the runs meet only at Iceberg's optimistic commit.
CLEAN_FAILURES = {
    "Iceberg commit conflict": ("ValidationException", "CommitFailedException", "conflicting"),
}


def _thrift_source(first: int, last: int, updated: str, deleted: str) -> str:
    return f"""
        select id, concat('name-', cast(id as string)) as name,
            case when {updated} then id + 0.5 else cast(id as double) end as amount
        from range({first}, {last})
        where not ({deleted})
    """


def _dbt_cli(project: ScratchProject, name: str, logs: Path) -> list[str]:
    """`dbt snapshot --target thrift` on ``project``, with its own target and log folders."""
    argv = [str(PROJECT_ROOT / ".venv" / "bin" / "dbt"), "snapshot", "--target", "thrift"]
    argv += ["--project-dir", str(project.root), "--profiles-dir", str(project.root)]
    return [*argv, "--target-path", f"target_{name}", "--log-path", str(logs), "--write-json"]


@pytest.mark.slow
def test_two_concurrent_snapshot_runs_through_thrift(
    thrift_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    schema, server = "concurrent_runs", thrift_server
    monkeypatch.setenv("SPARK_THRIFT_HOST", "127.0.0.1")
    monkeypatch.setenv("SPARK_THRIFT_PORT", str(server.port))
    project = ScratchProject(tmp_path / "project", schema, spark=None)  # type: ignore[arg-type]
    write_table_snapshot(project, CHECK_INVALIDATE)
    table = project.table("snap")

    # Day 1: THRIFT_ROWS keys, one open version each.
    server.query(f"create schema if not exists {schema}", fetch=False)
    server.query(
        f"create or replace table {schema}.src using iceberg as "
        + _thrift_source(0, THRIFT_ROWS, "false", "false"),
        fetch=False,
    )
    day1 = project.dbt("snapshot", "--target", "thrift")
    # Day 2: every 10th id updated, every 50th (offset 1) deleted, 1,000 new ids.
    updated, deleted, inserted = THRIFT_ROWS // 10, THRIFT_ROWS // 50, 1_000
    server.query(
        f"create or replace table {schema}.src using iceberg as "
        + _thrift_source(0, THRIFT_ROWS, "id % 10 = 0", "id % 50 = 1")
        + " union all "
        + _thrift_source(THRIFT_ROWS, THRIFT_ROWS + inserted, "false", "false"),
        fetch=False,
    )
    commits = server.query(f"select count(*) from {table}.snapshots")[0][0]

    # Day 2's snapshot twice at the same moment: two dbt processes, two Thrift sessions.
    env = {**os.environ, "DBT_SCHEMA": schema, "DBT_TARGET": "thrift"}
    runs = {
        name: subprocess.Popen(
            _dbt_cli(project, name, tmp_path / f"logs_{name}"),
            cwd=project.root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for name in ("a", "b")
    }
    outputs = {name: run.communicate(timeout=SUBPROCESS_TIMEOUT)[0] for name, run in runs.items()}
    codes = {name: run.returncode for name, run in runs.items()}
    invocations = {
        name: json.loads((project.root / f"target_{name}" / "run_results.json").read_text())[
            "metadata"
        ]["invocation_id"]
        for name in runs
    }
    winners = {invocations[name] for name, code in codes.items() if code == 0}
    assert winners, "neither concurrent run succeeded:\n" + "\n".join(outputs.values())
    for name, code in codes.items():
        how = "succeeded"
        if code != 0:
            found = [
                k
                for k, needles in CLEAN_FAILURES.items()
                if any(n in outputs[name] for n in needles)
            ]
            assert found, f"run {name} failed, but not cleanly:\n{outputs[name]}"
            how = f"failed: {found[0]}"
        errors = [line for line in outputs[name].splitlines() if "Exception" in line][:3]
        print(f"run {name} ({invocations[name]}) {how}", *errors, sep="\n    ")

    # Exactly the versions of one day-2 run: none lost, none duplicated.
    (counts,) = server.query(
        f"""
        select count(*), count_if(dbt_valid_to is null), count(distinct dbt_scd_id),
            count(distinct case when dbt_valid_to is null then id end),
            count_if(dbt_valid_to is not null and id % 10 = 0),
            count_if(dbt_valid_to is not null and id % 50 = 1),
            count_if(dbt_valid_to is not null and not (id % 10 = 0 or id % 50 = 1)),
            count_if(audit_insert_process_id = '{day1.invocation_id}')
        from {table}
        """
    )
    versions, open_versions = THRIFT_ROWS + updated + inserted, THRIFT_ROWS - deleted + inserted
    assert counts == (
        versions,
        open_versions,
        versions,  # distinct dbt_scd_id: no duplicated version
        open_versions,  # distinct keys among open versions: one open version per key
        updated,  # closed by an update
        deleted,  # closed by a delete
        0,  # closed for no reason
        THRIFT_ROWS,  # day 1's versions all kept
    ), counts
    (mismatch,) = server.query(
        f"""
        select count(*) from (
            (select id, name, amount from {table} where dbt_valid_to is null
             except all select id, name, amount from {schema}.src)
            union all
            (select id, name, amount from {schema}.src
             except all select id, name, amount from {table} where dbt_valid_to is null)
        )
        """
    )
    assert mismatch == (0,), "open versions differ from day 2's source"
    # Every day-2 change comes from one staging query of one run: the run that committed.
    writers = server.query(
        f"select distinct audit_update_process_id from {table} "
        f"where audit_update_process_id is not null union "
        f"select distinct audit_insert_process_id from {table} "
        f"where audit_insert_process_id != '{day1.invocation_id}'"
    )
    assert len(writers) == 1 and writers[0][0] in invocations.values(), writers
    new_commits = server.query(f"select count(*) from {table}.snapshots")[0][0] - commits
    print(
        f"exit codes {codes}; {new_commits} Iceberg commit(s); day 2's versions carry "
        f"{'a successful' if writers[0][0] in winners else 'the FAILED'} run's process id"
    )
    assert_generic_tests_pass(project, "--target", "thrift")


# --- 7. bad arguments ---------------------------------------------------------------------


def _lakehouse_with_markers(root: Path) -> list[Path]:
    markers = [root / "warehouse" / "marker.txt", root / "metastore_db" / "marker.txt"]
    for marker in markers:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text("keep me\n")
    return markers


def _run_module(module: str, args: list[str], lake: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "LAKEHOUSE_DIR": str(lake), "DBT_SCHEMA": "bad_args"},
    )


GENERATOR_GOOD = ["100", "100", "2", "2", "0.2", "0.4", "0.4"]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["100", "100", "2", "2", "1.5", "0", "0"], "pct_del"),
        (["0", *GENERATOR_GOOD[1:]], "no_init_recs"),
        (["100", "100", "0", *GENERATOR_GOOD[3:]], "no_keys"),
        (["100", "100", "2", "2", "0.5", "0.4", "0.4"], "must sum to 1"),
        (["x", *GENERATOR_GOOD[1:]], "no_init_recs"),
        ([*GENERATOR_GOOD, "--day", "0"], "--day"),
        ([*GENERATOR_GOOD, "--format", "table", "--schema", "bad-name"], "--schema"),
        # Two options named in one rule: each as written on the command line (their fields'
        # names, pct_noop + pct_late, before).
        (
            [*GENERATOR_GOOD, "--events", "flat", "--pct-noop", "0.8", "--pct-late", "0.5"],
            "error: --pct-noop + --pct-late: ",
        ),
    ],
)
def test_generator_rejects_bad_arguments(tmp_path: Path, args: list[str], named: str) -> None:
    lake = tmp_path / "lakehouse"
    markers = _lakehouse_with_markers(lake)
    seeds = tmp_path / "seeds"
    if "--format" not in args and "--events" not in args:
        args = [*args, "--seeds-dir", str(seeds)]
    result = _run_module("python_helpers.generate", args, lake)
    assert result.returncode == 2, result.stdout + result.stderr
    assert named in result.stderr, result.stderr
    assert not seeds.exists(), "nothing written"
    assert sorted(p for p in lake.rglob("*")) == sorted([*markers, *(m.parent for m in markers)]), (
        "the lakehouse untouched"
    )
    assert all(m.read_text() == "keep me\n" for m in markers)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--pct-del", "1.5"], ("--pct-del", "pct_del")),
        (["--pct-del", "0.5", "--pct-upd", "0.4", "--pct-unchanged", "0.4"], ("sum to 1",)),
        (["--days", "0"], ("--days",)),
        (["--keys", "0"], ("--keys",)),
        (["--init-recs", "-5"], ("--init-recs",)),
        (["--format", "parquet"], ("--format",)),
    ],
)
def test_pipeline_rejects_bad_arguments(
    tmp_path: Path, args: list[str], named: tuple[str, ...]
) -> None:
    """Documented: exit status 2 on bad arguments, before anything is touched (the pipeline
    starts by wiping the warehouse and metastore unless --keep-warehouse)."""
    lake = tmp_path / "lakehouse"
    markers = _lakehouse_with_markers(lake)
    result = _run_module("python_helpers.pipeline", args, lake)
    assert result.returncode == 2, result.stdout + result.stderr
    assert any(name in result.stderr for name in named), result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    assert all(m.read_text() == "keep me\n" for m in markers), "the warehouse untouched"
    assert sorted(p.name for p in (lake / "warehouse").iterdir()) == ["marker.txt"]
