"""Day-2 snapshot on the standalone cluster beside the same on ``local``, in one bench run.

The bench process's own session (``local[2]``: one JVM, driver and executor in one) times day
2 of this project's snapshot, and a CTAS copy of the same source, on the generator's data. Then
the benchmark starts a cluster of two one-core workers in the bench's lakehouse (PostgreSQL,
the metastore service, a master; operations/cluster.py) and runs the same steps in a second
process, a driver on that cluster (``python -m python_helpers.tooling.bench_cluster``), which
prints its figures as one JSON line; then it stops the cluster.

Both sides get the machine's cores: ``local[2]``, and two executors of one core each.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

DEFAULT_ROWS = 1_000_000
WORKERS = 2
RESULT = "RESULT "


class ClusterBenchError(RuntimeError):
    """The cluster side of the benchmark could not run."""


def measure_day2(spark: SparkSession, rows: int, scratch: Path, schema: str) -> dict[str, Any]:
    """Day 1 and day 2 of ``rows`` keys (the snapshot benchmark's data and snapshot): seconds
    of each day's ``dbt snapshot`` and of a CTAS copy of day 2's source."""
    from python_helpers.generator import GeneratorSpec, generate_day
    from python_helpers.generator.output import write_tables
    from python_helpers.tooling.bench_snapshot import CHECK, snapshot_project, time_ctas

    spark.sql(f"create schema if not exists {schema}")
    project = snapshot_project(scratch / schema, schema, spark, "snap_ours", False, CHECK)
    spec = GeneratorSpec(rows, rows, 5, 10, 0.2, 0.4, 0.4)
    write_tables(generate_day(spark, spec, 1), schema)
    day1 = project.dbt("snapshot", "--quiet").seconds
    write_tables(generate_day(spark, spec, 2), schema)
    day2 = project.dbt("snapshot", "--quiet").seconds
    ctas = time_ctas(spark, schema)
    versions = spark.sql(f"select count(*) from {schema}.snap_ours").first()[0]
    return {"rows": rows, "day1": day1, "day2": day2, "ctas": ctas, "versions": versions}


def cluster_benchmark(spark: SparkSession, args: argparse.Namespace, scratch: Path) -> str:
    """BENCHMARKS.md body: the day-2 snapshot on ``local[2]`` and on a 2-worker cluster."""
    from python_helpers.operations.cluster import free_port_offset, running_parts, start, stop
    from python_helpers.runtime.lakehouse import PROJECT_ROOT, lakehouse_dir

    rows = getattr(args, "cluster_rows", None) or DEFAULT_ROWS
    # Before the long local measurement: can a cluster start in this lakehouse, and where?
    if running_parts():
        raise ClusterBenchError(
            f"a cluster already runs for {lakehouse_dir()}: the benchmark starts its own; stop "
            "it (make cluster-stop) or bench on another --lakehouse-dir"
        )
    offset = free_port_offset(WORKERS, first=300)
    if offset is None:
        raise ClusterBenchError("no free block of ports for a cluster on 127.0.0.1")
    # Warm-up (JIT, class loading, dbt parse caches), not measured.
    measure_day2(spark, 1_000, scratch, "bench_cluster_warm_up")
    local = measure_day2(spark, rows, scratch, "bench_cluster_local")
    print(f"cluster bench: local[2] {local}", flush=True)

    # PostgreSQL runs as its own user when the bench runs as root: it must reach the lakehouse
    # (mkdtemp makes the bench's folder private).
    scratch.parent.chmod(0o755)
    if scratch.parent in lakehouse_dir().parents:
        lakehouse_dir().chmod(0o755)
    # One slot per worker: the cluster gets the machine's two cores, as local[2] does.
    start(workers=WORKERS, port_offset=offset, worker_memory="3g", worker_cores=1, say=False)
    try:
        driver = subprocess.run(
            [
                sys.executable,
                "-m",
                "python_helpers.tooling.bench_cluster",
                "--rows",
                str(rows),
                "--scratch",
                str(scratch / "cluster"),
            ],
            env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=3600,
        )
    finally:
        stop(say=False)
    lines = [line for line in driver.stdout.splitlines() if line.startswith(RESULT)]
    if driver.returncode != 0 or not lines:
        raise ClusterBenchError(
            f"the cluster side failed ({driver.returncode}):\n{driver.stdout[-3000:]}"
            f"{driver.stderr[-3000:]}"
        )
    cluster = json.loads(lines[-1][len(RESULT) :])
    print(f"cluster bench: cluster {cluster}", flush=True)
    return _body(local, cluster)


def _body(local: dict[str, Any], cluster: dict[str, Any]) -> str:
    rows = local["rows"]
    lines = [
        f"Day-2 `dbt snapshot` of {rows:,} keys (the generator's `N N 5 10 0.2 0.4 0.4` data, "
        "check strategy over all columns, hard deletes invalidated: the snapshot benchmark's "
        "setup) with this project's macros, on the `local` target and on the `cluster` "
        f"target, one after the other in one run; then a CTAS copy of day 2's source on each. "
        f"The cluster: {WORKERS} workers of one task slot each, so one executor (2 GiB) each, "
        "a standalone master, the Hive metastore service over PostgreSQL, all on this machine "
        '(`make cluster-start CLUSTER_ARGS="--worker-cores 1"`); the driver is a process of '
        "its own. Seconds, wall time.",
        "",
        "| target | Spark | day 2 snapshot (s) | CTAS copy (s) | snapshot / CTAS "
        "| day 1 snapshot (s) | versions after day 2 |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, spark_text, t in (
        ("`local`", "`local[2]`, one JVM", local),
        ("`cluster`", f"{WORKERS} executors x 1 core, driver apart", cluster),
    ):
        lines.append(
            f"| {name} | {spark_text} | {t['day2']:.1f} | {t['ctas']:.1f} | "
            f"{t['day2'] / t['ctas']:.1f} | {t['day1']:.1f} | {t['versions']:,} |"
        )
    lines += [
        "",
        f"Cluster / local: day-2 snapshot {cluster['day2'] / local['day2']:.2f}x, CTAS "
        f"{cluster['ctas'] / local['ctas']:.2f}x, with this machine's two cores on both sides. "
        "The CTAS is a scan and a write without a shuffle: each task reads and writes files of "
        "its own, the same work on one JVM or on two executors. The snapshot's full outer "
        "join and its MERGE shuffle the source and the open versions by key: on the cluster "
        "every shuffle block is serialised and fetched from the other executor's block manager "
        "over loopback TCP instead of read within one JVM, and the driver, a process of its "
        "own, plans, commits to Iceberg and calls the metastore service over Thrift on the "
        "same two cores. That is the difference. On a real cluster the executors have "
        "machines of their own and their number grows with the data; the ratio to the CTAS "
        "on the same target is what carries over.",
    ]
    if local["versions"] != cluster["versions"]:
        lines.append(
            f"\n**The two targets disagree on the versions after day 2: {local['versions']:,} "
            f"local, {cluster['versions']:,} cluster.**"
        )
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m python_helpers.tooling.bench_cluster",
        description="The cluster side of `make bench BENCH_ARGS='--only cluster'`: on the "
        "running cluster of $LAKEHOUSE_DIR (make cluster-start), day 1 and day 2 of the "
        "snapshot benchmark's data and a CTAS copy; prints one line RESULT {json}.",
    )
    parser.add_argument(
        "--rows", type=int, default=DEFAULT_ROWS, help="keys of day 1 (default %(default)s)"
    )
    parser.add_argument(
        "--scratch", type=Path, required=True, help="folder for the scratch dbt project"
    )
    parser.add_argument(
        "--schema", default="bench_cluster", help="schema of the tables (default %(default)s)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    from python_helpers.operations.cluster import (
        ClusterError,
        client_conf,
        running_state,
        target_env,
    )
    from python_helpers.runtime.session import lakehouse_session

    args = build_parser().parse_args(argv)
    if args.rows < 1:
        print("error: --rows must be at least 1", file=sys.stderr)
        return 2
    try:
        state = running_state()
    except ClusterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    spark = lakehouse_session(
        "scd2-bench-cluster", state.master_url, client_conf(state, cores=WORKERS)
    )
    os.environ.update(DBT_TARGET="cluster", **target_env(state))
    measure_day2(spark, 1_000, args.scratch, f"{args.schema}_warm_up")
    result = measure_day2(spark, args.rows, args.scratch, args.schema)
    print(RESULT + json.dumps(result), flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
