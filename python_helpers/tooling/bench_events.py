"""A day of change events applied by the events model vs a CTAS copy of the same events.

For each size N, the generator's events mode (flat shape) writes day 1 (N snapshot reads) and
day 2 (the events that turn day 1 into day 2: about 1.1 N events with the default shares) as
the ``raw_events`` Iceberg table of a scratch copy of the project. Measured in one run:

- ours: ``dbt run`` of the ``events_history`` model applying day 2 to the history day 1 built
  (the whole dbt invocation, parse and connection included);
- the reference: ``create or replace table ... using iceberg as select * from raw_events``,
  a plain copy of the same day-2 events, in the same Spark session.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path

from pyspark.sql import SparkSession

DEFAULT_SIZES = (1_000_000,)


@dataclass(frozen=True)
class EventTiming:
    keys: int
    events: int
    day1: float
    ours: float
    ctas: float


def time_size(spark: SparkSession, keys: int, scratch: Path) -> EventTiming:
    from python_helpers.generator import GeneratorSpec
    from python_helpers.generator.events import (
        EVENTS_TABLE,
        EventSpec,
        generate_events,
        write_event_day,
    )
    from python_helpers.tooling.scratch import ScratchProject

    schema = f"bench_events_{keys}"
    spark.sql(f"create schema if not exists {schema}")
    project = ScratchProject(
        scratch / f"events-{keys}", schema, spark, include=("models", "snapshots")
    )
    spec = GeneratorSpec(keys, keys, 5, 10, 0.2, 0.4, 0.4)
    events = EventSpec()
    flags = ["--quiet", "--target", "local", "--vars"]
    flags.append(json.dumps({"cdc_no_keys": 5, "demo_events": "flat"}))
    landing = scratch / "landing"
    write_event_day(generate_events(spark, spec, events, 1), schema, landing)
    day1 = project.dbt("run", "--select", "events_history", *flags).seconds
    write_event_day(generate_events(spark, spec, events, 2), schema, landing)
    count = spark.table(f"{schema}.{EVENTS_TABLE}").count()
    ours = project.dbt("run", "--select", "events_history", *flags).seconds
    started = time.perf_counter()
    spark.sql(
        f"create or replace table {schema}.events_copy using iceberg "
        f"as select * from {schema}.{EVENTS_TABLE}"
    )
    ctas = time.perf_counter() - started
    print(f"events: {keys:,} keys, {count:,} events: ours {ours:.1f} s, ctas {ctas:.1f} s")
    return EventTiming(keys, count, day1, ours, ctas)


def events_benchmark(spark: SparkSession, args: argparse.Namespace, scratch: Path) -> str:
    """BENCHMARKS.md body: times and the ratio to the CTAS per size."""
    sizes = getattr(args, "event_sizes", None) or DEFAULT_SIZES
    time_size(spark, 1_000, scratch / "warm-up")  # JIT, class loading, dbt parse: not measured
    timings = [time_size(spark, keys, scratch) for keys in sizes]
    lines = [
        "Day 2 of the generator's events mode (flat shape, default shares: key changes, "
        "re-creations, several updates per key, no-ops, duplicates, delays) on a table of N "
        "keys (`N N 5 10 0.2 0.4 0.4`), applied by `dbt run` of the `events_history` model "
        "(`scd2_events`) to the history built from day 1; reference: a CTAS copy of the same "
        "day-2 events in the same session. dbt's per-invocation overhead is in ours. Seconds, "
        "wall time.",
        "",
        "| keys | day-2 events | day 1: ours (s) | day 2: ours (s) | CTAS of the events (s) "
        "| ours / CTAS |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for t in timings:
        lines.append(
            f"| {t.keys:,} | {t.events:,} | {t.day1:.1f} | {t.ours:.1f} | {t.ctas:.1f} "
            f"| {t.ours / t.ctas:.1f} |"
        )
    return "\n".join(lines)
