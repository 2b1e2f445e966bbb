"""Subprocess driver for tests/test_cluster.py: one JVM on the running cluster per process.

``pipeline``  the day-by-day pipeline (2 days of 300 keys) on ``--target cluster``, on a scratch
              copy of the project; prints the pipeline's report (exit 1 on a mismatch).
``client``    a second application on the cluster while the first runs: an Iceberg table in
              its own schema, five commits, each through the shared metastore's lock; prints
              ``RESULT client rows=N snapshots=M master=URL``.

``python -m tests.cluster_driver pipeline|client --project DIR --schema NAME``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from python_helpers.operations.cluster import client_conf, running_state
from python_helpers.runtime.session import lakehouse_session


def _pipeline(project_dir: Path, schema: str) -> int:
    from python_helpers.pipeline.run import PipelineOptions, StepTimer, report, run_days
    from python_helpers.tooling.scratch import ScratchProject

    ScratchProject(project_dir, schema, None, include=("models", "snapshots"))  # type: ignore[arg-type]
    options = PipelineOptions(
        no_init_recs=300,
        no_incr_recs=300,
        no_keys=2,
        no_nonkeys=3,
        days=2,
        schema=schema,
        target="cluster",
        project_dir=project_dir,
    )
    return 0 if report(run_days(options, StepTimer()), StepTimer()) else 1


def _client(schema: str) -> int:
    state = running_state()
    spark = lakehouse_session("scd2-cluster-client", state.master_url, client_conf(state))
    table = f"{schema}.client_rows"
    spark.sql(f"create schema if not exists {schema}")
    spark.sql(f"create or replace table {table} (id bigint) using iceberg")
    for batch in range(5):
        spark.sql(f"insert into {table} select id from range({batch * 100}, {batch * 100 + 100})")
    rows = spark.sql(f"select count(*) from {table}").first()[0]
    snapshots = spark.sql(f"select count(*) from {table}.snapshots").first()[0]
    print(f"RESULT client rows={rows} snapshots={snapshots} master={spark.sparkContext.master}")
    spark.stop()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.cluster_driver")
    parser.add_argument("command", choices=("pipeline", "client"))
    parser.add_argument("--project", type=Path, required=True, help="scratch project folder")
    parser.add_argument("--schema", required=True, help="schema of this process's tables")
    args = parser.parse_args()
    if args.command == "pipeline":
        return _pipeline(args.project, args.schema)
    return _client(args.schema)


if __name__ == "__main__":
    sys.exit(main())
