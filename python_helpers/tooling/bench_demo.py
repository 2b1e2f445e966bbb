"""The ``demo`` benchmark: ``make demo`` with its defaults, today against the project as it was
before the seed work (issue 9), on the same machine in the same run.

The baseline is a clone of this repository at :data:`BASELINE_COMMIT`, set up with its own
``make setup`` (its own venv and Spark configuration, untimed). Both demos run as
``make demo`` subprocesses on throw-away lakehouses, alternately, and the faster run of each is
reported: wall time of the whole command, setup check included.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from pathlib import Path

from pyspark.sql import SparkSession

from python_helpers.runtime.lakehouse import PROJECT_ROOT

# The last commit before `dbt seed` loaded through Spark's CSV reader (issue 9).
BASELINE_COMMIT = "43b39fecfa43fd929d1b0fa17f0009d64e7eb949"
RUNS = 2


class DemoRunError(RuntimeError):
    """A ``make demo`` run failed: the message names the project and the log's tail."""


def _make(target: str, project: Path, lakehouse: Path | None) -> float:
    env = {**os.environ}
    env.pop("VIRTUAL_ENV", None)
    env.pop("LAKEHOUSE_DIR", None)
    if lakehouse is not None:
        env["LAKEHOUSE_DIR"] = str(lakehouse)
    started = time.perf_counter()
    done = subprocess.run(
        ["make", "-C", str(project), target], env=env, capture_output=True, text=True
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-15:])
        raise DemoRunError(f"make {target} in {project} failed ({done.returncode}):\n{tail}")
    return seconds


def _baseline(scratch: Path) -> Path | None:
    """A set-up clone at the baseline commit, or None when the history does not hold it."""
    clone = scratch / "baseline"
    subprocess.run(["git", "clone", "-q", str(PROJECT_ROOT), str(clone)], check=True)
    checkout = subprocess.run(
        ["git", "-C", str(clone), "checkout", "-q", BASELINE_COMMIT], capture_output=True
    )
    if checkout.returncode != 0:
        return None
    _make("setup", clone, scratch / "baseline-lakehouse")
    return clone


def demo_benchmark(spark: SparkSession, args: argparse.Namespace, scratch: Path) -> str:
    del spark, args  # the demos run in their own processes
    scratch.mkdir(parents=True, exist_ok=True)
    baseline = _baseline(scratch)
    ours: list[float] = []
    before: list[float] = []
    try:
        for run in range(RUNS):
            if baseline is not None:
                before.append(_make("demo", baseline, scratch / f"baseline-lakehouse-{run}"))
            ours.append(_make("demo", PROJECT_ROOT, scratch / f"lakehouse-{run}"))
    finally:
        # make demo's setup wrote the throw-away lakehouse into pyspark's spark-defaults.conf:
        # point it back at the project's default lakehouse.
        _make("setup", PROJECT_ROOT, None)
    method = (
        f"`make demo` with its defaults (10,000 rows, 2 days, both snapshots, every test and "
        f"the reconciliation), run {RUNS} times each, alternately, on throw-away lakehouses; "
        f"the faster run of each is shown. Before: a clone of this repository at "
        f"`{BASELINE_COMMIT[:7]}`, the last commit before `dbt seed` loaded through Spark's "
        f"CSV reader (issue 9), with its own `make setup`. Seconds, wall time of the whole "
        f"`make demo`, its setup check included."
    )
    table = [
        "| demo | seconds | of before |",
        "| --- | ---: | ---: |",
    ]
    if before:
        table.append(f"| before (`{BASELINE_COMMIT[:7]}`) | {min(before):.1f} | 1.00 |")
        table.append(f"| today | {min(ours):.1f} | {min(ours) / min(before):.2f} |")
    else:
        table.append(f"| today | {min(ours):.1f} | baseline commit not in this clone's history |")
    return method + "\n\n" + "\n".join(table)
