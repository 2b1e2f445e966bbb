"""Subprocess driver for the kill-during-merge test of tests/test_reliability.py, and for the
fault tests of tests/test_cluster.py (``--target cluster``).

Runs in its own Python process (and so its own JVM and Derby metastore, or, with ``--target
cluster``, a driver on the running cluster of ``LAKEHOUSE_DIR`` and its shared metastore) on
the lakehouse named by ``LAKEHOUSE_DIR``, with dbt in-process
(``python_helpers.runtime.dbt_invoke.run_dbt``) on a scratch project whose snapshot selects
from a source table that Spark writes directly (too large for a seed). Three commands, each
printing JSON lines (prefixed ``RESULT``) for the test to read:

``setup``
    Day 1: ``rows`` source rows and a first ``dbt snapshot``. Then day 2's source (every 10th
    id updated, every 50th deleted, ``rows / 20`` new ids), the table's state (row hash,
    counts, Iceberg snapshots) and the size of ``logs/dbt.log``, written to ``--state``; then,
    with ``--snapshot``, day 2's ``dbt snapshot``: the run the test kills (or whose worker it
    kills) during its merge.
``snapshot``
    Day 2's ``dbt snapshot`` once, after ``WAITING`` and a line on stdin (the test starts two
    at once), whatever its outcome: ``{"run", "ok", "error"}``.
``verify``
    The table's state as the killed run left it, then day 2's ``dbt snapshot`` again and the
    resulting counts of versions.

``python -m tests.reliability_driver setup|snapshot|verify --project DIR --schema S [...]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from python_helpers.runtime.dbt_invoke import failures
from python_helpers.runtime.session import lakehouse_session
from python_helpers.tooling.scratch import ScratchProject

SNAPSHOT = "big_snap"
SOURCE = "big_src"
SNAPSHOT_SQL = f"""
    {{% snapshot {SNAPSHOT} %}}
    {{{{ config(unique_key='id', strategy='check', check_cols='all',
                hard_deletes='invalidate') }}}}
    select * from {{{{ target.schema }}}}.{SOURCE}
    {{% endsnapshot %}}
"""
# Day 2 relative to day 1 (ids 0..rows-1): every 10th id updated, every 50th (offset 1)
# deleted, rows/20 new ids. The two sets do not overlap (id % 10 == 0 vs id % 50 == 1).
UPDATED = "id % 10 = 0"
DELETED = "id % 50 = 1"


# The fault scenarios (a run or a worker killed during the merge): day 2's merge of this many
# keys runs for 10 s or more, and the kill comes this many seconds after it is logged.
KILL_ROWS = 20_000
KILL_DELAY = 2.0


def expected_changes(rows: int) -> dict[str, int]:
    updated = len(range(0, rows, 10))
    deleted = len(range(1, rows, 50))
    inserted = rows // 20
    return {"updated": updated, "deleted": deleted, "inserted": inserted}


def _source_sql(first_id: int, last_id: int, amount: str) -> str:
    padding = ", ".join(f"sha2(cast(id * {i} as string), 256) as pad_{i}" for i in range(1, 4))
    return f"""
        select id, concat('name-', cast(id as string)) as name, {amount} as amount,
            cast(id % 97 as int) as region, {padding}
        from range({first_id}, {last_id})
    """


def write_day1(spark: SparkSession, schema: str, rows: int) -> None:
    spark.sql(f"create schema if not exists {schema}")
    spark.sql(
        f"create or replace table {schema}.{SOURCE} using iceberg as "
        + _source_sql(0, rows, "cast(id as double)")
    )


def write_day2(spark: SparkSession, schema: str, rows: int) -> None:
    day2 = f"""
        select * from ({_source_sql(0, rows, f"case when {UPDATED} then id + 0.5 else id end")})
        where not ({DELETED})
        union all
        {_source_sql(rows, rows + rows // 20, "cast(id as double)")}
    """
    spark.sql(f"create or replace table {schema}.{SOURCE} using iceberg as {day2}")


def expected_counts(rows: int) -> dict[str, int]:
    """version_counts()'s DATA_COUNTS once day 2 is done, after day 1 of ``rows`` keys."""
    expected = expected_changes(rows)
    versions = rows + expected["updated"] + expected["inserted"]
    open_versions = rows - expected["deleted"] + expected["inserted"]
    return {
        "versions": versions,
        "open_versions": open_versions,
        "keys": rows + expected["inserted"],
        "open_keys": open_versions,  # one open version per key
        "scd_ids": versions,  # no duplicated version
        "inserted_by_day1": rows,  # day 1's versions all kept
        "closed_deleted": expected["deleted"],
        "closed_updated": expected["updated"],
        "open_vs_source_mismatch": 0,  # open versions = day 2's source, row for row
    }


def run_counts(spark: SparkSession, table: str, runs: list[str]) -> dict[str, dict[str, int]]:
    """Per run (invocation id): the versions it inserted and those it closed."""
    counts = {}
    for run in runs:
        row = spark.sql(
            f"""
            select count_if(audit_insert_process_id = '{run}') as inserted,
                count_if(audit_update_process_id = '{run}') as closed
            from {table}
            """
        ).first()
        counts[run] = row.asDict()
    return counts


def table_state(spark: SparkSession, table: str) -> dict[str, Any]:
    """Everything that must not move when a run fails: a hash over every column of every row,
    the counts, and the table's Iceberg snapshots (count and current id)."""
    cols = ", ".join(spark.table(table).columns)
    row = spark.sql(
        f"""
        select count(*) as versions,
            count_if(dbt_valid_to is null) as open_versions,
            cast(sum(cast(xxhash64({cols}) as decimal(38, 0))) as string) as row_hash,
            count(distinct dbt_scd_id) as scd_ids
        from {table}
        """
    ).first()
    snaps = spark.sql(
        f"select count(*) as n, max_by(snapshot_id, committed_at) as current from {table}.snapshots"
    ).first()
    return {**row.asDict(), "iceberg_snapshots": snaps.n, "current_snapshot_id": snaps.current}


# version_counts() keys about the versions themselves (the rest are about process ids).
DATA_COUNTS = (
    "versions",
    "open_versions",
    "keys",
    "open_keys",
    "scd_ids",
    "inserted_by_day1",
    "closed_deleted",
    "closed_updated",
    "open_vs_source_mismatch",
)


def version_counts(spark: SparkSession, schema: str, day1_run: str, rerun: str) -> dict:
    table = f"{schema}.{SNAPSHOT}"
    row = spark.sql(
        f"""
        select
            count(*) as versions,
            count_if(dbt_valid_to is null) as open_versions,
            count(distinct id) as keys,
            count(distinct case when dbt_valid_to is null then id end) as open_keys,
            count(distinct dbt_scd_id) as scd_ids,
            count_if(audit_update_process_id = '{rerun}') as closed_by_rerun,
            count_if(audit_insert_process_id = '{rerun}') as inserted_by_rerun,
            count_if(audit_insert_process_id = '{day1_run}') as inserted_by_day1,
            count_if(audit_insert_process_id not in ('{day1_run}', '{rerun}')
                or audit_update_process_id != '{rerun}') as foreign_metadata,
            count_if(dbt_valid_to is not null and {DELETED}) as closed_deleted,
            count_if(dbt_valid_to is not null and {UPDATED}) as closed_updated
        from {table}
        """
    ).first()
    # Open versions must be exactly day 2's source rows (no lost, no duplicated change).
    src_cols = ", ".join(spark.table(f"{schema}.{SOURCE}").columns)
    mismatch = spark.sql(
        f"""
        select count(*) from (
            (select {src_cols} from {table} where dbt_valid_to is null
             except all select {src_cols} from {schema}.{SOURCE})
            union all
            (select {src_cols} from {schema}.{SOURCE}
             except all select {src_cols} from {table} where dbt_valid_to is null)
        )
        """
    ).first()[0]
    return {**row.asDict(), "open_vs_source_mismatch": mismatch}


def _emit(payload: dict[str, Any]) -> None:
    print("RESULT " + json.dumps(payload), flush=True)


def _wait_for_go() -> None:
    print("WAITING", flush=True)
    sys.stdin.readline()


def _session(command: str, target: str) -> SparkSession:
    if target == "local":
        return lakehouse_session(f"scd2-reliability-{command}")
    from python_helpers.operations.cluster import client_conf, running_state, target_env

    state = running_state()
    # dbt's cluster target (profiles.yml) reuses this session and reads where the cluster is.
    os.environ.update(DBT_TARGET="cluster", **target_env(state))
    return lakehouse_session(f"scd2-reliability-{command}", state.master_url, client_conf(state))


def _snapshot(project: ScratchProject) -> dict[str, Any]:
    """One ``dbt snapshot``, whatever its outcome."""
    try:
        step = project.dbt("snapshot", check=False)
    except Exception as exc:  # dbt failed outside its nodes: report it, as a node failure
        return {"run": None, "ok": False, "error": repr(exc)}
    failed = failures(step.result)
    ok = bool(getattr(step.result, "results", None)) and not failed
    error = "\n".join(failed) or ("" if ok else f"dbt reported no node results: {step.result!r}")
    return {"run": step.invocation_id, "ok": ok, "error": error}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.reliability_driver")
    parser.add_argument("command", choices=("setup", "snapshot", "verify"))
    parser.add_argument("--project", type=Path, required=True, help="scratch project folder")
    parser.add_argument("--schema", required=True, help="schema of the source and snapshot")
    parser.add_argument("--rows", type=int, default=40_000, help="setup: day 1's keys")
    parser.add_argument("--state", type=Path, help="setup: where to write the state JSON")
    parser.add_argument("--snapshot", action="store_true", help="setup: then run day 2")
    parser.add_argument(
        "--snapshot-on-go",
        action="store_true",
        help="setup: then print WAITING, wait for a line on stdin and run day 2, reporting it "
        "as the snapshot command does",
    )
    parser.add_argument(
        "--target",
        choices=("local", "cluster"),
        default="local",
        help="local: a local[2] session on LAKEHOUSE_DIR's Derby; cluster: a driver on the "
        "running cluster of LAKEHOUSE_DIR (make cluster-start) and its shared metastore",
    )
    parser.add_argument("--day1-run", default="", help="verify: invocation id of day 1's run")
    parser.add_argument(
        "--run",
        action="append",
        default=[],
        help="verify: also count the versions this run (invocation id) inserted and closed",
    )
    args = parser.parse_args(argv)

    spark = _session(args.command, args.target)
    if args.command == "setup":
        project = ScratchProject(args.project, args.schema, spark)
        project.write(f"snapshots/{SNAPSHOT}.sql", SNAPSHOT_SQL)
        write_day1(spark, args.schema, args.rows)
        day1 = project.dbt("snapshot")
        write_day2(spark, args.schema, args.rows)
        log = args.project / "logs" / "dbt.log"
        state = {
            "day1_run": day1.invocation_id,
            "day1_seconds": day1.seconds,
            "table": table_state(spark, f"{args.schema}.{SNAPSHOT}"),
            "log_offset": log.stat().st_size if log.exists() else 0,
        }
        partial = args.state.with_suffix(".partial")
        partial.write_text(json.dumps(state))
        partial.replace(args.state)  # the test polls for the file: never show it half-written
        _emit(state)
        if args.snapshot:
            day2 = project.dbt("snapshot")
            _emit({"day2_run": day2.invocation_id, "day2_seconds": day2.seconds})
        elif args.snapshot_on_go:
            _wait_for_go()
            _emit(_snapshot(project))
        return 0

    if args.command == "snapshot":
        project = ScratchProject(args.project, args.schema, spark)
        _wait_for_go()
        _emit(_snapshot(project))
        return 0

    project = ScratchProject(args.project, args.schema, spark)  # re-copies config and macros
    before_rerun = table_state(spark, f"{args.schema}.{SNAPSHOT}")
    rerun = project.dbt("snapshot")
    _emit(
        {
            "table_after_kill": before_rerun,
            "rerun": rerun.invocation_id,
            "rerun_seconds": rerun.seconds,
            "table_after_rerun": table_state(spark, f"{args.schema}.{SNAPSHOT}"),
            "counts": version_counts(spark, args.schema, args.day1_run, rerun.invocation_id),
            "runs": run_counts(spark, f"{args.schema}.{SNAPSHOT}", args.run),
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
