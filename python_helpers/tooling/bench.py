"""``make bench``: timings written to BENCHMARKS.md, one section per benchmark.

Each benchmark owns one section of BENCHMARKS.md, between ``<!-- bench:NAME -->`` and
``<!-- /bench:NAME -->``; rerunning a benchmark replaces its section only, so benchmarks added
later (snapshot timings...) can be run and recorded independently. Every section states the
machine it ran on, because figures from different machines, or from a machine shared with other
jobs (see the load average), are not comparable.

Runs on its own throw-away lakehouse (a temporary ``LAKEHOUSE_DIR``) unless ``--lakehouse-dir``
is given, so it never competes for the project's Derby metastore.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pyspark.sql import SparkSession

from python_helpers.runtime.lakehouse import ICEBERG_JAR_NAME, PROJECT_ROOT, physical_memory_bytes

BENCHMARKS_FILE = PROJECT_ROOT / "BENCHMARKS.md"
HEADER = """# Benchmarks

Written by `make bench` (`python -m python_helpers.tooling.bench`); each section is replaced
when its benchmark is rerun (`make bench BENCH_ARGS="--only NAME"`). Figures depend on the
machine described in each section, including how busy it was (load average).
"""


@dataclass(frozen=True)
class Benchmark:
    """One section of BENCHMARKS.md: ``run`` returns its Markdown body (after the title)."""

    name: str
    title: str
    run: Callable[[SparkSession, argparse.Namespace, Path], str]


BENCHMARKS: dict[str, Benchmark] = {}


def register(benchmark: Benchmark) -> Benchmark:
    BENCHMARKS[benchmark.name] = benchmark
    return benchmark


# --- the generator -------------------------------------------------------------------------


def generator_benchmark(spark: SparkSession, args: argparse.Namespace, scratch: Path) -> str:
    """Day 1 and day 2 of ``rows`` rows (5 keys, 10 non-keys) to CSV seed files and to Iceberg
    tables; throughput is the day's source rows over the wall time of generating and writing
    the day (source and manifest)."""
    from python_helpers.generator import GeneratorSpec, generate_day
    from python_helpers.generator.output import write_seed_files, write_tables

    spec = GeneratorSpec(args.rows, args.rows, 5, 10, 0.2, 0.4, 0.4)
    # Warm-up (JIT, class loading, metastore), not measured.
    warm = GeneratorSpec(10_000, 10_000, 5, 10, 0.2, 0.4, 0.4)
    write_seed_files(generate_day(spark, warm, 2), scratch / "warm-up")
    write_tables(generate_day(spark, warm, 2), "bench_warm_up")

    rows = []
    for output in ("csv", "table"):
        for day in (1, 2):
            data = generate_day(spark, spec, day)
            started = time.perf_counter()
            if output == "csv":
                paths = write_seed_files(data, scratch / f"seeds-day{day}")
                size = sum(p.stat().st_size for p in paths)
                where = f"CSV seed files ({size / 1e6:,.0f} MB)"
            else:
                write_tables(data, "bench_generator")
                where = "Iceberg tables"
            seconds = time.perf_counter() - started
            plan = data.plan
            manifest_rows = plan.rows + plan.deleted
            rows.append(
                f"| {where} | {day} | {plan.rows:,} | {manifest_rows:,} | {seconds:,.1f} "
                f"| {plan.rows / seconds:,.0f} |"
            )
            print(f"generator: {output} day {day}: {seconds:.1f} s", flush=True)
    return "\n".join(
        [
            f"`python -m python_helpers.generate {args.rows} {args.rows} 5 10 0.2 0.4 0.4` "
            f"(day 2: {spec.plan(2).deleted:,} deleted, {spec.plan(2).updated:,} updated, "
            f"{spec.plan(2).unchanged:,} unchanged, {spec.plan(2).inserted:,} inserted), "
            f"Spark master `{spark.sparkContext.master}`, one run each after a warm-up. "
            "Seconds: generating and writing the day's source and manifest (wall time).",
            "",
            "| output | day | source rows | manifest rows | seconds | source rows/s |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
            *rows,
        ]
    )


register(Benchmark("generator", "Change-data generator throughput", generator_benchmark))


# --- the snapshots, the seeds, the demo: in modules of their own, imported when run ---------


def _deferred(
    module: str, function: str
) -> Callable[[SparkSession, argparse.Namespace, Path], str]:
    """``module.function`` as a benchmark's ``run``, imported only when the benchmark runs."""

    def run(spark: SparkSession, args: argparse.Namespace, scratch: Path) -> str:
        return getattr(importlib.import_module(module), function)(spark, args, scratch)

    return run


for _name, _title, _module, _function in (
    (
        "snapshot",
        "Day-2 snapshot time: operational metadata vs stock dbt-spark vs CTAS",
        "python_helpers.tooling.bench_snapshot",
        "snapshot_benchmark",
    ),
    (
        "history",
        "Snapshot time as the history grows: day 2 to day 30, ours vs stock dbt-spark",
        "python_helpers.tooling.bench_snapshot",
        "history_benchmark",
    ),
    (
        "seed",
        "dbt seed of a generated day vs a plain Spark CSV read and Iceberg write",
        "python_helpers.tooling.bench_seed",
        "seed_benchmark",
    ),
    (
        "events",
        "Change events: a day of events applied vs a CTAS copy of them",
        "python_helpers.tooling.bench_events",
        "events_benchmark",
    ),
    (
        "cluster",
        "Day-2 snapshot on a 2-worker standalone cluster beside local",
        "python_helpers.tooling.bench_cluster",
        "cluster_benchmark",
    ),
    (
        "demo",
        "make demo: today against before the seed work",
        "python_helpers.tooling.bench_demo",
        "demo_benchmark",
    ),
):
    register(Benchmark(_name, _title, _deferred(_module, _function)))


# --- the document --------------------------------------------------------------------------


def machine_description(spark: SparkSession) -> str:
    """Cores, memory, CPU, versions, date and load: what makes figures comparable or not."""
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    memory = _memory_gib()
    return (
        f"Machine: {os.cpu_count()} cores, {memory} memory, CPU {_cpu_model()}; "
        f"{platform.system()} {platform.release()}; Python {platform.python_version()}, "
        f"Spark {spark.version}, Java {_java_version()}, "
        f"Iceberg {ICEBERG_JAR_NAME.rsplit('-', 1)[-1].removesuffix('.jar')}; "
        f"driver memory {spark.conf.get('spark.driver.memory', '1g')}; "
        f"load average {load} at the end; "
        f"{datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}."
    )


def replace_section(document: str, name: str, section: str) -> str:
    """``document`` with section ``name`` replaced by ``section`` (appended if absent)."""
    begin, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = f"{begin}\n{section.strip()}\n{end}"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(document):
        return pattern.sub(lambda _: block, document, count=1)
    if not document.strip():
        document = HEADER
    return document.rstrip("\n") + "\n\n" + block + "\n"


def write_section(path: Path, name: str, section: str) -> None:
    document = path.read_text() if path.exists() else ""
    updated = replace_section(document, name, section)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(updated)
    tmp.replace(path)


def _sizes(text: str) -> list[int]:
    """``10000,100000`` -> ``[10000, 100000]`` (argparse type of the ``--*-sizes`` options)."""
    try:
        sizes = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"comma-separated row counts expected, got {text!r}")
    if any(size < 1 for size in sizes):
        raise argparse.ArgumentTypeError(f"row counts must be at least 1, got {text!r}")
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m python_helpers.tooling.bench", description=__doc__
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=sorted(BENCHMARKS),
        help="run only this benchmark (repeatable; default: all)",
    )
    parser.add_argument(
        "--rows",
        type=int,
        default=1_000_000,
        help="generator: rows per day (default: %(default)s)",
    )
    parser.add_argument(
        "--snapshot-sizes",
        type=_sizes,
        default=None,
        help="snapshot: comma-separated source sizes (default: 10000,100000,1000000)",
    )
    parser.add_argument(
        "--timestamp-size",
        type=int,
        default=None,
        help="snapshot: source size of the timestamp-strategy row (default: 100000)",
    )
    parser.add_argument(
        "--history-rows",
        type=int,
        default=None,
        help="history: source rows per day (default: 100000)",
    )
    parser.add_argument(
        "--history-days",
        type=_sizes,
        default=None,
        help="history: comma-separated days to report; every day up to the last is run "
        "(default: 2,10,20,30)",
    )
    parser.add_argument(
        "--seed-sizes",
        type=_sizes,
        default=None,
        help="seed: comma-separated source sizes (default: 10000,1000000)",
    )
    parser.add_argument(
        "--event-sizes",
        type=_sizes,
        default=None,
        help="events: comma-separated key counts of the table (default: 1000000)",
    )
    parser.add_argument(
        "--cluster-rows",
        type=int,
        default=None,
        help="cluster: keys of the day-2 snapshot on local and on the cluster (default: 1000000)",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=BENCHMARKS_FILE,
        help="Markdown file to update (default: BENCHMARKS.md in the project)",
    )
    parser.add_argument(
        "--lakehouse-dir",
        type=Path,
        default=None,
        help="lakehouse to use (default: a temporary one, removed afterwards)",
    )
    parser.add_argument("--master", default="local[2]", help="Spark master (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.rows < 1:
        parser.error("--rows: must be at least 1")
    for option in ("timestamp_size", "history_rows", "cluster_rows"):
        value = getattr(args, option)
        if value is not None and value < 1:
            parser.error(f"--{option.replace('_', '-')}: must be at least 1")
    if args.history_days and min(args.history_days) < 2:
        parser.error("--history-days: days start at 2 (day 1 builds the table)")

    scratch = Path(tempfile.mkdtemp(prefix="scd2-bench-"))
    os.environ["LAKEHOUSE_DIR"] = str(args.lakehouse_dir or scratch / "lakehouse")
    from python_helpers.runtime.session import lakehouse_session

    spark = lakehouse_session("scd2-bench", args.master)
    try:
        for name in args.only or sorted(BENCHMARKS):
            benchmark = BENCHMARKS[name]
            body = benchmark.run(spark, args, scratch / name)
            section = f"## {benchmark.title}\n\n{machine_description(spark)}\n\n{body}\n"
            write_section(args.output, name, section)
            print(f"ok  {args.output}: section {name!r}")
    finally:
        spark.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib() -> str:
    memory = physical_memory_bytes()
    return "unknown" if memory is None else f"{memory / 1024**3:.1f} GiB"


def _java_version() -> str:
    java = Path(os.environ["JAVA_HOME"]) / "bin" / "java" if "JAVA_HOME" in os.environ else "java"
    try:
        done = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    match = re.search(r'version "([^"]+)"', done.stderr)
    return match.group(1) if match else "unknown"


if __name__ == "__main__":
    sys.exit(main())
