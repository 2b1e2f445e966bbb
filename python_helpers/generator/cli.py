"""``python -m python_helpers.generate``: the anchor's arguments, reproducible, validated.

Every argument is checked before Spark starts and before anything is written; a bad one exits
with status 2 and a message naming it and the rule it breaks.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Collection, Sequence
from datetime import date
from pathlib import Path

from pyspark.sql import SparkSession

from python_helpers.generator.events import (
    DEBEZIUM_TABLE,
    EVENTS_TABLE,
    EXPECTED_TABLE,
    OP_COLUMN,
    SHAPES,
    EventDay,
    EventSpec,
    add_share_arguments,
    generate_events,
    landing_dir,
    spec_from_arguments,
    write_event_day,
)
from python_helpers.generator.frames import DayData, generate_day
from python_helpers.generator.output import (
    CHANGES_FILE,
    DEFAULT_SEEDS_DIR,
    SOURCE_FILE,
    check_output_dir,
    check_schema_name,
    write_day_folders,
    write_seed_files,
    write_tables,
)
from python_helpers.generator.session import DEFAULT_MASTER, generator_session, in_utc
from python_helpers.generator.spec import (
    CHANGES_TABLE,
    DEFAULT_BUSINESS_DATE,
    DEFAULT_SEED,
    MAX_DAY,
    SOURCE_TABLE,
    GeneratorError,
    GeneratorSpec,
    InvalidGeneratorArgument,
    check_day,
)
from python_helpers.runtime.lakehouse import PROJECT_ROOT, LakehouseConfigError, lakehouse_dir

PROG = "python -m python_helpers.generate"
EXIT_BAD_ARGUMENT = 2

DESCRIPTION = f"""\
Generate synthetic change data (CDC) for the SCD2 snapshots, reproducibly.

Day 1 holds no_init_recs rows. Each later day starts from the previous day's N rows:
round(pct_del*N) are deleted, round((pct_del+pct_upd)*N) - round(pct_del*N) updated (at least
one non-key value changes; rounding half up), the rest unchanged, and new keys bring the day to
no_incr_recs rows. Day d is recomputed from
day 1 forward, so any day can be generated on its own; the same seed gives byte-identical files.

Outputs (all replaced on each run):
  default          {DEFAULT_SEEDS_DIR}/{SOURCE_TABLE}.csv, {CHANGES_TABLE}.csv and cdc_seeds.yml:
                   day --day as dbt seeds
  --format table   Iceberg tables <schema>.{SOURCE_TABLE} and <schema>.{CHANGES_TABLE}: day --day,
                   skipping the CSV files and dbt seed (the largest volumes)
  initial_output incremental_output
                   the anchor's layout: days 1 and 2, each a folder with {SOURCE_TABLE}.csv
                   and {CHANGES_TABLE}.csv (its manifest)
  --events SHAPE   instead of the day's state, the change events that turn day --day - 1
                   into day --day (day 1: snapshot reads) in <schema>: flat, the Iceberg table
                   {EVENTS_TABLE}; debezium, Kafka Connect's JSON lines under the lakehouse's
                   landing/<schema>/debezium_events, read by the table {DEBEZIUM_TABLE}; with
                   the versions applying them must give in {EXPECTED_TABLE} (docs/events.md)
"""

EPILOG = """\
examples:
  day 1, then day 2 into seeds/generated:
    %(prog)s 10000 10000 5 10 0.2 0.4 0.4
    %(prog)s 10000 10000 5 10 0.2 0.4 0.4 --day 2
  the anchor's layout:
    %(prog)s 10000 10000 5 10 0.2 0.4 0.4 data/day1 data/day2
  a large day 3 as Iceberg tables:
    %(prog)s 1000000 1000000 5 10 0.1 0.6 0.3 --format table --day 3
  day 2's change events, Debezium-shaped, with a tenth of them delivered twice:
    %(prog)s 10000 10000 5 10 0.2 0.4 0.4 --day 2 --events debezium --pct-duplicate 0.1
  under spark-submit (any master), with the venv active (its spark-submit finds Spark
  and Python through PATH):
    source .venv/bin/activate
    spark-submit --master local[2] python_helpers/generate.py 1000 1000 5 10 0.2 0.4 0.4

exit status: 0 on success, 2 on a bad argument (nothing is written).
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("no_init_recs", type=int, help="rows of day 1 (at least 1)")
    parser.add_argument(
        "no_incr_recs",
        type=int,
        help="rows of every later day: the previous day's survivors (updated + unchanged) "
        "plus new keys; at least the number of survivors",
    )
    parser.add_argument(
        "no_keys", type=int, help="key columns key_1..key_K (UUID strings, at least 1)"
    )
    parser.add_argument(
        "no_nonkeys", type=int, help="non-key columns col_1..col_M (doubles, at least 1)"
    )
    parser.add_argument(
        "pct_del", type=float, help="share in [0, 1] of the previous day's rows deleted"
    )
    parser.add_argument(
        "pct_upd", type=float, help="share in [0, 1] of the previous day's rows updated"
    )
    parser.add_argument(
        "pct_unchanged",
        type=float,
        help="share in [0, 1] of the previous day's rows left unchanged; the three shares must "
        "sum to 1",
    )
    parser.add_argument(
        "initial_output",
        nargs="?",
        type=Path,
        help="optional (with incremental_output): folder for day 1's CSV files, the anchor's "
        "layout; replaces the seeds-dir/table output",
    )
    parser.add_argument(
        "incremental_output",
        nargs="?",
        type=Path,
        help="optional (with initial_output): folder for day 2's CSV files",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help="seed of every key and value: the same seed gives the same data (default: "
        "%(default)s)",
    )
    parser.add_argument(
        "--format",
        choices=("csv", "table"),
        default="csv",
        help="csv: dbt seed files in --seeds-dir; table: Iceberg tables in --schema "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--day",
        type=int,
        default=None,
        metavar="N",
        help=f"day to generate, 1 = initial load (default: 1; at most {MAX_DAY}, since day N "
        "is recomputed from day 1); not with the output folders, which always hold days 1 "
        "and 2",
    )
    parser.add_argument(
        "--business-date",
        type=_iso_date,
        default=DEFAULT_BUSINESS_DATE,
        metavar="YYYY-MM-DD",
        help="business date of day 1; day d is this date + d-1 days (default: %(default)s)",
    )
    parser.add_argument(
        "--seeds-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help=f"folder of the CSV seeds and their properties file (default: {DEFAULT_SEEDS_DIR} "
        "in the project)",
    )
    parser.add_argument(
        "--schema",
        default=None,
        help="schema of the tables written with --format table or --events (default: "
        "$DBT_SCHEMA, else scd2)",
    )
    parser.add_argument(
        "--master",
        default=None,
        metavar="URL",
        help=f"Spark master when the generator starts Spark (default: {DEFAULT_MASTER}, or the "
        "master given to spark-submit); ignored when a session already runs in the process",
    )
    events = parser.add_argument_group(
        "change events (docs/events.md)",
        "With --events: the day's change events and the versions they must give, into "
        "--schema, instead of the day's rows. Late events start on day 3; events delayed "
        "from day d arrive with day d + 1.",
    )
    events.add_argument(
        "--events",
        choices=SHAPES,
        default=None,
        metavar="SHAPE",
        help="the events' shape: flat (an Iceberg table of events) or debezium (Kafka "
        "Connect's JSON lines); default: no events, the day's rows",
    )
    add_share_arguments(events)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse, validate everything, then generate and write; returns the exit status."""
    parser = build_parser()
    args = parser.parse_intermixed_args(argv)
    try:
        spec = GeneratorSpec(
            no_init_recs=args.no_init_recs,
            no_incr_recs=args.no_incr_recs,
            no_keys=args.no_keys,
            no_nonkeys=args.no_nonkeys,
            pct_del=args.pct_del,
            pct_upd=args.pct_upd,
            pct_unchanged=args.pct_unchanged,
            seed=args.seed,
            business_date=args.business_date,
        )
        _check_outputs(args)
        # The last day written: a business date past 9999-12-31 fails here, not in Spark.
        spec.date_of(2 if args.initial_output is not None else args.day or 1)
        event_spec = spec_from_arguments(args, args.events)
    except InvalidGeneratorArgument as exc:
        positionals = [action.dest for action in parser._actions if not action.option_strings]
        print(
            f"{PROG}: error: {option_name(exc.argument, positionals)}: {exc.rule}", file=sys.stderr
        )
        return EXIT_BAD_ARGUMENT
    except GeneratorError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_ARGUMENT

    try:
        spark, started_here = generator_session(args.master)
    except LakehouseConfigError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_ARGUMENT
    try:
        with in_utc(spark):
            _generate(spark, args, spec, event_spec)
    finally:
        if started_here:
            spark.stop()
    return 0


def _generate(
    spark: SparkSession,
    args: argparse.Namespace,
    spec: GeneratorSpec,
    event_spec: EventSpec | None,
) -> None:
    started = time.perf_counter()
    if event_spec is not None:
        data = generate_events(spark, spec, event_spec, args.day or 1)
        schema = _schema(args)
        landing = landing_dir(lakehouse_dir(), schema)
        written = [write_event_day(data, schema, landing), f"{schema}.{EXPECTED_TABLE}"]
        days = []
        print(_event_summary(data))
    elif args.initial_output is not None:
        days = [generate_day(spark, spec, 1), generate_day(spark, spec, 2)]
        written = [
            str(p) for p in write_day_folders(*days, args.initial_output, args.incremental_output)
        ]
    else:
        days = [generate_day(spark, spec, args.day or 1)]
        if args.format == "table":
            written = write_tables(days[0], _schema(args))
        else:
            written = [str(p) for p in write_seed_files(days[0], _seeds_dir(args))]
    for data in days:
        print(_summary(data))
    print(f"wrote {', '.join(written)} in {time.perf_counter() - started:.1f} s")


def option_name(argument: str, positionals: Collection[str] = ()) -> str:
    """The command-line spelling of a spec field an error names: ``positionals`` (and text
    that is no field) as they are, every other field as its option (``business_date`` ->
    ``--business-date``); in text naming several (``pct_noop + pct_late``), each of them."""
    if " " in argument:
        return re.sub(r"\b[a-z]+(?:_[a-z]+)+\b", lambda m: option_name(m[0], positionals), argument)
    if argument in positionals or argument.startswith("-"):
        return argument
    return "--" + argument.replace("_", "-")


# Spark's master URLs (SparkContext's own forms): local, local[N], local[*], local[N,F],
# local[*,F], local-cluster[N,C,M], spark://host:port[,host:port...], yarn, k8s://..., mesos://...
_MASTER = re.compile(
    r"local(\[\s*(\d+|\*)\s*(,\s*\d+\s*)?\])?|local-cluster\[\s*\d+\s*(,\s*\d+\s*){2}\]|yarn"
    r"|spark://[^/\s]+|k8s://\S+|mesos://\S+"
)


def check_master(master: str) -> None:
    """Raise :class:`InvalidGeneratorArgument` unless ``master`` has a Spark master URL's form
    (Spark's own error comes only once its JVM has started, as a Java trace)."""
    if not _MASTER.fullmatch(master):
        raise InvalidGeneratorArgument(
            "--master",
            f"{master!r} is not a Spark master URL: local, local[N], local[*], "
            "spark://host:port, yarn or k8s://...",
        )


def _check_outputs(args: argparse.Namespace) -> None:
    """Output rules, checked before generating: mode combinations, paths, schema name, and the
    Spark master's form (Spark starts only after every check)."""
    if args.master is not None:
        check_master(args.master)
    if args.day is not None:
        try:
            check_day(args.day)
        except InvalidGeneratorArgument as exc:
            raise InvalidGeneratorArgument("--day", exc.rule) from None
    if args.events is not None:
        for option, given in (
            ("initial_output", args.initial_output is not None),
            ("--format table", args.format == "table"),
            ("--seeds-dir", args.seeds_dir is not None),
        ):
            if given:
                raise InvalidGeneratorArgument(
                    option, "not with --events (the events go to tables in --schema)"
                )
        check_schema_name(_schema(args))
    elif args.initial_output is not None:
        if args.incremental_output is None:
            raise InvalidGeneratorArgument(
                "incremental_output", "required when initial_output is given"
            )
        if args.initial_output.resolve() == args.incremental_output.resolve():
            raise InvalidGeneratorArgument(
                "incremental_output", "must differ from initial_output (day 2 would replace day 1)"
            )
        for option, given in (
            ("--day", args.day is not None),
            ("--format table", args.format == "table"),
            ("--seeds-dir", args.seeds_dir is not None),
            ("--schema", args.schema is not None),
        ):
            if given:
                raise InvalidGeneratorArgument(
                    option,
                    "not allowed with initial_output/incremental_output (always days 1 "
                    "and 2 as CSV folders)",
                )
        for folder, argument in (
            (args.initial_output, "initial_output"),
            (args.incremental_output, "incremental_output"),
        ):
            check_output_dir(folder, argument, (SOURCE_FILE, CHANGES_FILE))
    elif args.format == "table":
        if args.seeds_dir is not None:
            raise InvalidGeneratorArgument("--seeds-dir", "only with --format csv")
        check_schema_name(_schema(args))
    else:
        if args.schema is not None:
            raise InvalidGeneratorArgument("--schema", "only with --format table or --events")
        check_output_dir(_seeds_dir(args), "--seeds-dir")


def _seeds_dir(args: argparse.Namespace) -> Path:
    return args.seeds_dir if args.seeds_dir is not None else PROJECT_ROOT / DEFAULT_SEEDS_DIR


def _schema(args: argparse.Namespace) -> str:
    return args.schema if args.schema is not None else os.environ.get("DBT_SCHEMA") or "scd2"


def _iso_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date YYYY-MM-DD: {text!r}") from None


def _event_summary(data: EventDay) -> str:
    ops = data.batch.groupBy(OP_COLUMN).count().collect()
    counts = ", ".join(f"{row['count']:,} {row[OP_COLUMN]!r}" for row in sorted(ops))
    total = sum(row["count"] for row in ops)
    return f"day {data.day} ({data.events.shape}): {total:,} events: {counts}"


def _summary(data: DayData) -> str:
    plan = data.plan
    rows = "1 row" if plan.rows == 1 else f"{plan.rows:,} rows"
    head = f"day {plan.day} ({plan.business_date.isoformat()}): {rows}"
    if plan.day == 1:
        return f"{head}, all inserted"
    counts = ", ".join(f"{n:,} {change}" for change, n in plan.counts().items())
    return f"{head}; against day {plan.day - 1}: {counts}"
