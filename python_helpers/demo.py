"""Smoke demo of the lakehouse: seed, snapshot, change the seed, snapshot, print the history.

Interim main job until the day-by-day pipeline lands; runs in a scratch copy of the project
on schema ``demo_smoke`` of the lakehouse (``$LAKEHOUSE_DIR``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from python_helpers.dbt_invoke import DbtStepError
from python_helpers.scratch import ScratchProject, lakehouse_session

SNAPSHOT = """
    {% snapshot smoke_snapshot %}
    {{ config(unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate') }}
    select * from {{ ref('smoke_source') }}
    {% endsnapshot %}
"""
DAYS = (
    ["1,a,10", "2,b,20", "3,c,30"],
    ["1,a,11", "2,b,20", "4,d,40"],  # 1 updated, 2 unchanged, 3 deleted, 4 new
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m python_helpers.demo", description=__doc__)
    parser.add_argument(
        "--schema",
        default="demo_smoke",
        help="schema to (re)create for the demo (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    spark = lakehouse_session("scd2-lakehouse-demo")
    spark.sql(f"drop schema if exists {args.schema} cascade")
    with tempfile.TemporaryDirectory() as tmp:
        project = ScratchProject(Path(tmp) / "project", args.schema, spark)
        project.write("snapshots/smoke.sql", SNAPSHOT)
        try:
            for day, rows in enumerate(DAYS, start=1):
                project.write_seed("smoke_source", "id,name,amount", rows)
                for command in ("seed", "snapshot"):
                    step = project.dbt(command)
                    print(f"day {day}: dbt {command:<8} {step.seconds:6.1f} s")
        except DbtStepError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    spark.sql(f"select * from {args.schema}.smoke_snapshot order by id, dbt_valid_from").show(
        truncate=False
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
