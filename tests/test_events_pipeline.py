"""Generated change events into the events model, reconciled version by version (the pipeline's
events mode), on real dbt, Spark and Iceberg: both shapes, a repeated run. Debezium's shape
runs three days (late events arrive from day 3), the flat shape two: past the flattening,
both shapes are one events relation to the model (tests/test_events.py has the late events of
the flat shape)."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from python_helpers.generator import GeneratorSpec, frames, generate_day
from python_helpers.generator.events import (
    EXPECTED_TABLE,
    EventSpec,
    delayed_keys,
    generate_events,
)
from python_helpers.pipeline.reconcile_events import (
    HISTORY_MODEL,
    EventReconciliation,
    history_column_names,
    reconcile_events,
)
from python_helpers.pipeline.run import (
    PipelineError,
    PipelineOptions,
    StepTimer,
    build_spec,
    report_events,
    run_event_days,
)
from python_helpers.runtime.dbt_invoke import run_dbt
from python_helpers.tooling.scratch import ScratchProject

pytestmark = pytest.mark.slow

# 300 keys, 2 key columns, 3 values; each later day of 300 previous keys: 60 deleted (6 of
# them as key changes, 10%), 120 updated (12 deleted and re-created, 24 updated 2-3 times),
# 120 unchanged (6 given a no-op update, and from day 3 up to 2 a late update), 60 new.
ROWS, KEYS, VALUES = 300, 2, 3
DAYS = {"flat": 2, "debezium": 3}


def _options(root, schema: str, shape: str) -> PipelineOptions:
    return PipelineOptions(
        no_init_recs=ROWS,
        no_incr_recs=ROWS,
        no_keys=KEYS,
        no_nonkeys=VALUES,
        pct_del=0.2,
        pct_upd=0.4,
        pct_unchanged=0.4,
        days=DAYS[shape],
        seed=11,
        schema=schema,
        project_dir=root,
        events=EventSpec(shape=shape),
    )


@pytest.fixture(scope="module", params=["flat", "debezium"])
def events_run(request, spark: SparkSession, tmp_path_factory: pytest.TempPathFactory):
    shape = request.param
    root = tmp_path_factory.mktemp(f"events-{shape}") / "project"
    project = ScratchProject(root, f"events_{shape}", spark, include=("models", "snapshots"))
    # No generated seeds yet: the events mode writes the placeholders the project's snapshots
    # need to parse (it used to fail in its first dbt call, TargetNotFoundError).
    shutil.rmtree(project.generated_seeds)
    options = _options(root, project.schema, shape)
    return project, options, run_event_days(options, StepTimer())


def _rows(frame) -> list[str]:
    """A frame's rows in a comparable order (NULLs included)."""
    return sorted(repr(row) for row in frame.collect())


def _quarantined(spark: SparkSession, table: str) -> int | None:
    """Events in the model's quarantine table; None when it has none (nothing set aside yet)."""
    if not spark.catalog.tableExists(f"{table}__quarantine"):
        return None
    return spark.sql(f"select count(*) from {table}__quarantine").first()[0]


def _closed_as(spark: SparkSession, schema: str, run_id: str) -> dict[str, int]:
    rows = spark.sql(
        f"select event_closed_as, count(*) from {schema}.{HISTORY_MODEL} "
        f"where audit_update_process_id = '{run_id}' group by 1"
    ).collect()
    return {row[0]: row[1] for row in rows}


def test_every_run_reconciles_version_by_version(events_run, capsys) -> None:
    project, options, results = events_run
    assert [r.day for r in results] == list(range(1, DAYS[options.events.shape] + 1))
    for r in results:
        assert r.all_ok, r
        # The open versions are the day's rows, but for the keys whose events come next day.
        assert r.state is not None and r.state[1] == 0, r.state
        assert ROWS - ROWS // 10 < r.state[0] <= ROWS, r.state
    assert results[0].state == (ROWS, 0)  # day 1's reads are never held back
    # Day 1: every row read once (duplicates delivered, counted once), nothing closed.
    assert (results[0].observed("open"), results[0].observed("close")) == (ROWS, 0)
    # Later days: deletes and key changes are never delayed, so their counts are exact.
    for r in results[1:]:
        closed = _closed_as(project.spark, project.schema, r.run_id)
        assert closed["key_change"] == 6
        assert closed["delete"] == 54 + 12  # the other deletes, and the re-created keys
        assert closed["update"] > 120 - 12  # the rest updated, some several times
    assert results[1].observed("quarantine") == 0  # late events start on day 3
    assert all(r.observed("quarantine") > 0 for r in results[2:])
    assert report_events(results, StepTimer()) is True
    out = capsys.readouterr().out
    assert "MISMATCH" not in out and "every reconciliation OK" in out


def test_reconciliation_catches_versions_altered_or_repeated(events_run) -> None:
    """Day 3 reconciled again on copies of the history, altered as no run would: a version
    day 2 closed given another value (the versions day 3 opened and closed are as expected;
    those earlier runs left are not as day 2 left them), and a version day 3 opened written
    twice (as a duplicate event applied twice would: a second copy of an expected version,
    unexpected). The unaltered copy reconciles. On Debezium's shape alone (the one that runs a
    day 3): the reconciliation reads the history table, which both shapes build alike."""
    project, options, results = events_run
    if options.events.shape != "debezium":
        pytest.skip("the reconciliation does not depend on the events' shape")
    spark = project.spark
    run2, run3 = results[1].run_id, results[2].run_id
    spec = build_spec(options)
    names = history_column_names(
        project.root,
        ["--vars", json.dumps({"cdc_no_keys": KEYS, "demo_events": options.events.shape})],
    )
    closer, opener = names["audit"]["update_process_id"], names["audit"]["insert_process_id"]
    scd_id = names["dbt"]["dbt_scd_id"]
    one = f"{scd_id} = (select min({scd_id}) from {{t}} where {{column}} = '{{run}}')"
    alterations = {
        "none": None,
        "earlier": "update {t} set col_1 = col_1 + 1 where "
        + one.format(t="{t}", column=closer, run=run2),
        "twice": "insert into {t} select * from {t} where "
        + one.format(t="{t}", column=opener, run=run3),
    }
    for name, alteration in alterations.items():
        schema = f"{project.schema}_{name}"
        spark.sql(f"create schema if not exists {schema}")
        for table in (HISTORY_MODEL, f"{HISTORY_MODEL}__quarantine"):
            spark.sql(
                f"create table {schema}.{table} using iceberg "
                f"as select * from {project.schema}.{table}"
            )
        if alteration:
            spark.sql(alteration.format(t=f"{schema}.{HISTORY_MODEL}"))

        def day3_of(
            schema: str = schema, truth: tuple[str, str] | None = None
        ) -> EventReconciliation:
            """Day 3's reconciliation again, on the copy in ``schema``."""
            return reconcile_events(
                lambda sql: spark.sql(sql).collect(),
                schema,
                f"{project.schema}.{EXPECTED_TABLE}",
                spec.key_columns,
                spec.value_columns,
                3,
                run3,
                names,
                fingerprint_before=results[1].after,
                truth=truth,
            )

        again = day3_of()
        if name == "none":
            assert again.all_ok and again.counts == results[2].counts, again
            # The day's true rows as the pipeline passes them, then with one value off: the
            # state check sees the open version and the row that no longer match.
            truth = generate_day(spark, spec, 3).source
            held = delayed_keys(spark, spec, options.events, 3)
            held.createOrReplaceTempView("held_keys")
            first = truth.join(held, spec.key_columns, "left_anti").first()
            off = F.when(F.col("key_1") == first["key_1"], F.col("col_1") + 1).otherwise(
                F.col("col_1")
            )
            for view, rows in (("true_rows", truth), ("off_rows", truth.withColumn("col_1", off))):
                rows.createOrReplaceTempView(view)
            states = [
                day3_of(truth=(view, "held_keys")).state for view in ("true_rows", "off_rows")
            ]
            assert states == [results[2].state, (results[2].state[0], 2)], states
        elif name == "earlier":
            assert all(again.differing(kind) == 0 for kind in ("open", "close")), again
            assert not again.kept_ok and not again.all_ok, again
        else:
            assert again.counts["open"].get("unexpected") == 1, again
            assert again.kept_ok and not again.all_ok, again


def test_history_holds_each_kind_of_change(events_run) -> None:
    project, _options, results = events_run
    table = f"{project.schema}.{HISTORY_MODEL}"
    spark = project.spark
    run2 = results[1].run_id
    # A key change's new key records where it came from, and that key was closed by it.
    moved = spark.sql(
        f"select n.key_1, o.event_closed_as from {table} as n join {table} as o "
        f"on o.key_1 = n.event_previous_key.key_1 and o.key_2 = n.event_previous_key.key_2 "
        f"and o.dbt_valid_to = n.dbt_valid_from where n.audit_insert_process_id = '{run2}'"
    ).collect()
    assert len(moved) == 6 and {row[1] for row in moved} == {"key_change"}
    # Intermediate versions: opened and closed by the same run, closed as updates.
    intermediate = spark.sql(
        f"select count(*) from {table} where audit_insert_process_id = '{run2}' "
        f"and audit_update_process_id = '{run2}'"
    ).first()[0]
    assert intermediate >= 24
    # The late events (from day 3) are in the quarantine table with their reason, none applied.
    # Before any event is set aside, the model has written no quarantine table.
    if len(results) > 2:
        reasons = spark.sql(
            f"select distinct split(scd2_reason, ':')[0] from {table}__quarantine"
        ).collect()
        assert [row[0] for row in reasons] == ["late"]
    else:
        assert _quarantined(spark, table) is None


def test_generic_tests_passed_and_a_repeated_run_adds_nothing(events_run) -> None:
    project, options, results = events_run
    table = f"{project.schema}.{HISTORY_MODEL}"
    spark = project.spark
    versions = _rows(spark.sql(f"select * from {table}"))
    commits = spark.sql(f"select count(*) from {table}.snapshots").first()[0]
    quarantined = _quarantined(spark, table)
    flags = [
        "--target",
        "local",
        "--vars",
        json.dumps({"cdc_no_keys": KEYS, "demo_events": options.events.shape}),
    ]
    step = run_dbt(["build", "--select", "tag:events", *flags], project_dir=project.root)
    statuses = {str(r.status) for r in step.result.results}
    assert statuses <= {"success", "pass"}, statuses  # the scd2 generic tests included
    assert _rows(spark.sql(f"select * from {table}")) == versions
    assert spark.sql(f"select count(*) from {table}.snapshots").first()[0] == commits
    assert _quarantined(spark, table) == quarantined

    # The run audit (over the change feed) against counts taken from the table itself, per
    # run R: versions R inserted; versions open before and after R that R left alone; open
    # versions after R. A run's intermediate versions (inserted and closed by it) are among
    # its insertions and not among the versions it left alone.
    runs = [r.run_id for r in results]
    order = {run_id: n for n, run_id in enumerate(runs)}
    history = spark.sql(
        f"select audit_insert_process_id, audit_update_process_id from {table}"
    ).collect()
    spans = [(order[i], len(runs) if u is None else order[u]) for i, u in history]
    expected = []
    for n, run_id in enumerate(runs):
        expected.append(
            (
                run_id,
                sum(opened == n for opened, _ in spans),
                sum(opened < n < closed for opened, closed in spans),
                sum(opened <= n < closed for opened, closed in spans),
            )
        )
    audit = spark.sql(
        f"select process_id, versions_inserted, versions_unchanged, open_versions "
        f"from {project.schema}.events_run_audit order by first_processed_ts"
    ).collect()
    assert [tuple(r) for r in audit] == expected


def test_generated_events_are_reproducible(
    spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = GeneratorSpec(200, 200, 1, 2, 0.2, 0.4, 0.4, seed=5)
    events = EventSpec()
    first = generate_events(spark, spec, events, 3)
    first_rows = _rows(first.batch), _rows(first.expected)
    # Recomputed from day 1, not from the states the first call left in the session.
    monkeypatch.setattr(frames, "_STATES", {})
    again = generate_events(spark, spec, events, 3)
    assert (_rows(again.batch), _rows(again.expected)) == first_rows
    other = generate_events(spark, spec, EventSpec(pct_duplicate=0.0, pct_delayed=0.0), 3)
    # Without duplicates, no two events of the batch are the same.
    assert other.batch.count() == other.batch.distinct().count()


def test_a_day_that_builds_no_history_fails(
    spark: SparkSession, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """dbt reads DBT_RESOURCE_TYPES from the environment: set to seeds, the day's build ran
    no events model, and the reconciliation failed on Spark's missing table (or read an older
    run's). The day fails saying why, as the snapshots' does."""
    root = tmp_path / "project"
    project = ScratchProject(root, "events_none", spark, include=("models", "snapshots"))
    monkeypatch.setenv("DBT_RESOURCE_TYPES", "seed")
    options = dataclasses.replace(_options(root, project.schema, "flat"), days=1)
    with pytest.raises(PipelineError, match="day 1: dbt build ran no events_history model"):
        run_event_days(options, StepTimer())


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("pct_late", 1.5, "pct_late: must be a share in [0, 1], got 1.5"),
        ("pct_recreate", 0.9, "pct_recreate + pct_multi_update"),
        ("shape", "avro", "shape: must be one of flat, debezium, got 'avro'"),
    ],
)
def test_bad_event_shares_are_refused(field: str, value, message: str) -> None:
    from python_helpers.generator import InvalidGeneratorArgument

    with pytest.raises(InvalidGeneratorArgument, match=re.escape(message)):
        EventSpec(**{field: value})
