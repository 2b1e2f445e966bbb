"""Subprocess driver for the kill-during-seed test of tests/test_seed_load.py.

Runs in its own Python process (its own JVM and Derby metastore, on ``LAKEHOUSE_DIR``), with
dbt in-process on a scratch project whose seed ``big`` has a pinned schema.

``setup``   day 1: 1,000 rows, ``dbt seed``; then day 2's file, 300,000 rows; then prints
            ``RESULT {"log_offset": N}`` (the size of dbt.log then) and runs day 2's
            ``dbt seed``: the run the test kills while it writes the table.
``verify``  prints ``RESULT after_kill rows=N snapshots=M`` for the table as the killed run
            left it, then seeds again and prints the same line as ``after_rerun``.

``python -m tests.seed_driver setup|verify --project DIR``
"""

from __future__ import annotations

import argparse
from pathlib import Path

from python_helpers.runtime.session import lakehouse_session
from python_helpers.tooling.scratch import ScratchProject
from tests.seed_cases import seed_properties

SCHEMA = "killed_seed"
COLUMN_TYPES = {"id": "bigint", "name": "string", "amount": "double", "seen_at": "timestamp"}


def _write_day(project: ScratchProject, rows: int) -> None:
    lines = ["id,name,amount,seen_at"]
    lines += [f"{i},name {i},{i * 1.5:.6f},2024-01-01 00:00:00" for i in range(rows)]
    project.write("seeds/big.csv", "\n".join(lines) + "\n")
    project.write("seeds/big.yml", seed_properties("big", COLUMN_TYPES))


def _state(project: ScratchProject, label: str) -> None:
    spark = project.spark
    table = project.table("big")
    rows = spark.sql(f"select count(*) from {table}").collect()[0][0]
    snapshots = spark.sql(f"select count(*) from {table}.snapshots").collect()[0][0]
    print(f"RESULT {label} rows={rows} snapshots={snapshots}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("setup", "verify"), help="step to run")
    parser.add_argument("--project", type=Path, required=True, help="scratch project folder")
    args = parser.parse_args()
    spark = lakehouse_session("seed-driver", master="local[2]")
    project = ScratchProject(args.project, SCHEMA, spark)
    if args.command == "setup":
        _write_day(project, 1000)
        project.dbt("seed")
        _write_day(project, 300_000)
        log_offset = (args.project / "logs" / "dbt.log").stat().st_size
        print(f'RESULT {{"log_offset": {log_offset}}}', flush=True)
        project.dbt("seed")
    else:
        _state(project, "after_kill")
        project.dbt("seed")
        _state(project, "after_rerun")


if __name__ == "__main__":
    main()
