"""The day-by-day pipeline: each day, generate the day, then ``dbt build`` (seeds, snapshots,
the analyst views and every test, in dependency order).

All dbt steps run in this process through dbt's programmatic runner, on the one Spark JVM
this process starts. After the last day it prints, per snapshot and per run (process id), the
versions inserted, updated, deleted and unchanged, and reconciles each against the
generator's manifest, key by key. Exit status: 0 when every step passed and every
reconciliation is OK, 1 on a failed dbt step or a MISMATCH, 2 on bad arguments (among them
--events or --format table with --target thrift) or a setup it cannot run on (no Thrift
server answering the thrift target, no cluster running, or a part of it down, for the cluster
target, a Thrift server holding the local target's metastore, a lakehouse folder it cannot
create, a --keep-warehouse schema that holds tables), 130 when interrupted (Ctrl-C).

The lakehouse (warehouse, metastore) is the folder LAKEHOUSE_DIR names (default: .lakehouse
in the project); the generated seeds go to the project's seeds/generated.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from python_helpers.generator.events import (
    SHAPES,
    EventSpec,
    add_share_arguments,
    spec_from_arguments,
)
from python_helpers.generator.spec import MAX_DAY, SOURCE_TABLE, InvalidGeneratorArgument
from python_helpers.runtime.dbt_invoke import DbtStep, DbtStepError, run_dbt
from python_helpers.runtime.lakehouse import (
    PROJECT_ROOT,
    SHORT_RUN_MAX_ROWS,
    LakehouseConfigError,
    environment_variable,
    lakehouse_dir,
    metastore_dir,
    short_run_conf,
    warehouse_dir,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from python_helpers.generator import GeneratorSpec
    from python_helpers.pipeline.reconcile import Executor, Reconciliation
    from python_helpers.pipeline.reconcile_events import EventReconciliation


QUERY_VERBS = {"select", "with", "show", "describe", "desc"}
# dbt's targets in profiles.yml that the pipeline runs on.
TARGETS = ("local", "thrift", "cluster")
# The events reconciliation's temporary views of the session: the day's true rows, the keys
# whose events come with the next day's batch.
TRUE_ROWS_VIEW, HELD_KEYS_VIEW = "scd2_events_true_rows", "scd2_events_held_keys"


class PipelineError(RuntimeError):
    """The pipeline cannot start (bad arguments, a server holding the metastore...)."""


@dataclass(frozen=True)
class PipelineOptions:
    no_init_recs: int = 10000
    no_incr_recs: int = 10000
    no_keys: int = 5
    no_nonkeys: int = 10
    pct_del: float = 0.2
    pct_upd: float = 0.4
    pct_unchanged: float = 0.4
    days: int = 2
    seed: int = 42
    output_format: str = "csv"
    schema: str = "scd2"
    target: str = "local"
    fresh: bool = True
    project_dir: Path = PROJECT_ROOT
    verbose: bool = False
    # Change events instead of daily seeds (docs/events.md): the events' shape and shares.
    events: EventSpec | None = None


@dataclass
class StepTimer:
    """Prints each step as it starts and its duration when it ends."""

    verbose: bool = False
    total: float = 0.0

    @contextmanager
    def step(self, day: int, name: str) -> Iterator[None]:
        label = f"  day {day}  {name:<16}"
        if self.verbose:
            print(f"{label} ...", flush=True)
        else:
            print(label, end="", flush=True)
        started = time.perf_counter()
        try:
            yield
        except BaseException:
            print("  FAILED" if not self.verbose else f"{label} FAILED", flush=True)
            raise
        seconds = time.perf_counter() - started
        self.total += seconds
        print(f"{seconds:7.1f} s" if not self.verbose else f"{label} {seconds:7.1f} s", flush=True)


def check_no_server_on_lakehouse() -> None:
    """The embedded Derby metastore admits one JVM: refuse while a Thrift server holds it (a
    server on the cluster's shared metastore does not)."""
    from python_helpers.operations.thrift import derby_holder

    holder = derby_holder()
    if holder is not None:
        files, pid = holder
        raise PipelineError(
            f"a Spark Thrift Server (pid {pid}, port {files.port}) holds this lakehouse's "
            f"metastore ({lakehouse_dir()}). Stop it first (make thrift-stop "
            f"SPARK_THRIFT_PORT={files.port}), use it (--target thrift), or set LAKEHOUSE_DIR "
            "to another folder."
        )


def fresh_lakehouse() -> None:
    """Remove the warehouse and the metastore (not the jars): a fresh start for the demo."""
    for folder in (warehouse_dir(), metastore_dir()):
        shutil.rmtree(folder, ignore_errors=True)


def schema_tables(execute: Executor, schema: str) -> list[str]:
    """The tables and views of ``schema`` (not the session's temporary views)."""
    # show tables: (namespace, tableName, isTemporary); temporary views belong to no schema.
    return [row[1] for row in execute(f"show tables in {schema}") if not (len(row) > 2 and row[2])]


def assert_schema_unused(execute: Executor, schema: str) -> None:
    """--keep-warehouse: the run's schema must hold nothing yet. The pipeline starts every
    history at day 1, and its reconciliation expects exactly the days it ran."""
    tables = schema_tables(execute, schema)
    if tables:
        raise PipelineError(
            f"--keep-warehouse: schema {schema} already holds {', '.join(sorted(tables))}. "
            "The pipeline starts its history at day 1 and reconciles against exactly the days "
            "it runs: give a new --schema to keep the warehouse's other schemas, or leave out "
            f"--keep-warehouse to start {schema} afresh. Nothing was written."
        )


def drop_schema_tables(execute: Executor, schema: str) -> None:
    """Empty ``schema`` where the metastore is in use (a live session, a Thrift server, the
    cluster's metastore): its views (a previous run's analyst views) and its tables."""
    execute(f"create schema if not exists {schema}")
    # show views: (namespace, viewName, isTemporary, ...); Spark refuses `drop table` on a view.
    views = {row[1] for row in execute(f"show views in {schema}") if not row[2]}
    for table in schema_tables(execute, schema):
        if table in views:
            execute(f"drop view if exists {schema}.{table}")
        else:
            # purge: Iceberg through the session catalog leaves the files behind otherwise
            execute(f"drop table if exists {schema}.{table} purge")


# The generator's spec fields that this command names otherwise than the generator's rule
# (option_name: field -> --field), for its error messages.
_RENAMED_OPTIONS = {
    "no_init_recs": "--init-recs",
    "no_incr_recs": "--incr-recs",
    "no_keys": "--keys",
    "no_nonkeys": "--nonkeys",
    "day": "--days",
    "business_date": "--days",
    "seeds_dir": "the project's folder of generated seeds",
}


def _argument_error(exc: InvalidGeneratorArgument) -> str:
    """A generator error, naming this command's options, also where its text names the
    generator's fields (``pct_del + pct_upd + pct_unchanged``, ``no_incr_recs``)."""
    from python_helpers.generator.cli import option_name

    def spell(match: re.Match[str]) -> str:
        return _RENAMED_OPTIONS.get(match[0]) or option_name(match[0])

    fields = r"\b(?:no_(?:init|incr)_recs|no_(?:non)?keys|pct_[a-z_]+)\b"
    argument = _RENAMED_OPTIONS.get(exc.argument) or re.sub(
        fields, spell, exc.argument if " " in exc.argument else option_name(exc.argument)
    )
    return f"{argument}: {re.sub(fields, spell, exc.rule)}"


def build_spec(options: PipelineOptions) -> GeneratorSpec:
    """The generator spec for the options; bad values raise PipelineError (exit 2)."""
    from python_helpers.generator import GeneratorSpec, InvalidGeneratorArgument

    try:
        spec = GeneratorSpec(
            no_init_recs=options.no_init_recs,
            no_incr_recs=options.no_incr_recs,
            no_keys=options.no_keys,
            no_nonkeys=options.no_nonkeys,
            pct_del=options.pct_del,
            pct_upd=options.pct_upd,
            pct_unchanged=options.pct_unchanged,
            seed=options.seed,
        )
        spec.date_of(options.days)  # the last day exists (at most MAX_DAY, a real date)
        return spec
    except InvalidGeneratorArgument as exc:
        raise PipelineError(_argument_error(exc)) from exc


def _check_options(options: PipelineOptions) -> None:
    if options.days < 1:
        raise PipelineError(f"--days must be a whole number >= 1, got {options.days}")
    if options.target not in ("local", "thrift", "cluster"):
        raise PipelineError(f"--target must be local, thrift or cluster, got {options.target!r}")
    if options.target == "thrift" and options.output_format != "csv":
        raise PipelineError(
            "--format table needs the lakehouse's metastore in this process, which the Thrift "
            "server holds: use --format csv with --target thrift (seeds load through the server)"
        )
    if options.events is not None and options.output_format != "csv":
        raise PipelineError(
            "--format is the seed pipeline's: with --events the generator delivers each day's "
            "events into tables of its own; leave out --format"
        )
    if options.events is not None and options.target == "thrift":
        raise PipelineError(
            "--events needs --target local or cluster: the generator delivers the events into "
            "the lakehouse's tables and landing folder from this process, whose metastore the "
            "Thrift server holds"
        )
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", options.schema):
        raise PipelineError(f"--schema must be a plain identifier, got {options.schema!r}")


def _local_engine(options: PipelineOptions) -> tuple[SparkSession, Executor]:
    """The in-process lakehouse session; dbt's session target reuses it."""
    from pyspark import SparkContext

    from python_helpers.operations.cluster import has_metastore
    from python_helpers.runtime.session import lakehouse_session

    check_no_server_on_lakehouse()
    # Never delete a metastore in use (a running session: tests, notebooks), nor the warehouse
    # of a lakehouse with a cluster metastore, running or stopped (its tables live there too):
    # drop the schema's tables instead.
    wipe = options.fresh and SparkContext._active_spark_context is None and not has_metastore()
    if wipe:
        fresh_lakehouse()
    spark = lakehouse_session("scd2-lakehouse-pipeline", extra_conf=local_engine_conf(options))
    return spark, _session_executor(spark, options, drop_tables=options.fresh and not wipe)


def local_engine_conf(options: PipelineOptions) -> dict[str, str]:
    """Settings of the local engine's session beyond the lakehouse's: on days of at most
    ``SHORT_RUN_MAX_ROWS`` rows (the demo's defaults), the driver JVM compiles with C1 alone
    (:data:`python_helpers.runtime.lakehouse.SHORT_RUN_JIT_OPTIONS`, which says why)."""
    if max(options.no_init_recs, options.no_incr_recs) <= SHORT_RUN_MAX_ROWS:
        return short_run_conf()
    return {}


def _session_executor(spark: SparkSession, options: PipelineOptions, drop_tables: bool) -> Executor:
    """SQL through the in-process ``spark``, on the run's schema (its tables dropped first when
    ``drop_tables``)."""

    def execute(sql: str) -> list[tuple]:
        return [tuple(row) for row in spark.sql(sql).collect()]

    if drop_tables:
        drop_schema_tables(execute, options.schema)
    execute(f"create schema if not exists {options.schema}")
    return execute


def _cluster_engine(options: PipelineOptions) -> tuple[SparkSession, Executor]:
    """A session on the running standalone cluster and its shared metastore (make
    cluster-start); dbt's cluster target reuses it. Tables of the schema are dropped, never
    the warehouse: other sessions share it."""
    from python_helpers.operations.cluster import (
        ClusterError,
        client_conf,
        running_state,
        target_env,
    )
    from python_helpers.runtime.session import lakehouse_session

    try:
        state = running_state()
        conf = client_conf(state)
    except ClusterError as exc:
        raise PipelineError(f"--target cluster: {exc}") from None
    spark = lakehouse_session("scd2-lakehouse-pipeline", state.master_url, conf)
    os.environ.update(target_env(state))  # where dbt's cluster target finds the cluster
    return spark, _session_executor(spark, options, drop_tables=options.fresh)


def _thrift_engine(options: PipelineOptions) -> tuple[SparkSession, Executor]:
    """dbt and the reconciliation go through the Thrift server; Spark here only generates.

    The generator's session must not touch the metastore the server holds, so it starts
    without this venv's spark-defaults.conf (no Hive catalog, no Iceberg): it writes CSVs only.
    """
    from pyhive import hive

    from python_helpers.operations.thrift import DEFAULT_HOST, ThriftUsageError, env_port

    host = os.environ.get("SPARK_THRIFT_HOST") or DEFAULT_HOST
    try:
        port = env_port()
    except ThriftUsageError as exc:
        raise PipelineError(f"{exc} (the Thrift server's port, for --target thrift)") from None
    try:
        connection = hive.connect(
            host=host, port=port, username=os.environ.get("SPARK_THRIFT_USER", "dbt")
        )
    except Exception as exc:
        raise PipelineError(
            f"no Spark Thrift Server answers at {host}:{port} ({exc.__class__.__name__}). "
            "Start one with `make thrift-start`, or set SPARK_THRIFT_HOST/SPARK_THRIFT_PORT."
        ) from exc

    def execute(sql: str) -> list[tuple]:
        cursor = connection.cursor()
        try:
            cursor.execute(sql)
            # DDL has no result set, and PyHive's fetchall fails on it rather than return [].
            returns_rows = sql.lstrip().split(None, 1)[0].lower() in QUERY_VERBS
            return [tuple(row) for row in cursor.fetchall()] if returns_rows else []
        finally:
            cursor.close()

    if options.fresh:
        drop_schema_tables(execute, options.schema)
    execute(f"create schema if not exists {options.schema}")
    spark = _generator_only_session()
    spark.sparkContext.setLogLevel("ERROR")
    return spark, execute


# The Spark session and SQL executor of each dbt target.
_ENGINES = {"local": _local_engine, "thrift": _thrift_engine, "cluster": _cluster_engine}


def _where(options: PipelineOptions) -> str:
    """Where the run's tables live, for its first line."""
    if options.target == "thrift":
        from python_helpers.operations.thrift import DEFAULT_HOST, DEFAULT_PORT

        return (
            f"Thrift server {os.environ.get('SPARK_THRIFT_HOST') or DEFAULT_HOST}:"
            f"{os.environ.get('SPARK_THRIFT_PORT') or DEFAULT_PORT}"
        )
    if options.target == "cluster":
        return f"{lakehouse_dir()} on its standalone cluster"
    return str(lakehouse_dir())


def _start_engine(options: PipelineOptions, timer: StepTimer) -> tuple[SparkSession, Executor]:
    """The target's Spark session and SQL executor, its schema emptied (a fresh start) or,
    with --keep-warehouse, checked to hold nothing yet."""
    with timer.step(0, "start spark"):
        spark, execute = _ENGINES[options.target](options)
    if not options.fresh:
        assert_schema_unused(execute, options.schema)
    return spark, execute


def _generator_only_session() -> SparkSession:
    """A Spark session for generating CSVs only: no Hive metastore, no Iceberg catalog.

    Reuses the process's session when there is one (tests). Otherwise this venv's
    spark-defaults.conf (which points at the lakehouse metastore) is hidden from the new JVM.
    """
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    if SparkContext._active_spark_context is not None:
        return SparkSession.builder.getOrCreate()
    with environment_variable("SPARK_CONF_DIR", tempfile.mkdtemp(prefix="generator-conf-")):
        return (
            SparkSession.builder.appName("scd2-lakehouse-generator")
            .master("local[2]")
            .config("spark.sql.catalogImplementation", "in-memory")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.session.timeZone", "UTC")
            .getOrCreate()
        )


def run(options: PipelineOptions) -> int:
    """Run the pipeline, print its report; the process exit status."""
    timer = StepTimer(verbose=options.verbose)
    if options.events is not None:
        return 0 if report_events(run_event_days(options, timer), timer) else 1
    return 0 if report(run_days(options, timer), timer) else 1


def run_days(options: PipelineOptions, timer: StepTimer) -> list[Reconciliation]:
    """Every day's steps; one reconciliation per snapshot and day. Raises on a failed step."""
    from python_helpers.generator import generate_day
    from python_helpers.generator.output import (
        DEFAULT_SEEDS_DIR,
        write_seed_files,
        write_seed_placeholders,
        write_tables,
    )
    from python_helpers.pipeline.reconcile import (
        Fingerprint,
        History,
        reconcile,
        snapshot_settings,
    )

    _check_options(options)
    spec = build_spec(options)  # validates before anything is touched
    os.environ["DBT_SCHEMA"] = options.schema
    dbt_vars: dict[str, object] = {"cdc_no_keys": options.no_keys}
    quiet = [] if options.verbose else ["--quiet"]
    keys = spec.key_columns
    seeds_dir = options.project_dir / DEFAULT_SEEDS_DIR
    # The snapshots ref() the seed cdc_source: with --format table the seed files are never
    # loaded (the day's tables take their place) but must exist for the project to parse.
    write_seed_placeholders(seeds_dir, spec)

    print(
        f"Lakehouse: {_where(options)}  schema: {options.schema}  "
        f"format: {options.output_format}  "
        f"days: {options.days}  rows: {spec.no_init_recs}/{spec.no_incr_recs}  "
        f"shares del/upd/unchanged: {spec.pct_del}/{spec.pct_upd}/{spec.pct_unchanged}"
    )
    spark, execute = _start_engine(options, timer)
    settings = snapshot_settings(
        options.project_dir, ["--target", options.target, "--vars", json.dumps(dbt_vars)]
    )
    audit = settings.audit
    if options.pct_del >= settings.max_delete_share:
        # The generator's deletes are the day's truth, not a truncated extract, and a share
        # of them from the guard's up can close more than it, after rounding: the snapshots'
        # mass-delete guard would stop them.
        dbt_vars["scd2_max_delete_share"] = 1
    dbt_flags = ["--target", options.target, "--vars", json.dumps(dbt_vars)]

    def dbt(day: int, *args: str) -> DbtStep:
        with timer.step(day, "dbt " + args[0]):
            return run_dbt([*quiet, *args, *dbt_flags], project_dir=options.project_dir)

    results: list[Reconciliation] = []
    histories: dict[str, History] = {}  # per snapshot, as the manifests so far imply it
    fingerprints: dict[str, Fingerprint] = {}  # per snapshot, as the last run left it
    for day in range(1, options.days + 1):
        with timer.step(day, "generate"):
            data = generate_day(spark, spec, day)
            if options.output_format == "csv":
                write_seed_files(data, seeds_dir)
            else:
                write_tables(data, options.schema)
        # Seeds, snapshots, views and tests in dependency order, each node's tests right after
        # it (a failing test skips what depends on it); with --format table the day is already
        # in the seed tables' place.
        build = dbt(
            day,
            "build",
            *([] if options.output_format == "csv" else ["--exclude-resource-type", "seed"]),
        )
        with timer.step(day, "reconcile"):
            for node in build.result.results:
                # The demo's snapshots, those of its source: the manifest says nothing of
                # another snapshot the project holds (its keys are not the demo's).
                if node.node.resource_type != "snapshot" or not any(
                    dep.startswith("seed.") and dep.endswith(f".{SOURCE_TABLE}")
                    for dep in node.node.depends_on.nodes
                ):
                    continue
                result = reconcile(
                    execute,
                    options.schema,
                    node.node.name,
                    day,
                    build.invocation_id,
                    keys,
                    audit,
                    columns=spec.source_columns,
                    history_before=histories.get(node.node.name, History()),
                    fingerprint_before=fingerprints.get(node.node.name),
                    # Validity follows updated_at wherever it is set (the timestamp
                    # strategy, or check with updated_at: _scd2_business_time).
                    updated_at=node.node.config.get("updated_at"),
                    deletion_records=node.node.config.get("hard_deletes") == "new_record",
                    # A project may rename them (snapshot_meta_column_names).
                    dbt_names=node.node.config.snapshot_table_column_names,
                )
                histories[node.node.name] = result.expected_history
                fingerprints[node.node.name] = result.after
                results.append(result)
        if not any(r.day == day for r in results):
            # A build that ran no snapshot of the source (dbt's DBT_RESOURCE_TYPES or
            # DBT_EXCLUDE_RESOURCE_TYPES in the environment, which dbt reads) reconciled
            # nothing, and a report over no rows said every reconciliation was OK.
            raise PipelineError(
                f"day {day}: dbt build ran no snapshot of {SOURCE_TABLE}, so nothing was "
                "reconciled. Unset DBT_RESOURCE_TYPES / DBT_EXCLUDE_RESOURCE_TYPES (dbt reads "
                "them from the environment), and keep the project's snapshots of the source."
            )

    return results


def run_event_days(options: PipelineOptions, timer: StepTimer) -> list[EventReconciliation]:
    """The events mode: each day, the generator delivers the day's batch of change events
    (and the versions it must produce), then ``dbt build`` of the events models (the
    scd2_events history, its views and their tests), then the run is reconciled version by
    version. Raises on a failed step."""
    from python_helpers.generator import generate_day
    from python_helpers.generator.events import (
        EXPECTED_TABLE,
        delayed_keys,
        generate_events,
        landing_dir,
        write_event_day,
    )
    from python_helpers.generator.output import DEFAULT_SEEDS_DIR, write_seed_placeholders
    from python_helpers.pipeline.reconcile_events import (
        HISTORY_MODEL,
        history_column_names,
        reconcile_events,
    )

    _check_options(options)
    spec = build_spec(options)
    events = options.events
    assert events is not None
    # The project's snapshots ref() the seed cdc_source: it does not parse without its file.
    write_seed_placeholders(options.project_dir / DEFAULT_SEEDS_DIR, spec)
    os.environ["DBT_SCHEMA"] = options.schema
    dbt_vars = {"cdc_no_keys": options.no_keys, "demo_events": events.shape}
    dbt_flags = ["--target", options.target, "--vars", json.dumps(dbt_vars)]
    quiet = [] if options.verbose else ["--quiet"]
    landing = landing_dir(lakehouse_dir(), options.schema)
    print(
        f"Lakehouse: {_where(options)}  schema: {options.schema}  events: {events.shape}  "
        f"days: {options.days}  rows: {spec.no_init_recs}/{spec.no_incr_recs}  "
        f"shares del/upd/unchanged: {spec.pct_del}/{spec.pct_upd}/{spec.pct_unchanged}"
    )
    spark, execute = _start_engine(options, timer)
    names = history_column_names(options.project_dir, dbt_flags)
    results: list[EventReconciliation] = []
    for day in range(1, options.days + 1):
        with timer.step(day, "generate events"):
            write_event_day(generate_events(spark, spec, events, day), options.schema, landing)
        with timer.step(day, "dbt build"):
            build = run_dbt(
                [*quiet, "build", "--select", "tag:events", *dbt_flags],
                project_dir=options.project_dir,
            )
        if not any(node.node.name == HISTORY_MODEL for node in build.result.results):
            # As for the snapshots: a build that ran no model (DBT_RESOURCE_TYPES=seed in the
            # environment) failed on the missing table, or read yesterday's.
            raise PipelineError(
                f"day {day}: dbt build ran no {HISTORY_MODEL} model, so nothing was "
                "reconciled. Unset DBT_RESOURCE_TYPES / DBT_EXCLUDE_RESOURCE_TYPES (dbt reads "
                "them from the environment), and keep the project's tag:events models."
            )
        with timer.step(day, "reconcile"):
            generate_day(spark, spec, day).source.createOrReplaceTempView(TRUE_ROWS_VIEW)
            delayed_keys(spark, spec, events, day).createOrReplaceTempView(HELD_KEYS_VIEW)
            results.append(
                reconcile_events(
                    execute,
                    options.schema,
                    f"{options.schema}.{EXPECTED_TABLE}",
                    spec.key_columns,
                    spec.value_columns,
                    day,
                    build.invocation_id,
                    names,
                    fingerprint_before=results[-1].after if results else None,
                    truth=(TRUE_ROWS_VIEW, HELD_KEYS_VIEW),
                )
            )
    return results


def report_events(results: list[EventReconciliation], timer: StepTimer) -> bool:
    """Print the version-by-version reconciliation of each run; True when nothing differs."""
    from python_helpers.pipeline.reconcile_events import KINDS

    print(f"\nAll steps passed in {timer.total:.1f} s.\n")
    print("Reconciliation of events_history against the generator's expected versions")
    print(
        f"  {'day':>3}  {'run (process id)':<36}  {'what':<10} {'table':>8} {'expected':>8} "
        f"{'differ':>7}  status"
    )
    ok = True
    for r in results:
        for kind in KINDS:
            good = r.differing(kind) == 0
            ok &= good
            what = {"open": "opened", "close": "closed", "quarantine": "set aside"}[kind]
            print(
                f"  {r.day:>3}  {r.run_id:<36}  {what:<10} {r.observed(kind):>8} "
                f"{r.expected(kind):>8} {r.differing(kind):>7}  {'OK' if good else 'MISMATCH'}"
            )
        if r.kept_before is not None:
            ok &= r.kept_ok
            print(
                f"  {r.day:>3}  {r.run_id:<36}  {'kept':<10} {r.kept.versions:>8} "
                f"{r.kept_before.versions:>8} {'':>7}  {'OK' if r.kept_ok else 'MISMATCH'}"
            )
        if r.state is not None:
            ok &= r.state_ok
            print(
                f"  {r.day:>3}  {r.run_id:<36}  {'state':<10} {'':>8} {r.state[0]:>8} "
                f"{r.state[1]:>7}  {'OK' if r.state_ok else 'MISMATCH'}"
            )
    print("\n(differ: versions missing, unexpected, or with other values, origin or closing;")
    print(" kept: versions from earlier runs, every column as the previous run left them;")
    print(" state: open versions against the day's rows, keys whose events come next day aside)")
    print("Result:", "every reconciliation OK" if ok else "MISMATCH found")
    return ok


def report(results: list[Reconciliation], timer: StepTimer) -> bool:
    """Print the per-run summary and the reconciliation; True when every row is OK."""
    from python_helpers.pipeline.reconcile import cdc_line

    print(f"\nAll steps passed in {timer.total:.1f} s.\n")
    print("Changes per snapshot and run (process id = the run's dbt invocation_id)")
    for r in results:
        print(f"  {r.snapshot:<24} day {r.day}  {r.run_id}  {cdc_line(r.observed)}")
    print("\nReconciliation against the generator's manifest")
    print(f"  {'snapshot':<24} {'day':>3}  {'change':<8} {'snapshot':>9} {'manifest':>9}  status")
    for r in results:
        for code in ("U", "N", "I", "D"):
            print(
                f"  {r.snapshot:<24} {r.day:>3}  {code:<8} {r.observed.get(code, 0):>9} "
                f"{r.expected.get(code, 0):>9}  {'OK' if r.ok(code) else 'MISMATCH'}"
            )
        print(
            f"  {r.snapshot:<24} {r.day:>3}  {'keys':<8} {r.keys_compared:>9} "
            f"{r.keys_differing:>9}  {'OK' if r.keys_differing == 0 else 'MISMATCH'}"
            "  (keys compared / keys whose change differs)"
        )
        print(
            f"  {r.snapshot:<24} {r.day:>3}  {'state':<8} {r.state_rows:>9} "
            f"{r.state_differing:>9}  {'OK' if r.state_differing == 0 else 'MISMATCH'}"
            "  (source rows / rows differing from the open versions, every column)"
        )
        print(
            f"  {r.snapshot:<24} {r.day:>3}  {'dates':<8} {r.dated_rows:>9} "
            f"{r.misdated:>9}  {'OK' if r.misdated == 0 else 'MISMATCH'}"
            "  (versions of the run checked / dated otherwise than the snapshot dates them)"
        )
        history_ok = r.history == r.expected_history
        print(
            f"  {r.snapshot:<24} {r.day:>3}  {'versions':<8} {r.history.versions:>9} "
            f"{r.expected_history.versions:>9}  {'OK' if history_ok else 'MISMATCH'}"
            f"  (versions, of which closed {r.history.closed} against "
            f"{r.expected_history.closed} from the manifests)"
        )
        if r.kept_before is not None:
            print(
                f"  {r.snapshot:<24} {r.day:>3}  {'kept':<8} {r.kept.versions:>9} "
                f"{r.kept_before.versions:>9}  {'OK' if r.kept_ok else 'MISMATCH'}"
                "  (versions from earlier runs: every column as the previous run left them)"
            )
    ok = all(r.all_ok for r in results)
    print("\nResult:", "every reconciliation OK" if ok else "MISMATCH found")
    return ok


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    defaults = PipelineOptions()
    parser = argparse.ArgumentParser(
        prog="python -m python_helpers.pipeline",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add(
        "--init-recs",
        type=_positive_int,
        default=defaults.no_init_recs,
        help="rows on day 1 (the anchor's no_init_recs; default %(default)s)",
    )
    add(
        "--incr-recs",
        type=_positive_int,
        default=defaults.no_incr_recs,
        help="rows on each later day, survivors plus new keys (no_incr_recs; default %(default)s)",
    )
    add(
        "--keys",
        type=_positive_int,
        default=defaults.no_keys,
        help="key columns key_1..key_N, the snapshots' composite unique_key "
        "(no_keys; default %(default)s)",
    )
    add(
        "--nonkeys",
        type=_positive_int,
        default=defaults.no_nonkeys,
        help="non-key columns col_1..col_M (no_nonkeys; default %(default)s)",
    )
    add(
        "--pct-del",
        type=float,
        default=defaults.pct_del,
        help="share of the previous day's keys deleted each day (default %(default)s); from "
        "the snapshots' mass-delete guard's share up (var scd2_max_delete_share, default 0.5), "
        "the guard is lifted for the demo's runs",
    )
    add(
        "--pct-upd",
        type=float,
        default=defaults.pct_upd,
        help="share of the previous day's keys updated each day (default %(default)s)",
    )
    add(
        "--pct-unchanged",
        type=float,
        default=defaults.pct_unchanged,
        help="share of the previous day's keys left unchanged (default %(default)s); the "
        "three shares must sum to 1",
    )
    add(
        "--days",
        type=_positive_int,
        default=defaults.days,
        help=f"business days to run, day 1 included, at most {MAX_DAY} (default %(default)s)",
    )
    add(
        "--seed",
        type=int,
        default=defaults.seed,
        help="generator seed: same seed, same data (default %(default)s)",
    )
    add(
        "--format",
        dest="output_format",
        choices=("csv", "table"),
        default=defaults.output_format,
        help="csv: dbt seeds in seeds/generated loaded by `dbt seed`; table: the generator "
        "writes the source tables directly, skipping the CSV files and `dbt seed` "
        "(default %(default)s)",
    )
    add(
        "--schema",
        default=os.environ.get("DBT_SCHEMA") or defaults.schema,
        help="schema of the seeds, snapshots and models (default $DBT_SCHEMA or scd2)",
    )
    add(
        "--target",
        choices=TARGETS,
        default=os.environ.get("DBT_TARGET") or "local",
        help="dbt target: local (in-process Spark), thrift (a running Spark Thrift Server at "
        "SPARK_THRIFT_HOST:SPARK_THRIFT_PORT, see make thrift-start) or cluster (the "
        "lakehouse's standalone cluster and shared metastore, see make cluster-start); "
        "default $DBT_TARGET, as for dbt, or local",
    )
    add(
        "--keep-warehouse",
        action="store_true",
        help="keep the existing warehouse and metastore (other schemas' tables) instead of "
        "starting fresh; the run's --schema must hold no tables yet",
    )
    add("--verbose", action="store_true", help="show dbt's own output for every step")
    events = parser.add_argument_group(
        "change events (docs/events.md)",
        "Instead of daily seeds and snapshots: each day's change events into the scd2_events "
        "model events_history, reconciled version by version. Late events start on day 3.",
    )
    events.add_argument(
        "--events",
        choices=SHAPES,
        help="the events' shape: flat (an Iceberg table of events) or debezium (Kafka "
        "Connect's JSON lines); default: no events, the seed and snapshot pipeline",
    )
    add_share_arguments(events)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.target not in TARGETS:  # argparse checks the choices of given values only
        parser.error(
            f"argument --target: $DBT_TARGET is {args.target!r}; choose from "
            f"{', '.join(TARGETS)}, or give --target"
        )
    options = PipelineOptions(
        no_init_recs=args.init_recs,
        no_incr_recs=args.incr_recs,
        no_keys=args.keys,
        no_nonkeys=args.nonkeys,
        pct_del=args.pct_del,
        pct_upd=args.pct_upd,
        pct_unchanged=args.pct_unchanged,
        days=args.days,
        seed=args.seed,
        output_format=args.output_format,
        schema=args.schema,
        target=args.target,
        fresh=not args.keep_warehouse,
        verbose=args.verbose,
    )
    interrupted = _InterruptWatch()
    try:
        interrupted.watch()
        options = replace(options, events=spec_from_arguments(args, args.events))
        return run(options)
    except KeyboardInterrupt:
        return _interrupted()
    except InvalidGeneratorArgument as exc:
        print(f"error: {_argument_error(exc)}", file=sys.stderr)
        return 2
    except (PipelineError, LakehouseConfigError) as exc:
        if interrupted.is_set():
            return _interrupted()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except DbtStepError as exc:
        if interrupted.is_set():
            return _interrupted()
        print(f"\nerror: {exc}", file=sys.stderr)
        return 1
    except Exception:
        # Ctrl-C inside a call to Spark's JVM breaks py4j's connection: its error, not the
        # interrupt, is what comes out (of dbt's runner too).
        if interrupted.is_set():
            return _interrupted()
        raise
    finally:
        interrupted.restore()


class _InterruptWatch(threading.Event):
    """Set once SIGINT arrives, after watch(); restore() puts Python's handler back. Only
    where SIGINT raises KeyboardInterrupt (Python's handler, in the main thread): a run
    started with SIGINT ignored (nohup, a shell's background job) stays so."""

    def __init__(self) -> None:
        super().__init__()
        self.previous: Any = None

    def watch(self) -> None:
        if (
            threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler
        ):
            self.previous = signal.signal(signal.SIGINT, self._on_interrupt)

    def _on_interrupt(self, signum: int, frame: FrameType | None) -> None:
        self.set()
        signal.default_int_handler(signum, frame)

    def restore(self) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


def _interrupted() -> int:
    """Exit status 130 (128 + SIGINT, as a shell reports it): a script tells an interrupt from
    a failed step."""
    print(
        "\ninterrupted: the run stopped where it was; run it again (a run starts on a "
        "fresh warehouse unless --keep-warehouse)",
        file=sys.stderr,
    )
    return 130


if __name__ == "__main__":
    sys.exit(main())
