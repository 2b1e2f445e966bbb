"""Change events into SCD2 history (issue 13): the scd2_events materialization.

Each test writes a batch of events into ``<schema>.raw_events`` with Spark, runs the model
with ``dbt run`` and states the versions expected after each run. Times are hours of
2024-01-01; ``lsn`` breaks ties between events at the same time.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Context, Decimal
from typing import Any

import pytest
import yaml
from pyspark.sql import SparkSession

from python_helpers.runtime.dbt_invoke import DbtStep, DbtStepError
from python_helpers.tooling.scratch import ScratchProject
from tests.test_reliability import SCD2_TESTS, all_rows, iceberg_commits

pytestmark = pytest.mark.slow

EVENTS_DDL = "id int, name string, op string, ts timestamp, lsn bigint, before_id int"
T0 = datetime(2024, 1, 1)


def at(hour: int) -> datetime:
    return T0 + timedelta(hours=hour)


def ev(op: str, key: int | None, name: str | None, hour: int | None, lsn: int = 0, old=None):
    return (key, name, op, at(hour) if hour is not None else None, lsn, old)


T0_MS = int(T0.replace(tzinfo=UTC).timestamp() * 1000)
HOUR_MS = 3_600_000


def debezium_line(op: str, before: dict | None, after: dict | None, ms: int, lsn: int) -> str:
    """One change as Kafka Connect's JSON converter writes it, without the schema envelope."""
    source = {"ts_ms": ms, "lsn": lsn}
    return json.dumps({"before": before, "after": after, "op": op, "source": source})


def write_model(
    project: ScratchProject, config: str = "", name: str = "history", source: str = "raw_events"
) -> None:
    """An scd2_events model over ``<schema>.<source>``, with the scd2 generic data tests."""
    project.write(
        f"models/{name}.sql",
        f"""
        {{{{ config(
            materialized='scd2_events',
            unique_key='id',
            event_order_by=['ts', 'lsn'],
            event_old_key_columns=['before_id'],
            {config}
        ) }}}}
        select * from {{{{ target.schema }}}}.{source}
        """,
    )
    write_scd2_tests(project, name)


def write_scd2_tests(project: ScratchProject, name: str = "history") -> None:
    """The scd2 generic data tests on model ``name``, in its properties file."""
    properties = {"version": 2, "models": [{"name": name, "data_tests": list(SCD2_TESTS)}]}
    project.write(f"models/{name}.yml", yaml.safe_dump(properties))


def write_debezium_model(
    project: ScratchProject,
    relation: str = "debezium_raw",
    config: str = "",
    order_by: str = "['event_ts', 'event_lsn']",
    macro_args: str = "",
) -> None:
    """An scd2_events model ``history`` of the Debezium changes in ``<schema>.<relation>``
    (scd2_debezium_events, with ``macro_args`` after the key list), keyed by ``id`` and
    ordered by ``order_by``, with the scd2 generic data tests."""
    project.write(
        "models/history.sql",
        f"""
        {{{{ config(
            materialized='scd2_events',
            unique_key='id',
            event_order_by={order_by},
            {config}
        ) }}}}
        {{{{ scd2_audit.scd2_debezium_events(
            api.Relation.create(schema=target.schema, identifier='{relation}'), ['id'],
            {macro_args}) }}}}
        """,
    )
    write_scd2_tests(project)


def json_batch(project: ScratchProject, folder, lines: list[str]) -> None:
    """Debezium lines as the JSON table ``<schema>.debezium_raw``, re-created over ``folder``."""
    folder.mkdir()
    (folder / "part-0.json").write_text("\n".join(lines) + "\n")
    raw = project.table("debezium_raw")
    project.spark.sql(f"drop table if exists {raw}")
    project.spark.sql(f"create table {raw} using json location '{folder}'")
    # Spark 3.5 otherwise keeps reading the dropped table's files under the same name, in the
    # tests' own reads of it (a run refreshes the relation itself).
    project.spark.sql(f"refresh table {raw}")


def write_events(
    project: ScratchProject, events: list[tuple], table: str = "raw_events", ddl: str = EVENTS_DDL
) -> None:
    """A batch of events (columns: ``ddl``), replacing ``<schema>.<table>``."""
    project.spark.sql(f"create schema if not exists {project.schema}")
    frame = project.spark.createDataFrame(events, ddl)
    frame.writeTo(project.table(table)).using("iceberg").createOrReplace()


def run(project: ScratchProject, *args: str, check: bool = True):
    return project.dbt("run", "--select", "history", *args, check=check)


def failure(project: ScratchProject, *args: str) -> str:
    """Run the model, expecting it to fail; its error message."""
    step = run(project, *args, check=False)
    (result,) = step.result.results
    assert str(result.status).lower() == "error", result.status
    return str(result.message)


def versions(project: ScratchProject, table: str = "history") -> list[dict[str, Any]]:
    rows = project.spark.sql(
        f"""
        select
            id, name, dbt_valid_from, dbt_valid_to, event_opened_op, event_closed_as,
            event_previous_key.id as previous_id, audit_insert_process_id,
            audit_update_process_id, effective_end_ts
        from {project.table(table)}
        order by id, event_opened_position
        """
    ).collect()
    return [r.asDict() for r in rows]


def brief(rows: list[dict[str, Any]]) -> list[tuple]:
    """(id, name, valid from hour, valid to hour or None, closed_as) per version."""

    def hour(value: datetime | None) -> int | None:
        return None if value is None else int((value - T0).total_seconds() // 3600)

    return [
        (
            r["id"],
            r["name"],
            hour(r["dbt_valid_from"]),
            hour(r["dbt_valid_to"]),
            r["event_closed_as"],
        )
        for r in rows
    ]


def assert_generic_tests_pass(project: ScratchProject) -> None:
    step = project.dbt("test", "--select", "history")
    statuses = {r.node.name: str(r.status).lower() for r in step.result.results}
    assert len(statuses) == len(SCD2_TESTS), statuses
    assert set(statuses.values()) == {"pass"}, statuses


# The textbook case's history (issue 13), as brief() gives it: id1 Alice, id2 Bob at 0; at 1,
# 2, 3: id1 updated to Angela, id2 deleted, id2 inserted as Carol. Each flattening of it (flat
# events, Debezium's envelope, wal2json, the Thrift server) must give exactly these versions.
TEXTBOOK = [
    (1, "Alice", 0, 1, "update"),
    (1, "Angela", 1, None, None),
    (2, "Bob", 0, 2, "delete"),
    (2, "Carol", 3, None, None),
]


TEXTBOOK_BATCHES = (
    [ev("r", 1, "Alice", 0), ev("r", 2, "Bob", 0)],
    [ev("u", 1, "Angela", 1, old=1), ev("d", 2, None, 2), ev("c", 2, "Carol", 3)],
)


def textbook_runs(project: ScratchProject) -> list[DbtStep]:
    """The textbook case's two batches, each written and run: id1 Alice, id2 Bob; then at 1,
    2, 3: update id1 to Angela, delete id2, insert id2 Carol. Returns the two runs."""
    steps = []
    for batch in TEXTBOOK_BATCHES:
        write_events(project, batch)
        steps.append(run(project))
    return steps


def test_textbook_case(dbt_project: ScratchProject) -> None:
    """id1 Alice, id2 Bob; then at 1, 2, 3: update id1 to Angela, delete id2, insert id2 Carol."""
    write_model(dbt_project)
    write_events(dbt_project, [ev("r", 1, "Alice", 0), ev("r", 2, "Bob", 0)])
    run1 = run(dbt_project)
    assert brief(versions(dbt_project)) == [(1, "Alice", 0, None, None), (2, "Bob", 0, None, None)]

    write_events(
        dbt_project,
        [ev("u", 1, "Angela", 1, old=1), ev("d", 2, None, 2), ev("c", 2, "Carol", 3)],
    )
    run2 = run(dbt_project)
    rows = versions(dbt_project)
    assert brief(rows) == TEXTBOOK
    alice, angela, bob, carol = rows
    assert alice["audit_insert_process_id"] == run1.invocation_id
    assert alice["audit_update_process_id"] == run2.invocation_id
    assert bob["audit_update_process_id"] == run2.invocation_id
    assert (
        angela["audit_insert_process_id"] == carol["audit_insert_process_id"] == run2.invocation_id
    )
    assert angela["audit_update_process_id"] is None
    assert angela["effective_end_ts"] == datetime(9999, 12, 31, 23, 59, 59)
    assert_generic_tests_pass(dbt_project)

    # A copy the graph does not build (another project's table, read as a source) is known as
    # an events table by its columns, as the analyst macros know it: read as a snapshot's,
    # Bob's delete and Carol's creation by one run failed scd2_contiguous_validity with a gap.
    copied = dbt_project.table("history_copy")
    dbt_project.spark.sql(
        f"create table {copied} using iceberg as select * from {dbt_project.table('history')}"
    )
    table = {
        "name": "history_copy",
        "data_tests": [{test: {"arguments": {"unique_key": ["id"]}}} for test in SCD2_TESTS],
    }
    sources = {"name": "copied", "schema": dbt_project.schema, "tables": [table]}
    dbt_project.write("models/copied.yml", yaml.safe_dump({"version": 2, "sources": [sources]}))
    step = dbt_project.dbt("test", "--select", "source:copied", check=False)
    statuses = {r.node.name: str(r.status).lower() for r in step.result.results}
    assert len(statuses) == len(SCD2_TESTS) and set(statuses.values()) == {"pass"}, statuses

    # The same batch again: every event is recognised as applied; nothing is written.
    commits = iceberg_commits(dbt_project, "history")
    run(dbt_project)
    assert versions(dbt_project) == rows
    assert iceberg_commits(dbt_project, "history") == commits


def test_renamed_dbt_columns(dbt_project: ScratchProject) -> None:
    """snapshot_meta_column_names renames dbt's columns of an events model, as for snapshots
    (in any case: Spark's names are case-insensitive); the textbook batches give the same
    validity in the renamed columns."""
    renamed = "{'dbt_valid_from': 'Valid_From', 'dbt_valid_to': 'valid_to'}"
    write_model(dbt_project, f"snapshot_meta_column_names={renamed},")
    textbook_runs(dbt_project)
    table = dbt_project.table("history")
    columns = [c.lower() for c in dbt_project.spark.table(table).columns]
    assert "valid_from" in columns and "valid_to" in columns
    assert "dbt_valid_from" not in columns and "dbt_valid_to" not in columns
    rows = dbt_project.spark.sql(
        f"select id, name, valid_from, valid_to from {table} order by id, valid_from"
    ).collect()
    assert [tuple(r) for r in rows] == [
        (1, "Alice", at(0), at(1)),
        (1, "Angela", at(1), None),
        (2, "Bob", at(0), at(2)),
        (2, "Carol", at(3), None),
    ]
    assert_generic_tests_pass(dbt_project)


def test_key_change_intermediate_versions_no_ops_and_duplicates(
    dbt_project: ScratchProject,
) -> None:
    write_model(dbt_project)
    write_events(dbt_project, [ev("c", 1, "Alice", 0), ev("c", 2, "Bob", 0)])
    run(dbt_project)

    # One batch: three updates of id 1 (the second changes nothing, the third arrives twice
    # and out of order), then id 2 moves to id 5 (a key change, old key in before_id).
    write_events(
        dbt_project,
        [
            ev("u", 1, "Ali", 3, old=1),
            ev("u", 5, "Bob", 4, old=2),
            ev("u", 1, "Alicia", 1, old=1),
            ev("u", 1, "Alicia", 2, old=1),
            ev("u", 1, "Ali", 3, old=1),
        ],
    )
    run2 = run(dbt_project)
    rows = versions(dbt_project)
    assert brief(rows) == [
        (1, "Alice", 0, 1, "update"),
        (1, "Alicia", 1, 3, "update"),
        (1, "Ali", 3, None, None),
        (2, "Bob", 0, 4, "key_change"),
        (5, "Bob", 4, None, None),
    ]
    # The intermediate version was opened and closed by the same run.
    assert (
        rows[1]["audit_insert_process_id"]
        == rows[1]["audit_update_process_id"]
        == run2.invocation_id
    )
    assert [r["previous_id"] for r in rows] == [None, None, None, None, 2]
    assert_generic_tests_pass(dbt_project)


def test_late_events_are_quarantined_or_fail_the_run(dbt_project: ScratchProject) -> None:
    write_model(dbt_project, "on_late_event=var('late', 'quarantine'),")
    write_events(dbt_project, [ev("c", 1, "A", 1), ev("u", 1, "B", 5, old=1)])
    run(dbt_project)
    before = versions(dbt_project)
    assert brief(before) == [(1, "A", 1, 5, "update"), (1, "B", 5, None, None)]

    # id 1 at hour 3: late and not what the history holds there (A) -> quarantined.
    # id 1 A at hour 1 again: late but in agreement (a duplicate) -> dropped.
    # id 2: new -> applied.
    batch = [ev("u", 1, "X", 3, old=1), ev("c", 1, "A", 1), ev("c", 2, "C", 2)]
    write_events(dbt_project, batch)
    run(dbt_project)
    rows = versions(dbt_project)
    assert rows[:2] == before
    assert brief(rows[2:]) == [(2, "C", 2, None, None)]
    quarantine = dbt_project.spark.sql(
        f"select id, name, scd2_reason from {dbt_project.table('history__quarantine')}"
    ).collect()
    assert [(q.id, q.name) for q in quarantine] == [(1, "X")]
    assert quarantine[0].scd2_reason.startswith("late")

    # The same batch again quarantines nothing twice and changes nothing, not even the
    # quarantine's Iceberg history.
    held = iceberg_commits(dbt_project, "history__quarantine")
    run(dbt_project)
    assert versions(dbt_project) == rows
    assert dbt_project.spark.table(dbt_project.table("history__quarantine")).count() == 1
    assert iceberg_commits(dbt_project, "history__quarantine") == held

    # With on_late_event='fail' the run fails, names the event and writes nothing.
    commits = iceberg_commits(dbt_project, "history")
    message = failure(dbt_project, "--vars", json.dumps({"late": "fail"}))
    assert "late event" in message and '"id":1' in message and "Nothing was written" in message
    assert iceberg_commits(dbt_project, "history") == commits
    assert versions(dbt_project) == rows


def test_a_late_key_change_is_set_aside_whole_and_counted_so(
    dbt_project: ScratchProject, capsys: pytest.CaptureFixture[str]
) -> None:
    """A key change whose old key is late: its new key's half is not applied either (an event
    is applied or set aside whole), and the run's line of counts says so instead of counting
    that half as new. Key 1: A from hour 1, B from hour 5; then a move of key 1 to key 20 at
    hour 3 (late for key 1, whose history holds A there): quarantined once, no commit, and
    the same again when the batch runs twice."""
    write_model(dbt_project, "on_late_event='quarantine',")
    write_events(dbt_project, [ev("c", 1, "A", 1), ev("u", 1, "B", 5, old=1)])
    run(dbt_project)
    rows, commits = versions(dbt_project), iceberg_commits(dbt_project, "history")
    write_events(dbt_project, [ev("u", 20, "K", 3, old=1)])
    held = None  # the quarantine's commits after the first run: the second adds none
    for _ in range(2):
        capsys.readouterr()
        run(dbt_project)
        out = capsys.readouterr().out
        line = (
            "events new 0, no-op 0, duplicate 0, late 1, ambiguous 0, malformed 0, "
            "set aside with their event 1"
        )
        assert line in out, out
        assert (versions(dbt_project), iceberg_commits(dbt_project, "history")) == (rows, commits)
        quarantine = dbt_project.spark.table(dbt_project.table("history__quarantine")).collect()
        assert [(q.id, q.name, q.before_id) for q in quarantine] == [(20, "K", 1)]
        held = held or iceberg_commits(dbt_project, "history__quarantine")
        assert iceberg_commits(dbt_project, "history__quarantine") == held


def test_a_late_key_change_into_the_same_values_is_late_and_a_replayed_one_a_duplicate(
    dbt_project: ScratchProject,
) -> None:
    """Key 2 holds V from hour 0 and W from hour 3; a move of key 1 to key 2 with V at hour 1
    is late for key 2 (its version there records no key it came from): set aside whole, key 1
    stays open (the old code took key 2's half for applied and closed key 1 alone). A key
    change applied, then its batch run again, is a duplicate: nothing changes."""
    write_model(dbt_project, "on_late_event='quarantine',")
    write_events(dbt_project, [ev("c", 1, "A", 0), ev("c", 2, "V", 0), ev("u", 2, "W", 3, old=2)])
    run(dbt_project)
    built = [(1, "A", 0, None, None), (2, "V", 0, 3, "update"), (2, "W", 3, None, None)]
    assert brief(versions(dbt_project)) == built

    write_events(dbt_project, [ev("u", 2, "V", 1, old=1)])
    run(dbt_project)
    assert brief(versions(dbt_project)) == built
    quarantine = dbt_project.spark.table(dbt_project.table("history__quarantine")).collect()
    assert [(q.id, q.name, q.before_id, q.scd2_reason[:5]) for q in quarantine] == [
        (2, "V", 1, "late:")
    ]

    move = [ev("u", 30, "A", 5, old=1)]
    write_events(dbt_project, move)
    run(dbt_project)
    moved = [(1, "A", 0, 5, "key_change"), *built[1:], (30, "A", 5, None, None)]
    assert brief(versions(dbt_project)) == moved
    assert [r["previous_id"] for r in versions(dbt_project)] == [None, None, None, 1]
    commits = iceberg_commits(dbt_project, "history")
    run(dbt_project)
    assert brief(versions(dbt_project)) == moved
    assert iceberg_commits(dbt_project, "history") == commits


def test_a_key_whose_first_event_in_the_batch_is_not_applied(dbt_project: ScratchProject) -> None:
    """The open version rides on the key's first item of the batch (docs/events.md): when that
    item is a replay or a late event set aside, the key's next events still close it."""
    write_model(dbt_project, "on_late_event='quarantine',")
    write_events(dbt_project, [ev("c", 1, "A", 1), ev("u", 1, "B", 5, old=1), ev("c", 2, "P", 1)])
    run(dbt_project)

    # id 1: A at hour 1 again (a replay, dropped), then C at hour 7 (new).
    # id 2: P at hour 1 again only (a replay): nothing to write for it.
    write_events(dbt_project, [ev("c", 1, "A", 1), ev("u", 1, "C", 7, old=1), ev("c", 2, "P", 1)])
    run(dbt_project)
    assert brief(versions(dbt_project)) == [
        (1, "A", 1, 5, "update"),
        (1, "B", 5, 7, "update"),
        (1, "C", 7, None, None),
        (2, "P", 1, None, None),
    ]

    # id 1: X at hour 3 (late: set aside), then D at hour 9 (new).
    write_events(dbt_project, [ev("u", 1, "X", 3, old=1), ev("u", 1, "D", 9, old=1)])
    run(dbt_project)
    assert brief(versions(dbt_project)) == [
        (1, "A", 1, 5, "update"),
        (1, "B", 5, 7, "update"),
        (1, "C", 7, 9, "update"),
        (1, "D", 9, None, None),
        (2, "P", 1, None, None),
    ]
    quarantine = dbt_project.spark.table(dbt_project.table("history__quarantine")).collect()
    assert [(q.id, q.name) for q in quarantine] == [(1, "X")]
    assert_generic_tests_pass(dbt_project)


RUN_SETTINGS = (
    "spark.sql.adaptive.enabled",
    "spark.sql.legacy.storeAnalyzedPlanForView",
    "spark.sql.inMemoryColumnarStorage.compressed",
    "spark.sql.requireAllClusterKeysForCoPartition",
)


def test_the_session_settings_are_put_back(dbt_project: ScratchProject) -> None:
    """A run changes Spark settings for its own statements (docs/events.md). They are put back
    after a run, after a run it fails itself, and, by the next run, after a run stopped by a
    failing statement. The steps a run cached are released with its views (dropping a cached
    temporary view uncaches it), after a run and after a run it fails itself; those of a run
    stopped by a failing statement, by the model's next run, which keeps the views of another
    model's run."""
    spark = dbt_project.spark
    spark.conf.set("spark.sql.adaptive.enabled", "true")
    before = {name: spark.conf.get(name) for name in RUN_SETTINGS}
    cache = spark._jsparkSession.sharedState().cacheManager()
    spark.catalog.clearCache()  # whatever earlier tests of this worker left

    def settings() -> dict[str, str]:
        return {name: spark.conf.get(name) for name in RUN_SETTINGS}

    write_model(dbt_project)
    write_events(dbt_project, [ev("c", 1, "A", 0)])
    run(dbt_project)
    assert settings() == before
    assert cache.isEmpty()

    write_events(dbt_project, [ev("c", None, "B", 1)])
    assert "null key" in failure(dbt_project)
    assert settings() == before
    assert cache.isEmpty()

    # A statement fails after the settings were changed: the run stops there.
    dbt_project.write(
        "models/history.sql",
        """
        {{ config(
            materialized='scd2_events', unique_key='id', event_order_by=['ts', 'lsn'],
            event_old_key_columns=['before_id'],
        ) }}
        select
            id,
            case when name = 'boom' then raise_error('boom') else name end as name,
            op, ts, lsn, before_id
        from {{ target.schema }}.raw_events
        """,
    )
    write_events(dbt_project, [ev("c", 2, "boom", 1)])
    assert "boom" in failure(dbt_project)
    assert spark.conf.get("spark.sql.adaptive.enabled") == "false"

    def views(pattern: str) -> list[str]:
        rows = spark.sql(f"show views in global_temp like '{pattern}'").collect()
        return [r.viewName for r in rows if r.isTemporary]

    # The stopped run left its views (`<model>__events_<hash of schema.model>_<invocation
    # id>_...`) and cached steps. A view of a model of that name in another schema (another
    # hash) is not this model's.
    mine = (
        "history__events_"
        + hashlib.md5(f"{dbt_project.schema}.history".lower().encode()).hexdigest()[:8]
    )
    assert views(f"{mine}_*") and not cache.isEmpty()
    other = "history__events_0123abcd_0123_scd2_items"
    spark.sql(f"create temporary view {other} as select 1 as a")
    write_model(dbt_project)
    write_events(dbt_project, [ev("c", 2, "B", 1)])
    run(dbt_project)
    assert settings() == before
    assert views(f"{mine}_*") == []
    assert cache.isEmpty()
    assert views(other) == [other]
    spark.sql(f"drop view {other}")
    assert brief(versions(dbt_project)) == [(1, "A", 0, None, None), (2, "B", 1, None, None)]


OVERLAP_MACROS = """
{#- Runs of the settings bookkeeping as scd2_events runs make them, named a and b; what the
    session holds at each point is copied under spark.scd2_test.* for the test to read. -#}
{% macro scd2_test_keep(label) %}
    {% do run_query('set spark.scd2_test.' ~ label ~ '='
        ~ run_query('set spark.sql.adaptive.enabled').rows[0][1]) %}
{% endmacro %}

{% macro scd2_test_overlap() %}
    {% set run_settings = {'spark.sql.adaptive.enabled': 'false'} %}
    {% set a = scd2_audit._scd2_events_set_conf(run_settings, run_name='a') %}
    {% set b = scd2_audit._scd2_events_set_conf(run_settings, run_name='b') %}
    {% do run_query('set spark.scd2_test.b_before=' ~ b['spark.sql.adaptive.enabled']) %}
    {% do scd2_audit._scd2_events_set_conf(a, restore=true, run_name='a') %}
    {% do scd2_test_keep('after_a') %}
    {% do scd2_audit._scd2_events_set_conf(b, restore=true, run_name='b') %}
    {% do scd2_test_keep('after_b') %}
{% endmacro %}

{% macro scd2_test_start(name) %}
    {% do scd2_audit._scd2_events_set_conf(
        {'spark.sql.adaptive.enabled': 'false'}, run_name=name) %}
    {% do scd2_test_keep('started') %}
{% endmacro %}

{% macro scd2_test_start_and_end(name) %}
    {% set before = scd2_audit._scd2_events_set_conf(
        {'spark.sql.adaptive.enabled': 'false'}, run_name=name) %}
    {% do run_query('set spark.scd2_test.before=' ~ before['spark.sql.adaptive.enabled']) %}
    {% do scd2_audit._scd2_events_set_conf(before, restore=true, run_name=name) %}
    {% do scd2_test_keep('ended') %}
{% endmacro %}
"""


def test_overlapping_runs_keep_the_settings_until_the_last_ends(
    dbt_project: ScratchProject,
) -> None:
    """Two scd2_events runs of one invocation in one session (dbt threads): the first to end
    leaves the run settings to the other, the last puts the session's own back. A run stopped
    in an earlier invocation (its end never ran) does not keep a later one's settings."""
    spark = dbt_project.spark
    spark.conf.set("spark.sql.adaptive.enabled", "true")
    dbt_project.write("macros/scd2_test_overlap.sql", OVERLAP_MACROS)

    # One invocation: a starts, b starts, a ends, b ends.
    dbt_project.dbt("run-operation", "scd2_test_overlap")
    assert spark.conf.get("spark.scd2_test.b_before") == "true"
    assert spark.conf.get("spark.scd2_test.after_a") == "false"  # b still runs
    assert spark.conf.get("spark.scd2_test.after_b") == "true"
    assert bookkeeping_keys(spark) == []

    # An invocation whose run stops before its end, then one whose run starts and ends.
    # A run name that `set` would not take unquoted (a model named with a hyphen).
    dbt_project.dbt("run-operation", "scd2_test_start", "--args", "{name: stopped-run}")
    assert spark.conf.get("spark.scd2_test.started") == "false"
    assert spark.conf.get("spark.sql.adaptive.enabled") == "false"
    kept = bookkeeping_keys(spark)
    assert len(kept) == 2 and any(k.endswith(".stopped_run") for k in kept), kept
    dbt_project.dbt("run-operation", "scd2_test_start_and_end", "--args", "{name: next}")
    assert spark.conf.get("spark.scd2_test.before") == "true"
    assert spark.conf.get("spark.scd2_test.ended") == "true"
    assert spark.conf.get("spark.sql.adaptive.enabled") == "true"
    assert bookkeeping_keys(spark) == []


def bookkeeping_keys(spark: SparkSession) -> list[str]:
    """The session settings the runs keep for themselves, left after they ended."""
    rows = spark.sql("set").collect()
    return [r.key for r in rows if r.key.startswith("spark.scd2_audit.events.")]


def test_two_events_models_in_one_run(dbt_project: ScratchProject) -> None:
    """Two scd2_events models with no dependency between them run side by side (dbt's
    threads, one Spark session): each gets its own versions, and the session's settings are
    as before once both end."""
    spark = dbt_project.spark
    spark.conf.set("spark.sql.adaptive.enabled", "true")
    before = {name: spark.conf.get(name) for name in RUN_SETTINGS}
    write_model(dbt_project, name="history")
    write_model(dbt_project, name="history_2", source="raw_events_2")
    write_events(dbt_project, [ev("c", 1, "A", 0), ev("c", 2, "P", 0)])
    write_events(dbt_project, [ev("c", 1, "K", 0)], table="raw_events_2")
    dbt_project.dbt("run", "--select", "history", "history_2")

    # Day 2: id 1 to B at hour 1 in the first; id 1 to L at hour 2, deleted at 3 in the second.
    write_events(dbt_project, [ev("u", 1, "B", 1, old=1)])
    write_events(
        dbt_project,
        [ev("u", 1, "L", 2, old=1), ev("d", 1, "L", 3)],
        table="raw_events_2",
    )
    step = dbt_project.dbt("run", "--select", "history", "history_2")
    assert sorted(r.node.name for r in step.result.results) == ["history", "history_2"]
    assert brief(versions(dbt_project)) == [
        (1, "A", 0, 1, "update"),
        (1, "B", 1, None, None),
        (2, "P", 0, None, None),
    ]
    assert brief(versions(dbt_project, "history_2")) == [
        (1, "K", 0, 2, "update"),
        (1, "L", 2, 3, "delete"),
    ]
    assert {name: spark.conf.get(name) for name in RUN_SETTINGS} == before
    assert bookkeeping_keys(spark) == []


MALFORMED = {
    "unknown_op": (ev("x", 3, "Z", 4), "unknown operation 'x'"),
    "null_key": (ev("c", None, "Z", 4), "null key"),
    "null_ts": (ev("c", 3, "Z", None), "null ordering value in ts"),
    "no_old_key": (ev("u", 1, "Z", 4), "update without an old key (before_id)"),
}


@dataclass(frozen=True)
class Malformed:
    """Per kind of malformed event (one model each, over events of its own): the versions and
    Iceberg commits before the batch holding it; the failed run's message, versions, commits
    and whether a quarantine table appeared; after the run configured to quarantine, the
    versions and the quarantine's reasons."""

    before: dict[str, tuple[list[dict[str, Any]], int]]
    message: dict[str, str]
    after_failure: dict[str, tuple[list[dict[str, Any]], int, bool]]
    quarantined: dict[str, tuple[list[tuple], list[str]]]


@pytest.fixture(scope="module")
def malformed(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Malformed:
    """Each model: A created; then a batch of a good update and one malformed event, run as
    configured by default (fail), then configured to quarantine."""
    project = ScratchProject(tmp_path_factory.mktemp("malformed"), "events_malformed", spark)
    names = [f"history_{kind}" for kind in MALFORMED]
    for kind, name in zip(MALFORMED, names, strict=True):
        config = "on_malformed_event=var('malformed', 'fail'),"
        write_model(project, config, name=name, source=f"raw_{kind}")
        write_events(project, [ev("c", 1, "A", 0)], table=f"raw_{kind}")
    select = ("run", "--select", *names)
    project.dbt(*select)
    before = {n: (versions(project, n), iceberg_commits(project, n)) for n in names}

    for kind, (bad_event, _problem) in MALFORMED.items():
        write_events(project, [ev("u", 1, "B", 2, old=1), bad_event], table=f"raw_{kind}")
    failed = project.dbt(*select, check=False)
    message = {r.node.name: str(r.message) for r in failed.result.results}
    assert {str(r.status).lower() for r in failed.result.results} == {"error"}, message
    after_failure = {
        n: (
            versions(project, n),
            iceberg_commits(project, n),
            spark.catalog.tableExists(project.table(f"{n}__quarantine")),
        )
        for n in names
    }

    project.dbt(*select, "--vars", json.dumps({"malformed": "quarantine"}))
    quarantined = {
        n: (
            brief(versions(project, n)),
            [r.scd2_reason for r in spark.table(project.table(f"{n}__quarantine")).collect()],
        )
        for n in names
    }
    return Malformed(before, message, after_failure, quarantined)


@pytest.mark.parametrize("kind", list(MALFORMED))
def test_malformed_event_fails_before_anything_is_written(malformed: Malformed, kind: str) -> None:
    name, problem = f"history_{kind}", MALFORMED[kind][1]
    message = malformed.message[name]
    assert "1 malformed event(s)" in message and problem in message, message
    rows, commits = malformed.before[name]
    assert malformed.after_failure[name] == (rows, commits, False)

    # Configured to quarantine: the malformed event is set aside, the good one applied.
    assert malformed.quarantined[name] == (
        [(1, "A", 0, 2, "update"), (1, "B", 2, None, None)],
        [f"malformed: {problem}"],
    )


def test_ambiguous_events_fail(dbt_project: ScratchProject) -> None:
    """Two different events of one key at one position fail the run, saying what to do: a
    tie-breaker, or, for two deliveries of one change that differ in a column the select adds
    (every other column is a value column by default), that column left out of
    event_value_columns, which then takes them as one event."""
    write_model(dbt_project)
    write_events(dbt_project, [ev("c", 1, "A", 0, lsn=7), ev("c", 1, "B", 0, lsn=7)])
    message = failure(dbt_project)
    assert "tie-breaker" in message and "event_value_columns" in message, message
    assert not dbt_project.spark.catalog.tableExists(dbt_project.table("history"))

    # One create delivered twice, loaded at two times.
    delivered = [(*ev("c", 1, "A", 0), "00:01"), (*ev("c", 1, "A", 0), "00:05")]
    write_events(dbt_project, delivered, ddl=f"{EVENTS_DDL}, loaded_at string")
    assert "2 event(s) with the key and position" in failure(dbt_project)
    write_model(dbt_project, "event_value_columns=['name'],")
    run(dbt_project)
    assert brief(versions(dbt_project)) == [(1, "A", 0, None, None)]


def test_two_moves_of_one_key_and_a_bad_second_delivery(dbt_project: ScratchProject) -> None:
    """Two different events that move key 1 at one position, to keys 2 and 3, are ambiguous
    (they gave one closing item of key 1, kept once, and both new keys opened from it, without
    a word): the run fails and writes nothing; quarantined, both are set aside whole and key 1
    stays open. A malformed second delivery of a good update at the same position (`U` for
    `u`) leaves the good one unambiguous: the run fails on the malformed one alone, and,
    quarantined, the good one is applied."""
    write_model(dbt_project, "on_malformed_event=var('malformed', 'fail'),")
    write_events(dbt_project, [ev("c", 1, "A", 0)])
    run(dbt_project)
    rows, commits = versions(dbt_project), iceberg_commits(dbt_project, "history")

    moves = [ev("c", 1, "A", 0), ev("u", 2, "A", 2, old=1), ev("u", 3, "A", 2, old=1)]
    write_events(dbt_project, moves)
    message = failure(dbt_project)
    assert "2 event(s) with the key and position" in message, message
    assert (versions(dbt_project), iceberg_commits(dbt_project, "history")) == (rows, commits)
    quarantine = ("--vars", json.dumps({"malformed": "quarantine"}))
    run(dbt_project, *quarantine)
    assert brief(versions(dbt_project)) == [(1, "A", 0, None, None)]
    set_aside = dbt_project.spark.table(dbt_project.table("history__quarantine")).collect()
    assert sorted((r.id, r.before_id, r.scd2_reason.split(":")[0]) for r in set_aside) == [
        (2, 1, "ambiguous"),
        (3, 1, "ambiguous"),
    ]

    # A good update and its malformed second delivery, at one position.
    write_events(dbt_project, [ev("u", 1, "B", 4, old=1), ev("U", 1, "B", 4, old=1)])
    message = failure(dbt_project)
    assert "1 malformed event(s)" in message and "unknown operation 'U'" in message, message
    assert "tie-breaker" not in message, message
    run(dbt_project, *quarantine)
    assert brief(versions(dbt_project)) == [(1, "A", 0, 4, "update"), (1, "B", 4, None, None)]
    reasons = [
        r.scd2_reason
        for r in dbt_project.spark.table(dbt_project.table("history__quarantine")).collect()
        if r.op == "U"
    ]
    assert reasons == ["malformed: unknown operation 'U'"]


def test_events_of_a_time_that_is_no_timestamp_a_map_a_void_a_bad_name_or_old_key_are_refused(
    dbt_project: ScratchProject,
) -> None:
    """Columns the run cannot order, compare or name fail it before anything is written,
    saying what to write instead, where they used to give text validity columns or a Spark
    error."""
    write_model(dbt_project)
    write_events(dbt_project, [ev("c", 1, "A", 0)])
    run(dbt_project)
    rows, commits = versions(dbt_project), iceberg_commits(dbt_project, "history")
    model = dbt_project.root / "models" / "history.sql"
    original = model.read_text()
    source = "select * from {{ target.schema }}.raw_events"
    assert source in original

    # Each select's columns (instead of *), and what its failure must say.
    refused = {
        "id, name, op, cast(ts as string) as ts, lsn, before_id": [
            "the event time (event_order_by's first column, ts) is of type string",
            "to_timestamp(ts)",
        ],
        "*, map('n', name) as attrs": [
            "attrs (map<string,string>) hold a map",
            "array_sort(map_entries(attrs)) as attrs",
        ],
        "*, null as note, array() as tags": [
            "note (void), tags (array<void>) are an untyped NULL",
            "cast(null as string) as note",
        ],
        "*, name as scd2_values": ["['scd2_values'] start with scd2_"],
        "*, name as `e-Mail`": ["['e-mail'] are not plain names", "`e-mail` as e_mail"],
        # Spark reads an unquoted true, false or null as a value, not a column.
        "*, name as `true`": ["['true'] are not plain names", "`true` as true_value"],
        "id, name, op, ts, lsn, cast(before_id as string) as before_id": [
            "event_old_key_columns: before_id is string but the key column it stands for, id,"
            " is int",
            "cast(before_id as int) as before_id",
        ],
    }
    for columns, parts in refused.items():
        select = f"select {columns} from {{{{ target.schema }}}}.raw_events"
        model.write_text(original.replace(source, select))
        message = failure(dbt_project)
        for part in parts:
            assert part in message, (columns, message)

    assert versions(dbt_project) == rows
    assert iceberg_commits(dbt_project, "history") == commits


def deletion_history(project: ScratchProject, table: str = "history") -> list[tuple]:
    """(id, name, start hour, end hour, dbt_is_deleted) per version, in validity order."""
    rows = project.spark.sql(
        f"""
        select id, name, hour(dbt_valid_from) as start, hour(dbt_valid_to) as end, dbt_is_deleted
        from {project.table(table)} order by dbt_valid_from
        """
    ).collect()
    return [tuple(r) for r in rows]


def test_dbt_valid_to_current_marks_the_open_versions(dbt_project: ScratchProject) -> None:
    """dbt_valid_to_current, as for snapshots: the open versions' dbt_valid_to, deletion records
    of new_record included; a replay writes nothing; changed later, the run fails (the table's
    marks). Snapshot settings an events model says otherwise (strategy, updated_at...) fail
    instead of being ignored, as dbt_valid_to_current was."""
    current = "dbt_valid_to_current=\"to_timestamp('9999-12-31')\", hard_deletes='new_record',"
    write_model(dbt_project, current)
    textbook_runs(dbt_project)
    rows = dbt_project.spark.sql(
        f"select id, name, dbt_valid_from, dbt_valid_to, dbt_is_deleted "
        f"from {dbt_project.table('history')} order by id, event_opened_position"
    ).collect()
    end = datetime(9999, 12, 31)
    assert [tuple(r) for r in rows] == [
        (1, "Alice", at(0), at(1), "False"),
        (1, "Angela", at(1), end, "False"),
        (2, "Bob", at(0), at(2), "False"),
        (2, "Bob", at(2), at(3), "True"),  # the deletion record, closed by the re-creation
        (2, "Carol", at(3), end, "False"),
    ]
    assert_generic_tests_pass(dbt_project)
    commits = iceberg_commits(dbt_project, "history")
    run(dbt_project)
    assert iceberg_commits(dbt_project, "history") == commits

    write_model(dbt_project, current.replace("9999", "2999"))
    assert "open versions with dbt_valid_to = 9999-12-31 00:00:00" in failure(dbt_project)
    write_model(dbt_project, "updated_at='ts', strategy='check',")
    message = failure(dbt_project)
    assert "strategy is a snapshot setting, which scd2_events does not read" in message
    assert "updated_at is a snapshot setting" in message
    # Settings that were misread or ignored: a role with no code (every create became an
    # unknown operation), partition_by, a quarantine in another schema (refused only when an
    # event was set aside), an empty value list (read as every column), a value column named
    # twice, a misspelt role of snapshot_meta_column_names (ignored), two added columns of one
    # name or one that needs quoting (Spark's errors), a key named twice.
    for config, expected in [
        ("event_op_codes={'create': none},", "event_op_codes gives create no code (None)"),
        ("partition_by=['name'],", "partition_by is not read by scd2_events"),
        ("clustered_by=['id'], buckets=4,", "clustered_by is not read by scd2_events"),
        ("on_schema_change='sync_all_columns',", "would drop the columns the events no"),
        ("on_schema_change='drop',", "on_schema_change must be 'append_new_columns'"),
        ("event_quarantine='other.q',", "event_quarantine is the quarantine table's name"),
        ("event_value_columns=[],", "event_value_columns is empty"),
        (
            "event_value_columns=['name', 'Name'],",
            "event_value_columns names a column twice: ['name', 'name']",
        ),
        (
            "snapshot_meta_column_names={'dbt_valid_too': 'valid_to'},",
            "snapshot_meta_column_names names dbt_valid_too, which dbt does not know",
        ),
        (
            "snapshot_meta_column_names={'dbt_valid_from': 'valid', 'dbt_valid_to': 'VALID'},",
            "the columns the table adds would have the name(s) valid twice",
        ),
        (
            "snapshot_meta_column_names={'dbt_valid_to': 'valid to'},",
            "gives column name(s) ['valid to'] that need quoting",
        ),
    ]:
        write_model(dbt_project, config)
        assert expected in failure(dbt_project), config
    # A bad setting fails before the model's pre-hooks run (they ran first, and wrote).
    hook = "create table {{ target.schema }}.hook_ran (x int)"
    write_model(dbt_project, f"hard_deletes='bogus', pre_hook=\"{hook}\",")
    assert "hard_deletes must be 'invalidate', 'new_record' or 'ignore'" in failure(dbt_project)
    assert not dbt_project.spark.catalog.tableExists(dbt_project.table("hook_ran"))
    model = dbt_project.root / "models" / "history.sql"
    # An enforced contract, which dbt wants with every column's type, was ignored.
    write_model(dbt_project, "contract={'enforced': true},")
    typed = [{"name": n, "data_type": t} for n, t in [("id", "int"), ("name", "string")]]
    dbt_project.write(
        "models/history.yml",
        yaml.safe_dump({"version": 2, "models": [{"name": "history", "columns": typed}]}),
    )
    assert "contract: {enforced: true} is not read" in failure(dbt_project)
    # The key as its own old key: no key change could ever be seen.
    write_model(dbt_project)
    model.write_text(model.read_text().replace("columns=['before_id']", "columns=['id']"))
    assert "event_old_key_columns names the unique_key columns themselves ['id']" in (
        failure(dbt_project)
    )
    write_model(dbt_project)
    model.write_text(model.read_text().replace("unique_key='id'", "unique_key=['id', 'ID']"))
    assert "unique_key names a column twice: ['id', 'id']" in failure(dbt_project)
    write_model(dbt_project, "dbt_valid_to_current='current_timestamp()',")
    assert "scd2_events model history: dbt_valid_to_current (current_timestamp()) gave" in (
        failure(dbt_project)
    )
    assert iceberg_commits(dbt_project, "history") == commits


def test_a_quarantine_named_like_another_table_is_refused(dbt_project: ScratchProject) -> None:
    """event_quarantine names a table of its own: named like the model itself, a source, another
    model's table or another scd2_events model's quarantine (found in dbt's graph), or a table
    outside dbt that is not a quarantine, the run fails before anything is written. It had added
    the quarantine's columns and a malformed event to the model's own table (then failed), to
    the source (which every later run refused), and two models sharing one quarantine both
    created it in one dbt run (Iceberg's AlreadyExistsException)."""
    quarantining = "on_malformed_event='quarantine',"
    write_model(dbt_project, quarantining)
    write_events(dbt_project, [ev("c", 1, "A", 0)])
    run(dbt_project)
    # Day 2: an update of 1 and an unknown operation, which the quarantine takes.
    write_events(dbt_project, [ev("u", 1, "B", 1, old=1), ev("zz", 3, "C", 2)])
    raw = dbt_project.table("raw_events")
    state = {
        name: (all_rows(dbt_project, name), iceberg_commits(dbt_project, name))
        for name in ("history", "raw_events")
    }

    def refused(config: str) -> str:
        write_model(dbt_project, quarantining + config)
        message = failure(dbt_project)
        for name, before in state.items():
            assert (all_rows(dbt_project, name), iceberg_commits(dbt_project, name)) == before
        tables = dbt_project.spark.sql(f"show tables in {dbt_project.schema}").collect()
        assert {t.tableName for t in tables} == {"history", "raw_events"}
        return message

    schema = dbt_project.schema
    message = refused("event_quarantine='HISTORY',")
    assert f"the quarantine table {schema}.HISTORY (event_quarantine, default" in message
    assert "is this model's own table" in message
    assert "event_quarantine='history__quarantine'" in message

    # Another model's table, and the default name taken by it.
    dbt_project.write("models/history__quarantine.sql", "select 1 as one")
    message = refused("")
    assert "is the table of model history__quarantine" in message
    assert "event_quarantine='history__set_aside'" in message
    (dbt_project.root / "models" / "history__quarantine.sql").unlink()

    # Another scd2_events model's quarantine, its default one or one it names.
    other = (
        "{{{{ config(materialized='scd2_events', unique_key='id', event_order_by=['ts', 'lsn']"
        "{}) }}}} select * from {{{{ target.schema }}}}.raw_events"
    )
    dbt_project.write("models/other.sql", other.format(""))
    assert "is also the quarantine of scd2_events model other" in refused(
        "event_quarantine='other__quarantine',"
    )
    dbt_project.write("models/other.sql", other.format(", event_quarantine='shared'"))
    assert "is also the quarantine of scd2_events model other" in refused(
        "event_quarantine='shared',"
    )
    (dbt_project.root / "models" / "other.sql").unlink()

    # A source, declared: found in the graph, before the events are read.
    sources = {
        "version": 2,
        "sources": [{"name": "landing", "schema": schema, "tables": [{"name": "raw_events"}]}],
    }
    dbt_project.write("models/sources.yml", yaml.safe_dump(sources))
    assert "is the table of source landing.raw_events" in refused("event_quarantine='raw_events',")
    (dbt_project.root / "models" / "sources.yml").unlink()

    # The same table undeclared: refused where the quarantine is written.
    message = refused("event_quarantine='raw_events',")
    assert f"its quarantine table {raw} (event_quarantine, default" in message, message
    assert "exists and is not a quarantine (no column(s) ['scd2_reason'," in message
    assert "Nothing was written" in message

    # Its own quarantine, created on first use and used again.
    write_model(dbt_project, quarantining)
    run(dbt_project)
    assert quarantined(dbt_project) == [(3, "C")]
    assert brief(versions(dbt_project)) == [(1, "A", 0, 1, "update"), (1, "B", 1, None, None)]


def test_a_column_without_values_that_gets_another_type_fails_and_the_advice_works(
    dbt_project: ScratchProject,
) -> None:
    """A value column that held no value in any version (typed bigint by a first batch
    without values) and now brings values of another type fails the run, writing nothing, with
    the statements that retype it by hand, losing nothing; after them the run takes the new
    values (the table still ends with its metadata columns)."""
    write_model(dbt_project)
    write_events(
        dbt_project, [(1, "A", "c", at(0), 0, None, None)], ddl=EVENTS_DDL + ", note bigint"
    )
    run1 = run(dbt_project).invocation_id
    before = (all_rows(dbt_project, "history"), iceberg_commits(dbt_project, "history"))
    write_events(dbt_project, [(1, "A", "u", at(1), 0, 1, "vip")], ddl=EVENTS_DDL + ", note string")
    message = failure(dbt_project)
    assert "note is bigint in the table but string in the events" in message, message
    table = dbt_project.table("history")
    assert f"But note hold(s) no value in any version of {table}" in message, message
    assert (all_rows(dbt_project, "history"), iceberg_commits(dbt_project, "history")) == before

    statements = re.search(r"it held only NULLs\): (.*)\. Then run again", message).group(1)
    assert statements.split("; ")[-1] == f"alter table {table} alter column `note` after `name`"
    for statement in statements.split("; "):
        dbt_project.spark.sql(statement)
    run2 = run(dbt_project).invocation_id
    rows = dbt_project.spark.sql(
        f"select id, name, note, audit_insert_process_id, audit_update_process_id from {table} "
        "order by dbt_valid_from"
    ).collect()
    assert [tuple(r) for r in rows] == [(1, "A", None, run1, run2), (1, "A", "vip", run2, None)]
    assert_generic_tests_pass(dbt_project)


def test_event_times_at_or_after_the_high_end_are_malformed(dbt_project: ScratchProject) -> None:
    """An event at or after the high end of open versions (scd2_high_end_ts, 9999-12-31
    23:59:59 UTC; and dbt_valid_to_current where set) would open a version that ends before it
    starts: it is malformed, failing the run before anything is written, or set aside with
    on_malformed_event='quarantine'. A second before the high end is an event like any other.
    The session is UTC, as the tests' Spark is configured."""
    high_end = datetime(9999, 12, 31, 23, 59, 59)

    def at_time(key: int, name: str, when: datetime) -> tuple:
        return (key, name, "c", when, 0, None)

    write_model(dbt_project)
    write_events(
        dbt_project,
        [
            ev("c", 1, "A", 0),
            at_time(2, "B", high_end),
            at_time(3, "C", high_end + timedelta(microseconds=999_999)),
        ],
    )
    message = failure(dbt_project)
    assert "2 malformed event(s)" in message, message
    assert "event time at or after the high end of open versions" in message, message
    assert "Nothing was written" in message, message
    assert not dbt_project.spark.catalog.tableExists(dbt_project.table("history"))

    write_model(dbt_project, "on_malformed_event='quarantine',")
    run(dbt_project)
    assert brief(versions(dbt_project)) == [(1, "A", 0, None, None)]
    reason = "malformed: event time at or after the high end of open versions (scd2_high_end_ts)"
    assert quarantined(dbt_project, "id, scd2_reason") == [(2, reason), (3, reason)]

    write_events(dbt_project, [at_time(2, "B", high_end - timedelta(seconds=1))])
    run(dbt_project)
    rows = versions(dbt_project)
    assert [(r["id"], r["dbt_valid_from"], r["dbt_valid_to"]) for r in rows] == [
        (1, at(0), None),
        (2, high_end - timedelta(seconds=1), None),
    ]
    assert_generic_tests_pass(dbt_project)

    # Beside dbt_valid_to_current, an event at or after it.
    write_model(
        dbt_project,
        "dbt_valid_to_current=\"to_timestamp('2099-12-31')\", on_malformed_event='quarantine',",
        name="dated",
        source="raw_dated",
    )
    write_events(
        dbt_project, [ev("c", 1, "A", 0), at_time(2, "B", datetime(2099, 12, 31))], "raw_dated"
    )
    dbt_project.dbt("run", "--select", "dated")
    dated = dbt_project.spark.sql(
        f"select id, scd2_reason from {dbt_project.table('dated__quarantine')}"
    ).collect()
    assert [tuple(r) for r in dated] == [
        (2, "malformed: event time at or after dbt_valid_to_current")
    ]
    assert [r.id for r in dbt_project.spark.table(dbt_project.table("dated")).collect()] == [1]

    # A timestamp_ntz event time is read as UTC whatever the session's zone: at the high end
    # in Tokyo too, where Spark's own cast reads it as 14:59:59 UTC.
    write_model(dbt_project, "on_malformed_event='quarantine',", name="ntz", source="raw_ntz")
    ntz_events = [ev("c", 1, "A", 0), at_time(2, "B", high_end)]
    write_events(
        dbt_project, ntz_events, "raw_ntz", EVENTS_DDL.replace("timestamp", "timestamp_ntz")
    )
    spark = dbt_project.spark
    zone = spark.conf.get("spark.sql.session.timeZone")
    try:
        spark.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")
        dbt_project.dbt("run", "--select", "ntz")
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)
    ntz = spark.sql(f"select id, scd2_reason from {dbt_project.table('ntz__quarantine')}")
    assert [tuple(r) for r in ntz.collect()] == [(2, reason)]


def test_a_changed_high_end_fails_and_writes_nothing(dbt_project: ScratchProject) -> None:
    """scd2_high_end_ts changed after the table was built would give new open versions another
    effective end than those already there: the run fails before writing, and the update its
    message proposes moves the open versions, after which the run goes through."""
    write_model(dbt_project)
    write_events(dbt_project, [ev("c", 1, "Alice", 0), ev("c", 2, "Bob", 0)])
    run(dbt_project)
    write_events(dbt_project, [ev("u", 1, "Angela", 1, old=1)])
    commits = iceberg_commits(dbt_project, "history")
    new_high_end = ("--vars", "{scd2_high_end_ts: '2999-12-31'}")
    message = failure(dbt_project, *new_high_end)
    assert "effective_end_ts = 9999-12-31 23:59:59, but scd2_high_end_ts is 2999" in message
    assert iceberg_commits(dbt_project, "history") == commits
    assert brief(versions(dbt_project)) == [(1, "Alice", 0, None, None), (2, "Bob", 0, None, None)]

    (update,) = re.findall(r"(update \S+ set .*)\.$", message.strip(), re.MULTILINE)
    dbt_project.spark.sql(update)
    run(dbt_project, *new_high_end)
    rows = versions(dbt_project)
    assert brief(rows) == [
        (1, "Alice", 0, 1, "update"),
        (1, "Angela", 1, None, None),
        (2, "Bob", 0, None, None),
    ]
    assert [str(r["effective_end_ts"]) for r in rows if r["dbt_valid_to"] is None] == [
        "2999-12-31 00:00:00",
        "2999-12-31 00:00:00",
    ]


def test_deletion_records_with_new_record(dbt_project: ScratchProject) -> None:
    write_model(dbt_project, "hard_deletes='new_record',")
    write_events(dbt_project, [ev("c", 1, "A", 0)])
    run(dbt_project)
    # run 2: id 1 deleted at 2, created again at 3, moved to id 3 at 5 (a key change)
    write_events(
        dbt_project,
        [
            ev("d", 1, None, 2),
            ev("c", 1, "B", 3),
            ev("d", 2, None, 4),
            ev("u", 3, "C", 5, old=1),
        ],
    )
    run(dbt_project)
    # A delete of a key that never existed (id 2) changes nothing; the key change leaves a
    # deletion record on the old key, as a delete does.
    assert sorted(deletion_history(dbt_project)) == [
        (1, "A", 0, 2, "False"),
        (1, "A", 2, 3, "True"),
        (1, "B", 3, 5, "False"),
        (1, "B", 5, None, "True"),
        (3, "C", 5, None, "False"),
    ]
    # run 3: id 1 comes back at 6: its deletion record closes as an update.
    write_events(dbt_project, [ev("c", 1, "D", 6)])
    run(dbt_project)
    closed = dbt_project.spark.sql(
        f"""
        select hour(dbt_valid_from), hour(dbt_valid_to), dbt_is_deleted, event_closed_as
        from {dbt_project.table("history")} where id = 1 and hour(dbt_valid_from) >= 5
        order by dbt_valid_from
        """
    ).collect()
    assert [tuple(r) for r in closed] == [(5, 6, "True", "update"), (6, None, "False", None)]
    assert_generic_tests_pass(dbt_project)


def test_a_lone_no_op_adds_no_version_and_a_re_creation_with_the_last_values_is_kept(
    dbt_project: ScratchProject,
) -> None:
    """A no-op adds no version (its one commit only records its position on the open version);
    a deletion record holds the last values, yet re-creating the key with those values opens a
    version."""
    write_model(dbt_project, "hard_deletes='new_record',")
    table = dbt_project.table("history")
    # run 1: A created at 0
    write_events(dbt_project, [ev("c", 1, "A", 0)])
    run(dbt_project)
    # run 2: an update of id 1 to the value it has: no version, one commit that moves the open
    # version's mark to 1
    commits = f"select count(*) from {table}.snapshots"
    before = dbt_project.spark.sql(commits).first()[0]
    write_events(dbt_project, [ev("u", 1, "A", 1, old=1)])
    run(dbt_project)
    assert dbt_project.spark.sql(commits).first()[0] == before + 1
    assert last_positions(dbt_project) == [(1, 0, 1)]
    assert deletion_history(dbt_project) == [(1, "A", 0, None, "False")]
    # the same batch again: a replay, nothing written, not even a commit
    run(dbt_project)
    assert dbt_project.spark.sql(commits).first()[0] == before + 1
    # run 3: deleted at 2 (deletion record with A); run 4: created again at 3 with A
    write_events(dbt_project, [ev("d", 1, None, 2, old=1)])
    run(dbt_project)
    write_events(dbt_project, [ev("c", 1, "A", 3)])
    run(dbt_project)
    rows = deletion_history(dbt_project)
    assert rows == [
        (1, "A", 0, 2, "False"),
        (1, "A", 2, 3, "True"),
        (1, "A", 3, None, "False"),
    ]
    assert_generic_tests_pass(dbt_project)


def last_positions(project: ScratchProject, table: str = "history") -> list[tuple]:
    """(id, opened hour, last position's hour) of each open version."""
    rows = project.spark.sql(
        f"""
        select id, event_opened_position.ts as opened, event_last_position.ts as last
        from {project.table(table)}
        where dbt_valid_to is null
        order by id
        """
    ).collect()
    hour = lambda value: int((value - T0).total_seconds() // 3600)  # noqa: E731
    return [(r.id, hour(r.opened), hour(r.last)) for r in rows]


def test_an_event_older_than_a_no_op_already_taken_in_is_late(
    dbt_project: ScratchProject,
) -> None:
    """A no-op moves its key's mark: an event older than it that arrives later would rewrite
    history (the key's values after the no-op are the open version's), so it is set aside as
    late, whether the no-op came alone or after a change of the same batch."""
    write_model(dbt_project)
    commits = f"select count(*) from {dbt_project.table('history')}.snapshots"
    # run 1 (the first: the table is created): id 1 A and id 2 A created at 0; id 3 A at 0,
    # then A again at 1, which changes nothing but is its mark
    write_events(
        dbt_project,
        [ev("c", 1, "A", 0), ev("c", 2, "A", 0), ev("c", 3, "A", 0), ev("u", 3, "A", 1, old=3)],
    )
    run(dbt_project)
    assert last_positions(dbt_project) == [(1, 0, 0), (2, 0, 0), (3, 0, 1)]
    # run 2: id 1 updated to A at 5 (a lone no-op); id 2 to B at 1, then to B again at 4
    run_2 = [ev("u", 1, "A", 5, old=1), ev("u", 2, "B", 1, old=2), ev("u", 2, "B", 4, old=2)]
    write_events(dbt_project, run_2)
    run(dbt_project)
    expected = [
        (1, "A", 0, None, None),
        (2, "A", 0, 1, "update"),
        (2, "B", 1, None, None),
        (3, "A", 0, None, None),
    ]
    assert brief(versions(dbt_project)) == expected
    assert last_positions(dbt_project) == [(1, 0, 5), (2, 1, 4), (3, 0, 1)]
    # run 2's batch again: replays only, no commit
    before = dbt_project.spark.sql(commits).first()[0]
    run(dbt_project)
    assert dbt_project.spark.sql(commits).first()[0] == before
    assert brief(versions(dbt_project)) == expected
    # run 3: id 1 to C at 3 and id 2 to C at 2, both older than their key's no-op: late.
    # id 1 to A at 4 agrees with the history there: a duplicate, dropped.
    # id 3 to B at 0 (before its mark, 1, where the history holds A): late too.
    write_events(
        dbt_project,
        [
            ev("u", 1, "C", 3, old=1),
            ev("u", 2, "C", 2, old=2),
            ev("u", 1, "A", 4, old=1),
            ev("u", 3, "B", 0, lsn=1, old=3),
        ],
    )
    run(dbt_project)
    assert dbt_project.spark.sql(commits).first()[0] == before
    assert brief(versions(dbt_project)) == expected
    quarantine = dbt_project.spark.sql(
        f"select id, name, scd2_reason from {dbt_project.table('history__quarantine')} order by id"
    ).collect()
    assert [(r.id, r.name) for r in quarantine] == [(1, "C"), (2, "C"), (3, "B")]
    assert all(r.scd2_reason.startswith("late") for r in quarantine)
    # run 4: a change after the no-op applies as usual
    write_events(dbt_project, [ev("u", 1, "D", 6, old=1)])
    run(dbt_project)
    assert brief(versions(dbt_project))[:2] == [
        (1, "A", 0, 6, "update"),
        (1, "D", 6, None, None),
    ]
    assert_generic_tests_pass(dbt_project)


def test_a_table_without_the_last_position_column_keeps_working(
    dbt_project: ScratchProject,
) -> None:
    """A table built before event_last_position existed: runs go on without recording no-ops
    (no commit for a lone no-op); once the column is added, they are recorded."""
    write_model(dbt_project)
    table = dbt_project.table("history")
    write_events(dbt_project, [ev("c", 1, "A", 0)])
    run(dbt_project)
    dbt_project.spark.sql(f"alter table {table} drop column event_last_position")
    commits = f"select count(*) from {table}.snapshots"
    before = dbt_project.spark.sql(commits).first()[0]
    write_events(dbt_project, [ev("u", 1, "A", 2, old=1)])
    run(dbt_project)
    assert dbt_project.spark.sql(commits).first()[0] == before
    # B at 1, older than the no-op at 2 that was not recorded: applied, as before the column
    write_events(dbt_project, [ev("u", 1, "B", 1, old=1)])
    run(dbt_project)
    assert brief(versions(dbt_project)) == [(1, "A", 0, 1, "update"), (1, "B", 1, None, None)]
    dbt_project.spark.sql(
        f"alter table {table} add column event_last_position struct<ts: timestamp, lsn: bigint>"
    )
    write_events(dbt_project, [ev("u", 1, "B", 4, old=1)])
    run(dbt_project)
    assert last_positions(dbt_project) == [(1, 1, 4)]


def test_deletes_that_change_nothing(dbt_project: ScratchProject) -> None:
    """A delete of a deleted key: with hard_deletes='new_record' the deletion record takes in its
    position, so an older create arriving later is late; with 'invalidate' there is no open
    version to hold it (a known limit: the older create is applied), and a replay writes no
    commit. One model per mode, over the same events."""
    modes = ("new_record", "invalidate")
    for mode in modes:
        write_model(dbt_project, f"hard_deletes='{mode}',", name=f"history_{mode}")

    def run_both() -> None:
        dbt_project.dbt("run", "--select", *(f"history_{mode}" for mode in modes))

    # run 1: A created at 0; run 2: deleted at 2, deleted again at 4
    write_events(dbt_project, [ev("c", 1, "A", 0)])
    run_both()
    write_events(dbt_project, [ev("d", 1, None, 2, old=1), ev("d", 1, None, 4, old=1)])
    run_both()
    # the same batch again: nothing written
    before = {mode: iceberg_commits(dbt_project, f"history_{mode}") for mode in modes}
    run_both()
    assert {mode: iceberg_commits(dbt_project, f"history_{mode}") for mode in modes} == before
    # run 3: created with B at 3, before the second delete
    write_events(dbt_project, [ev("c", 1, "B", 3)])
    run_both()

    assert last_positions(dbt_project, "history_new_record") == [(1, 2, 4)]
    assert deletion_history(dbt_project, "history_new_record") == [
        (1, "A", 0, 2, "False"),
        (1, "A", 2, None, "True"),
    ]
    late = dbt_project.spark.sql(
        f"select id, name, scd2_reason from {dbt_project.table('history_new_record')}__quarantine"
    ).collect()
    assert [(r.id, r.name, r.scd2_reason[:4]) for r in late] == [(1, "B", "late")]

    assert brief(versions(dbt_project, "history_invalidate")) == [
        (1, "A", 0, 2, "delete"),
        (1, "B", 3, None, None),
    ]


def test_new_deletes_of_absent_keys_write_nothing_and_an_update_beside_them_writes(
    dbt_project: ScratchProject,
) -> None:
    """Deletes after their key's mark that find no open version (a key deleted already, a key
    never seen) are new events that change nothing: no commit. Beside an update, the run
    writes, and only the update changes the history."""
    write_model(dbt_project)
    # run 1: A (key 1) and C (key 2) created at 0; run 2: key 1 deleted at 2
    write_events(dbt_project, [ev("c", 1, "A", 0), ev("c", 2, "C", 0)])
    run(dbt_project)
    write_events(dbt_project, [ev("d", 1, None, 2, old=1)])
    run(dbt_project)
    expected = [(1, "A", 0, 2, "delete"), (2, "C", 0, None, None)]
    assert brief(versions(dbt_project)) == expected
    # run 3: key 1 deleted again at 5, key 3 (never created) deleted at 5: nothing written
    commits = iceberg_commits(dbt_project, "history")
    write_events(dbt_project, [ev("d", 1, None, 5, old=1), ev("d", 3, None, 5, old=3)])
    run(dbt_project)
    assert iceberg_commits(dbt_project, "history") == commits
    assert brief(versions(dbt_project)) == expected
    # run 4: the same deletes and C updated to D at 6: one commit, one version closed, one new
    write_events(
        dbt_project,
        [ev("d", 1, None, 5, old=1), ev("d", 3, None, 5, old=3), ev("u", 2, "D", 6, old=2)],
    )
    run(dbt_project)
    assert iceberg_commits(dbt_project, "history") == commits + 1
    assert brief(versions(dbt_project)) == [
        (1, "A", 0, 2, "delete"),
        (2, "C", 0, 6, "update"),
        (2, "D", 6, None, None),
    ]
    assert_generic_tests_pass(dbt_project)


def test_both_writes_close_every_open_version_and_keep_untouched_ones(
    dbt_project: ScratchProject,
) -> None:
    """A later run replaces the open partition and adds its own in one overwrite; on a table
    whose partitioning was changed by hand it MERGEs instead. Either way: a batch that closes
    every open version leaves none open, and versions the batch does not touch are kept
    as they were. One model per write, over the same events."""
    names = ("history_overwrite", "history_merge")
    for name in names:
        write_model(dbt_project, name=name)

    def run_both() -> None:
        dbt_project.dbt("run", "--select", *names)

    # run 1: keys 1 and 2 at 0; then the second table is partitioned otherwise
    write_events(dbt_project, [ev("r", 1, "A", 0), ev("r", 2, "B", 0)])
    run_both()
    dbt_project.spark.sql(
        f"alter table {dbt_project.table('history_merge')} "
        "replace partition field audit_update_process_id with bucket(2, id)"
    )
    # run 2: key 1 updated at 1, key 3 created at 1, key 2 untouched
    write_events(dbt_project, [ev("u", 1, "A2", 1, old=1), ev("c", 3, "C", 1)])
    run_both()
    # run 3: every open version deleted (2 and 3) or deleted then re-created (1)
    write_events(
        dbt_project,
        [
            ev("d", 1, None, 2, old=1),
            ev("d", 2, None, 2, old=2),
            ev("d", 3, None, 3, old=3),
            ev("c", 1, "A3", 4),
            ev("d", 1, None, 5, old=1),
        ],
    )
    commits = {name: iceberg_commits(dbt_project, name) for name in names}
    run_both()

    expected = [
        (1, "A", 0, 1, "update"),
        (1, "A2", 1, 2, "delete"),
        (1, "A3", 4, 5, "delete"),
        (2, "B", 0, 2, "delete"),
        (3, "C", 1, 3, "delete"),
    ]
    for name in names:
        assert brief(versions(dbt_project, name)) == expected, name
        # one commit per run
        assert iceberg_commits(dbt_project, name) == commits[name] + 1, name
    # The overwrite's table keeps its layout: no open partition is left, and each run's
    # closed versions are in its own partition.
    partitions = dbt_project.spark.sql(
        f"select partition.audit_update_process_id as run, record_count "
        f"from {dbt_project.table('history_overwrite')}.partitions order by record_count"
    ).collect()
    assert [r.record_count for r in partitions] == [1, 4], partitions
    assert None not in {r.run for r in partitions}
    # The overwrite was committed to the run's own branch, then main moved to it: no branch
    # is left.
    assert refs(dbt_project, "history_overwrite") == ["main"]


def refs(project: ScratchProject, table: str) -> list[str]:
    rows = project.spark.sql(f"select name from {project.table(table)}.refs order by name")
    return [r.name for r in rows.collect()]


PUBLISH_MACRO = """
{% macro scd2_test_publish_after_another_commit() %}
    {% set relation = api.Relation.create(schema=target.schema, identifier='history') %}
    {% set base = scd2_audit._scd2_events_main_snapshot(relation) %}
    {% do run_query('alter table ' ~ relation ~ ' create branch scd2_run_test as of version '
        ~ base) %}
    {% do run_query('insert into ' ~ relation ~ '.branch_scd2_run_test select * from '
        ~ relation ~ ' where id = 1') %}
    {% do run_query('insert into ' ~ relation ~ ' select * from ' ~ relation
        ~ ' where id = 2') %}
    {% do scd2_audit._scd2_events_publish({'name': 'history'}, relation, 'scd2_run_test',
        base) %}
{% endmacro %}
"""


def test_a_run_whose_table_changed_meanwhile_writes_nothing_and_a_dead_runs_branch_goes(
    dbt_project: ScratchProject, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run writes into a branch of its own at the snapshot it read, and moves main there
    only if nothing else committed meanwhile: here another commit lands between the branch's
    write and its publication, which fails, leaving main at that commit and no branch. A
    branch left by a killed run is dropped by the next run that writes."""
    write_model(dbt_project)
    write_events(dbt_project, [ev("r", 1, "A", 0), ev("r", 2, "B", 0)])
    run(dbt_project)
    dbt_project.write("macros/scd2_test_publish.sql", PUBLISH_MACRO)
    table = dbt_project.table("history")

    capsys.readouterr()
    with pytest.raises(DbtStepError):
        dbt_project.dbt("run-operation", "scd2_test_publish_after_another_commit")
    message = capsys.readouterr().out  # dbt prints a run-operation's error
    assert "another write committed to" in message and "Nothing was written" in message, message
    # main holds the other commit (B twice), not the branch's (A twice); no branch is left
    assert sorted(r.id for r in dbt_project.spark.table(table).collect()) == [1, 2, 2]
    assert refs(dbt_project, "history") == ["main"]

    # A killed run's branch, then a run that writes: the branch is gone, the run applied.
    dbt_project.spark.sql(f"delete from {table} where id = 2 and name = 'B'")
    dbt_project.spark.sql(f"alter table {table} create branch scd2_run_killed")
    write_events(dbt_project, [ev("u", 1, "A2", 1, old=1)])
    run(dbt_project)
    assert refs(dbt_project, "history") == ["main"]
    assert brief(versions(dbt_project)) == [(1, "A", 0, 1, "update"), (1, "A2", 1, None, None)]


def test_debezium_relation_is_checked_and_sequence_names_the_source_fields(
    dbt_project: ScratchProject, tmp_path
) -> None:
    """MySQL's Debezium events (no envelope) carry binlog file and pos, not PostgreSQL's lsn:
    the default sequence fails with what to pass, and sequence=['file', 'pos'] orders them.
    A relation that is not Debezium's fails with its columns."""
    folder = tmp_path / "mysql"
    folder.mkdir()
    t0 = int(T0.replace(tzinfo=UTC).timestamp() * 1000)
    hour = 3_600_000

    def change(op, before, after, ms, pos):
        source = {"ts_ms": ms, "file": "binlog.000003", "pos": pos}
        return json.dumps({"before": before, "after": after, "op": op, "source": source})

    # Two changes in the same millisecond: only pos orders them.
    lines = [
        change("r", None, {"id": 1, "name": "A"}, t0, 100),
        change("u", {"id": 1, "name": "A"}, {"id": 1, "name": "B"}, t0 + hour, 200),
        change("u", {"id": 1, "name": "B"}, {"id": 1, "name": "C"}, t0 + hour, 300),
    ]
    (folder / "part-0.json").write_text("\n".join(lines) + "\n")
    write_events(dbt_project, [ev("c", 1, "A", 0)])
    dbt_project.spark.sql(
        f"create table {dbt_project.table('mysql_raw')} using json location '{folder}'"
    )

    def model(relation: str, arguments: str, order_by: str) -> None:
        dbt_project.write(
            "models/history.sql",
            f"""
            {{{{ config(
                materialized='scd2_events', unique_key='id', event_order_by={order_by},
            ) }}}}
            {{{{ scd2_audit.scd2_debezium_events(
                api.Relation.create(schema=target.schema, identifier='{relation}'),
                ['id']{arguments}) }}}}
            """,
        )

    model("mysql_raw", "", "['event_ts', 'event_lsn']")
    message = failure(dbt_project)
    assert "source has no field(s) ['lsn'] (its fields: file, pos, ts_ms)" in message, message
    assert "sequence=['file', 'pos', 'row'] for MySQL" in message, message

    model("raw_events", "", "['event_ts', 'event_lsn']")
    message = failure(dbt_project)
    assert "neither Debezium's op, before, after and source columns" in message, message
    assert not dbt_project.spark.catalog.tableExists(dbt_project.table("history"))

    # Batches of tombstones alone, without and with the envelope: Spark infers no column, or
    # a payload of text (its own INVALID_EXTRACT_BASE_FIELD_TYPE before).
    for name, line in (("nulls", "null"), ("enveloped", '{"schema":null,"payload":null}')):
        batch = tmp_path / name
        batch.mkdir()
        (batch / "part-0.json").write_text(f"{line}\n{line}\n")
        dbt_project.spark.sql(
            f"create table {dbt_project.table(name)} using json location '{batch}'"
        )
        model(name, "", "['event_ts', 'event_lsn']")
        message = failure(dbt_project)
        assert "no line of the relation holds a change" in message, message
        assert "Declare the relation's schema" in message, message
    # A relation not created yet: said so, not taken for a batch of tombstones.
    model("not_created_yet", "", "['event_ts', 'event_lsn']")
    message = failure(dbt_project)
    assert "not_created_yet): the relation does not exist" in message, message
    assert "tombstones" not in message, message

    model("mysql_raw", ", sequence=['file', 'pos']", "['event_ts', 'event_file', 'event_pos']")
    run(dbt_project)
    assert brief(versions(dbt_project)) == [
        (1, "A", 0, 1, "update"),
        (1, "B", 1, 1, "update"),
        (1, "C", 1, None, None),
    ]


def test_debezium_envelope(dbt_project: ScratchProject, tmp_path) -> None:
    """Kafka Connect's JSON lines (schema/payload envelope) through scd2_debezium_events."""
    folder = tmp_path / "debezium"
    folder.mkdir()

    def change(op, before, after, ms, lsn):
        payload = {
            "before": before,
            "after": after,
            "op": op,
            "ts_ms": ms + 5,
            "source": {"ts_ms": ms, "lsn": lsn, "table": "customers"},
        }
        return json.dumps({"schema": {}, "payload": payload})

    hour = 3_600_000
    t0 = int(T0.replace(tzinfo=UTC).timestamp() * 1000)
    lines = [
        change("r", None, {"id": 1, "name": "Alice"}, t0, 10),
        change("r", None, {"id": 2, "name": "Bob"}, t0, 11),
        change("u", {"id": 1, "name": "Alice"}, {"id": 1, "name": "Angela"}, t0 + hour, 12),
        change("d", {"id": 2, "name": "Bob"}, None, t0 + 2 * hour, 13),
        # The tombstone Kafka Connect writes after a delete (a null record): no change.
        "null",
        change("c", None, {"id": 2, "name": "Carol"}, t0 + 3 * hour, 14),
    ]
    (folder / "part-0.json").write_text("\n".join(lines) + "\n")
    dbt_project.spark.sql(f"create schema if not exists {dbt_project.schema}")
    dbt_project.spark.sql(
        f"create table {dbt_project.table('debezium_raw')} using json location '{folder}'"
    )
    write_debezium_model(dbt_project, config="event_old_key_columns=['before_id'],")
    run(dbt_project)
    expected = TEXTBOOK
    assert brief(versions(dbt_project)) == expected

    # A line Spark cannot parse is no tombstone: where the relation has Spark's
    # _corrupt_record column (inferred here, from that line) it fails the run as malformed,
    # and nothing is written.
    damaged = tmp_path / "debezium_damaged"
    damaged.mkdir()
    (damaged / "part-0.json").write_text("\n".join([*lines, '{"payload": {"op": "u", "bef']))
    dbt_project.spark.sql(
        f"create table {dbt_project.table('debezium_damaged')} using json location '{damaged}'"
    )
    model = dbt_project.root / "models" / "history.sql"
    model.write_text(model.read_text().replace("'debezium_raw'", "'debezium_damaged'"))
    commits = iceberg_commits(dbt_project, "history")
    message = failure(dbt_project)
    assert "1 malformed event(s)" in message, message
    # The line's text is the event's operation (JSON-escaped in the summary).
    assert "a line Spark could not read whole" in message and "bef" in message, message
    assert brief(versions(dbt_project)) == expected
    assert iceberg_commits(dbt_project, "history") == commits

    # A line Spark reads only in part (an age that is no number, under a declared schema with
    # _corrupt_record) fails the run too, naming it: it was applied with a NULL age.
    half = tmp_path / "debezium_half"
    half.mkdir()
    bad = change("u", {"id": 1, "name": "Angela"}, {"id": 1, "name": "A", "age": "thirty"}, t0, 15)
    (half / "part-0.json").write_text("\n".join([*lines, bad]) + "\n")
    row = "struct<id: bigint, name: string, age: bigint>"
    dbt_project.spark.sql(
        f"create table {dbt_project.table('debezium_half')} (schema string, payload struct<"
        f"op: string, before: {row}, after: {row}, ts_ms: bigint, source: struct<ts_ms: "
        f"bigint, lsn: bigint, table: string>>, _corrupt_record string) using json "
        f"location '{half}'"
    )
    model.write_text(model.read_text().replace("'debezium_damaged'", "'debezium_half'"))
    message = failure(dbt_project)
    assert "1 malformed event(s)" in message, message
    assert "a line Spark could not read whole" in message and "thirty" in message, message
    assert brief(versions(dbt_project)) == expected
    assert iceberg_commits(dbt_project, "history") == commits


def test_debezium_lines_of_the_other_converter_setting_are_no_tombstones(
    dbt_project: ScratchProject, tmp_path
) -> None:
    """A table over the topic's folder keeps the schema of its lines at its creation; lines
    written after the connector's schemas.enable changed have none of its columns and read as
    rows of NULLs, as a tombstone does. With _corrupt_record declared (a tombstone's is its
    text, `null`), they fail the run as malformed, naming the cause, and nothing is written
    (before, they were left out as tombstones: the update and the delete they held were
    lost without a word)."""
    ms, hour = T0_MS, HOUR_MS
    spark = dbt_project.spark
    spark.sql(f"create schema if not exists {dbt_project.schema}")
    row = "struct<id: bigint, name: string>"
    fields = f"op string, before {row}, after {row}, source struct<ts_ms: bigint, lsn: bigint>"
    shapes = {
        "plain": f"{fields}, _corrupt_record string",
        "enveloped": f"schema string, payload struct<{fields}>, _corrupt_record string",
    }

    def shaped(line: str, envelope: bool) -> str:
        """The line with Kafka Connect's schema/payload envelope, or as it is; a tombstone
        (`null`) is one in either shape."""
        if line == "null" or not envelope:
            return line
        return json.dumps({"schema": {"type": "struct"}, "payload": json.loads(line)})

    first = [
        debezium_line("r", None, {"id": 1, "name": "Alice"}, ms, 10),
        debezium_line("r", None, {"id": 2, "name": "Bob"}, ms, 11),
    ]
    later = [
        debezium_line("u", {"id": 1, "name": "Alice"}, {"id": 1, "name": "Angela"}, ms + hour, 20),
        debezium_line("d", {"id": 2, "name": "Bob"}, None, ms + 2 * hour, 30),
        "null",  # the delete's tombstone: left out in either shape
    ]
    for shape, ddl in shapes.items():
        folder = tmp_path / shape
        folder.mkdir()
        relation = f"{shape}_raw"
        envelope = shape == "enveloped"
        (folder / "part-0.json").write_text(
            "\n".join(shaped(line, envelope) for line in first) + "\n"
        )
        spark.sql(f"drop table if exists {dbt_project.table('history')}")
        spark.sql(
            f"create table {dbt_project.table(relation)} ({ddl}) using json location '{folder}'"
        )
        write_debezium_model(dbt_project, relation)
        run(dbt_project)
        assert brief(versions(dbt_project)) == [
            (1, "Alice", 0, None, None),
            (2, "Bob", 0, None, None),
        ]
        commits = iceberg_commits(dbt_project, "history")

        # The later lines in the other shape: malformed (both read alike, as NULLs, so they
        # are one event), nothing written.
        lines = [shaped(line, not envelope) for line in later]
        (folder / "part-1.json").write_text("\n".join(lines) + "\n")
        message = failure(dbt_project)
        assert "1 malformed event(s)" in message, message
        assert "a line without Debezium's op, before and after" in message, message
        assert "one converter setting (schemas.enable)" in message, message
        assert brief(versions(dbt_project)) == [
            (1, "Alice", 0, None, None),
            (2, "Bob", 0, None, None),
        ]
        assert iceberg_commits(dbt_project, "history") == commits

        # Rewritten in the table's shape, the same changes apply; the tombstone stays out.
        (folder / "part-1.json").write_text(
            "\n".join(shaped(line, envelope) for line in later) + "\n"
        )
        run(dbt_project)
        assert brief(versions(dbt_project)) == [
            (1, "Alice", 0, 1, "update"),
            (1, "Angela", 1, None, None),
            (2, "Bob", 0, 2, "delete"),
        ]


def connect_decimal(value: Decimal, scale: int) -> str:
    """A decimal as Kafka Connect's JsonConverter writes it: base64 of the unscaled value's
    big-endian two's complement bytes (Java's BigInteger.toByteArray)."""
    unscaled = int(value.scaleb(scale, Context(prec=80)))  # the default rounds to 28 digits
    size = unscaled.bit_length() // 8 + 1
    return base64.b64encode(unscaled.to_bytes(size, "big", signed=True)).decode()


# The row fields of a PostgreSQL table as Debezium describes them in Kafka Connect's schema
# envelope (time.precision.mode=adaptive, decimal.handling.mode=precise, its defaults).
LOGICAL_FIELDS = [
    {"type": "int32", "optional": False, "field": "id"},
    {"type": "string", "optional": True, "field": "name"},
    {"type": "int32", "optional": True, "name": "io.debezium.time.Date", "field": "birth"},
    {"type": "int64", "optional": True, "name": "io.debezium.time.MicroTimestamp", "field": "seen"},
    {"type": "int64", "optional": True, "name": "io.debezium.time.Timestamp", "field": "stamp"},
    {"type": "int64", "optional": True, "name": "io.debezium.time.NanoTimestamp", "field": "nanos"},
    {
        "type": "bytes",
        "optional": True,
        "name": "org.apache.kafka.connect.data.Decimal",
        "parameters": {"scale": "2", "connect.decimal.precision": "10"},
        "field": "price",
    },
    {
        "type": "bytes",
        "optional": True,
        "name": "org.apache.kafka.connect.data.Decimal",
        "parameters": {"scale": "10", "connect.decimal.precision": "38"},
        "field": "big",
    },
    {
        "type": "string",
        "optional": True,
        "name": "io.debezium.time.ZonedTimestamp",
        "field": "zoned",
    },
    {"type": "bytes", "optional": True, "field": "blob"},
    {
        "type": "bytes",
        "optional": True,
        "name": "org.apache.kafka.connect.data.Decimal",
        "parameters": {"scale": "0", "connect.decimal.precision": "38"},
        "field": "whole",
    },
    {"type": "string", "optional": True, "name": "io.debezium.time.IsoDate", "field": "iso"},
    {"type": "int64", "optional": True, "name": "io.debezium.time.MicroTimestamp", "field": "gone"},
]


def logical_line(op: str, after: dict, ms: int, lsn: int, fields=LOGICAL_FIELDS) -> str:
    """A create, read or update with Kafka Connect's schema envelope (``schema`` and
    ``payload``), its row ``after`` as the connector encodes it."""
    sides = [
        {"type": "struct", "fields": fields, "optional": True, "field": side}
        for side in ("before", "after")
    ]
    source = [{"type": "int64", "field": "ts_ms"}, {"type": "int64", "field": "lsn"}]
    schema = {
        "type": "struct",
        "fields": [
            *sides,
            {"type": "struct", "fields": source, "field": "source"},
            {"type": "string", "field": "op"},
        ],
    }
    payload = {"before": None, "after": after, "op": op, "source": {"ts_ms": ms, "lsn": lsn}}
    return json.dumps({"schema": schema, "payload": payload})


def test_debezium_schema_envelope_decodes_logical_types(
    dbt_project: ScratchProject, tmp_path
) -> None:
    """Where the lines carry Kafka Connect's schema, dates, timestamps, decimals and bytes
    are decoded from the numbers and base64 text Debezium writes for them; text that does
    not read as its type fails the run, and a field described two ways fails the model."""
    big = Decimal("1234567890123456789012345678.0123456789")  # 38 digits, beyond a double
    most_negative = Decimal("-" + "9" * 38)
    alice = {
        "id": 1,
        "name": "Alice",
        "birth": 19_000,
        "seen": 1_704_067_200_123_456,
        "stamp": 1_704_067_200_123,
        # .123456999 s: a double would round it to .123457
        "nanos": 1_704_067_200_123_456_999,
        "price": connect_decimal(Decimal("12.34"), 2),
        "big": connect_decimal(big, 10),
        "zoned": "2024-01-01T10:00:00.5+02:00",
        "blob": base64.b64encode(b"\x00\xffab").decode(),
        "whole": connect_decimal(Decimal(0), 0),
        "iso": "2024-01-01Z",  # IsoDate as Debezium writes it, with its UTC offset
        "gone": None,  # null on every line of the first batch: inferred as a string
    }
    bob = {
        "id": 2,
        "name": "Bob",
        "birth": -1,
        "seen": -1,
        "stamp": -1,
        "nanos": -1,
        "price": connect_decimal(Decimal("-0.05"), 2),
        "big": connect_decimal(big.copy_negate(), 10),
        "zoned": None,
        "blob": None,
        # The most negative value of 38 digits, 16 bytes
        "whole": connect_decimal(most_negative, 0),
        "iso": "1969-12-31Z",
        "gone": None,
    }
    angela = {**alice, "name": "Angela", "price": connect_decimal(Decimal("128.00"), 2)}
    lines = [
        logical_line("r", alice, T0_MS, 10),
        logical_line("r", bob, T0_MS, 11),
        logical_line("u", angela, T0_MS + HOUR_MS, 12),
    ]
    dbt_project.spark.sql(f"create schema if not exists {dbt_project.schema}")
    json_batch(dbt_project, tmp_path / "day1", lines)
    write_debezium_model(dbt_project)
    run(dbt_project)

    history = dbt_project.spark.table(dbt_project.table("history"))
    types = dict(history.dtypes)
    assert [types[c] for c in ("birth", "seen", "stamp", "nanos", "zoned", "blob")] == [
        "date",
        "timestamp",
        "timestamp",
        "timestamp",
        "timestamp",
        "binary",
    ]
    assert (types["price"], types["big"]) == ("decimal(10,2)", "decimal(38,10)")
    assert (types["whole"], types["iso"], types["gone"]) == ("decimal(38,0)", "date", "timestamp")
    columns = "id, name, birth, seen, stamp, nanos, price, big, zoned, blob, whole, iso, gone"
    rows = dbt_project.spark.sql(
        f"select {columns} from {dbt_project.table('history')} order by id, dbt_valid_from"
    ).collect()
    at_t0 = datetime(2024, 1, 1)
    before_epoch = datetime(1969, 12, 31, 23, 59, 59, 999_999)
    alice_values = (
        date(2022, 1, 8),  # 19,000 days after 1970-01-01
        at_t0 + timedelta(microseconds=123_456),
        at_t0 + timedelta(milliseconds=123),
        at_t0 + timedelta(microseconds=123_456),  # nanoseconds cut to microseconds
    )
    zoned = datetime(2024, 1, 1, 8, 0, 0, 500_000)  # 10:00:00.5 at +02:00, in UTC
    alice_rest = (zoned, bytearray(b"\x00\xffab"), Decimal(0), date(2024, 1, 1), None)
    assert [tuple(r) for r in rows] == [
        (1, "Alice", *alice_values, Decimal("12.34"), big, *alice_rest),
        (1, "Angela", *alice_values, Decimal("128.00"), big, *alice_rest),
        (
            2,
            "Bob",
            date(1969, 12, 31),
            before_epoch,
            datetime(1969, 12, 31, 23, 59, 59, 999_000),
            before_epoch,
            Decimal("-0.05"),
            big.copy_negate(),
            None,
            None,
            most_negative,
            date(1969, 12, 31),
            None,
        ),
    ]

    # The next batch gives the field null everywhere before a value: decoded alike.
    gone = 1_704_153_600_000_001  # 2024-01-02 00:00:00.000001
    json_batch(
        dbt_project,
        tmp_path / "day2",
        [logical_line("u", {**bob, "name": "Bo", "gone": gone}, T0_MS + 2 * HOUR_MS, 13)],
    )
    run(dbt_project)
    latest = dbt_project.spark.sql(
        f"select name, gone from {dbt_project.table('history')} where id = 2 "
        "and dbt_valid_to is null"
    ).collect()
    assert [tuple(r) for r in latest] == [("Bo", datetime(2024, 1, 2, 0, 0, 0, 1))]
    bob = {**bob, "name": "Bo", "gone": gone}

    # A zoned timestamp that does not read as one fails the run, naming it; nothing is written.
    commits = iceberg_commits(dbt_project, "history")
    bad = logical_line("u", {**bob, "name": "B", "zoned": "yesterday"}, T0_MS + 3 * HOUR_MS, 14)
    json_batch(dbt_project, tmp_path / "day3", [bad])
    message = failure(dbt_project)
    assert '["yesterday"]' in message and "does not read as timestamp" in message, message
    assert "zoned" in message, message
    assert iceberg_commits(dbt_project, "history") == commits
    # So does text that is no base64 (Spark's unbase64 would skip the `$`).
    broken = logical_line("u", {**bob, "name": "B", "blob": "ab$c"}, T0_MS + 3 * HOUR_MS, 14)
    json_batch(dbt_project, tmp_path / "day3b", [broken])
    message = failure(dbt_project)
    assert '["ab$c"]' in message and "does not read as base64" in message, message
    assert iceberg_commits(dbt_project, "history") == commits

    # The column's type changed within the batch (birth a plain int32 on one line): one
    # output column cannot hold both, so the model fails before it reads, naming the field.
    plain_birth = [{**f, "name": None} if f["field"] == "birth" else f for f in LOGICAL_FIELDS]
    changed = logical_line("u", {**bob, "name": "B", "birth": 7}, T0_MS + 3 * HOUR_MS, 14)
    retyped = logical_line(
        "u", {**bob, "name": "B2", "birth": 8}, T0_MS + 4 * HOUR_MS, 15, plain_birth
    )
    json_batch(dbt_project, tmp_path / "day4", [changed, retyped])
    message = failure(dbt_project)
    assert "describe the field birth in different ways" in message, message
    assert "(date, no logical type)" in message, message
    assert iceberg_commits(dbt_project, "history") == commits

    # Lines with the envelope beside lines without it: the model fails, naming the mix,
    # rather than reading one shape's lines as tombstones.
    plain = debezium_line("u", None, {"id": 2, "name": "B"}, T0_MS + 3 * HOUR_MS, 14)
    json_batch(dbt_project, tmp_path / "day5", [changed, plain])
    message = failure(dbt_project)
    assert "mixes lines with Kafka Connect's schema/payload envelope" in message, message
    assert iceberg_commits(dbt_project, "history") == commits


def test_debezium_declared_schema_with_the_envelope_as_text(
    dbt_project: ScratchProject, tmp_path
) -> None:
    """The relation's schema declared with `payload` spelt out and Kafka Connect's `schema`
    as `string` (its text): the descriptions are read from that text, so a date, a
    timestamp and a decimal are decoded, where they stayed a number of days, of
    microseconds and base64 text without a word."""
    alice = {"id": 1, "name": "Alice", "birth": 19_000, "seen": 1_704_067_200_123_456}
    alice["price"] = connect_decimal(Decimal("12.34"), 2)
    lines = [
        logical_line("r", alice, T0_MS, 10),
        logical_line("u", {**alice, "name": "Angela"}, T0_MS + HOUR_MS, 11),
    ]
    folder = tmp_path / "declared"
    folder.mkdir()
    (folder / "part-0.json").write_text("\n".join(lines) + "\n")
    row = "struct<id: int, name: string, birth: int, seen: bigint, price: string>"
    dbt_project.spark.sql(f"create schema if not exists {dbt_project.schema}")
    dbt_project.spark.sql(
        f"create table {dbt_project.table('debezium_raw')} (schema string, payload struct<"
        f"op: string, before: {row}, after: {row}, source: struct<ts_ms: bigint, "
        f"lsn: bigint>>) using json location '{folder}'"
    )
    write_debezium_model(dbt_project)
    run(dbt_project)
    history = dbt_project.spark.table(dbt_project.table("history"))
    types = dict(history.dtypes)
    assert (types["birth"], types["seen"], types["price"]) == ("date", "timestamp", "decimal(10,2)")
    rows = history.orderBy("dbt_valid_from").select("name", "birth", "seen", "price").collect()
    decoded = (date(2022, 1, 8), datetime(2024, 1, 1, 0, 0, 0, 123_456), Decimal("12.34"))
    assert [tuple(r) for r in rows] == [("Alice", *decoded), ("Angela", *decoded)]


def test_debezium_decimal_that_gains_precision_in_a_relation_of_every_batch(
    dbt_project: ScratchProject, tmp_path
) -> None:
    """A numeric(10, 2) column altered to numeric(12, 2): in a relation that holds every batch
    (a table over the topic's folder), the lines before and after the change describe the
    field two ways. At one scale every value decodes alike, so the field is read as the
    widest and the table's column widens in place; a change of scale still fails, naming
    both descriptions."""
    fields = [f for f in LOGICAL_FIELDS if f["field"] in ("id", "name", "price")]
    wider = [
        {**f, "parameters": {"scale": "2", "connect.decimal.precision": "12"}}
        if f["field"] == "price"
        else f
        for f in fields
    ]

    def line(op, i, name, price, hour, lsn, described=fields):
        row = {"id": i, "name": name, "price": connect_decimal(Decimal(price), 2)}
        return logical_line(op, row, T0_MS + hour * HOUR_MS, lsn, described)

    dbt_project.spark.sql(f"create schema if not exists {dbt_project.schema}")
    write_debezium_model(dbt_project)
    day1 = [line("r", 1, "Al", "10.50", 0, 10), line("r", 2, "Bo", "99999999.99", 0, 11)]
    json_batch(dbt_project, tmp_path / "day1", day1)
    run(dbt_project)
    day2 = [*day1, line("u", 1, "Al", "1234567890.12", 1, 12, wider)]
    json_batch(dbt_project, tmp_path / "day2", day2)
    run(dbt_project)
    assert shaped_versions(dbt_project, "name, price") == [
        (1, "Al", Decimal("10.50"), 0, 1, "update"),
        (1, "Al", Decimal("1234567890.12"), 1, None, None),
        (2, "Bo", Decimal("99999999.99"), 0, None, None),
    ]
    types = dict(dbt_project.spark.table(dbt_project.table("history")).dtypes)
    assert types["price"] == "decimal(12,2)", types

    # A scale of its own on a third line: no one type decodes every line.
    scaled = [
        {**f, "parameters": {"scale": "3", "connect.decimal.precision": "12"}}
        if f["field"] == "price"
        else f
        for f in fields
    ]
    odd = logical_line(
        "u",
        {"id": 2, "name": "Bo", "price": connect_decimal(Decimal("1.5"), 3)},
        T0_MS + 2 * HOUR_MS,
        13,
        scaled,
    )
    json_batch(dbt_project, tmp_path / "day3", [*day2, odd])
    commits = iceberg_commits(dbt_project, "history")
    message = failure(dbt_project)
    assert "describe the field price in different ways" in message, message
    assert "decimal(12, 2)" in message and "decimal(12, 3)" in message, message
    assert iceberg_commits(dbt_project, "history") == commits


def test_debezium_sequence_of_digits_as_text_orders_as_numbers(
    dbt_project: ScratchProject, tmp_path
) -> None:
    """Debezium's Oracle connector writes its SCNs as text, and its ts_ms has whole seconds,
    so the SCN orders a key's changes within a second: '1000' must come after '999', within
    a batch and against the table's positions in the next one."""
    dbt_project.spark.sql(f"create schema if not exists {dbt_project.schema}")
    write_debezium_model(
        dbt_project, order_by="['event_ts', 'event_scn']", macro_args="sequence=['scn']"
    )

    def line(op: str, i: int, name: str, hour: int, scn: str) -> str:
        source = {"ts_ms": T0_MS + hour * HOUR_MS, "scn": scn, "connector": "oracle"}
        after = {"id": i, "name": name}
        return json.dumps({"before": None, "after": after, "op": op, "source": source})

    json_batch(
        dbt_project,
        tmp_path / "day1",
        [
            line("r", 10, "A", 0, "900"),
            line("u", 10, "B", 1, "999"),
            line("u", 10, "C", 1, "1000"),
            line("r", 11, "X", 0, "950"),
            line("u", 11, "Y", 2, "998"),
        ],
    )
    run(dbt_project)
    assert brief(versions(dbt_project)) == [
        (10, "A", 0, 1, "update"),
        (10, "B", 1, 1, "update"),
        (10, "C", 1, None, None),
        (11, "X", 0, 2, "update"),
        (11, "Y", 2, None, None),
    ]
    json_batch(dbt_project, tmp_path / "day2", [line("u", 11, "Z", 2, "1002")])
    run(dbt_project)
    assert brief(versions(dbt_project))[3:] == [
        (11, "X", 0, 2, "update"),
        (11, "Y", 2, 2, "update"),
        (11, "Z", 2, None, None),
    ]
    assert not dbt_project.spark.catalog.tableExists(dbt_project.table("history__quarantine"))


def test_debezium_sql_server_recipe_of_the_docs(dbt_project: ScratchProject, tmp_path) -> None:
    """docs/events.md's select for SQL Server: snapshot reads carry commit_lsn alone, and two
    changes of one transaction share it and their ts_ms (the commit time); the change's own
    LSN orders them, the commit LSN the reads."""
    dbt_project.spark.sql(f"create schema if not exists {dbt_project.schema}")
    raw = "api.Relation.create(schema=target.schema, identifier='debezium_raw')"
    dbt_project.write(
        "models/history.sql",
        f"""
        {{{{ config(
            materialized='scd2_events',
            unique_key='id',
            event_order_by=['event_ts', 'event_lsn', 'event_serial'],
        ) }}}}
        select
            id,
            name,
            op,
            event_ts,
            coalesce(event_change_lsn, event_commit_lsn) as event_lsn,
            coalesce(cast(event_event_serial_no as bigint), 0) as event_serial
        from (
            {{{{ scd2_audit.scd2_debezium_events({raw}, ['id'],
                sequence=['change_lsn', 'commit_lsn', 'event_serial_no']) }}}}
        ) as changes
        """,
    )
    write_scd2_tests(dbt_project)

    def line(op, before, after, hour, commit, change=None, serial=None) -> str:
        # JsonConverter writes every field of the schema, null where a read has none.
        source = {
            "ts_ms": T0_MS + hour * HOUR_MS,
            "commit_lsn": commit,
            "change_lsn": change,
            "event_serial_no": serial,
            "connector": "sqlserver",
        }
        return json.dumps({"before": before, "after": after, "op": op, "source": source})

    a, b, c = ({"id": 1, "name": n} for n in "ABC")
    x = {"id": 2, "name": "X"}
    # Day 1, the initial snapshot alone: event_serial_no is null on every line.
    json_batch(
        dbt_project,
        tmp_path / "day1",
        [
            line("r", None, a, 0, "00000025:00000d98:0001"),
            line("r", None, x, 0, "00000025:00000d98:0001"),
        ],
    )
    run(dbt_project)
    # Day 2, one transaction: two updates of key 1, then key 2 deleted.
    txn = "0000002a:00000010:0009"
    json_batch(
        dbt_project,
        tmp_path / "day2",
        [
            line("u", a, b, 1, txn, "0000002a:00000010:0002", 2),
            line("u", b, c, 1, txn, "0000002a:00000010:0003", 2),
            line("d", x, None, 1, txn, "0000002a:00000010:0004", 1),
        ],
    )
    run(dbt_project)
    assert brief(versions(dbt_project)) == [
        (1, "A", 0, 1, "update"),
        (1, "B", 1, 1, "update"),
        (1, "C", 1, None, None),
        (2, "X", 0, 1, "delete"),
    ]
    assert_generic_tests_pass(dbt_project)


def test_debezium_mongodb_lines_fail_saying_what_to_do(
    dbt_project: ScratchProject, tmp_path
) -> None:
    """Debezium's MongoDB connector writes `after` as JSON text (extended JSON), which the
    macro does not read: the model fails, naming that shape and what to do, not only
    tombstones. Nothing is created."""
    dbt_project.spark.sql(f"create schema if not exists {dbt_project.schema}")
    document = json.dumps({"_id": {"$oid": "65f0c0ffee0000000000000a"}, "name": "Al"})
    source = {"ts_ms": T0_MS, "ord": 1, "connector": "mongodb", "collection": "customers"}
    line = {"before": None, "after": document, "updateDescription": None, "op": "c"}
    json_batch(dbt_project, tmp_path / "day1", [json.dumps({**line, "source": source})])
    write_debezium_model(dbt_project)
    message = failure(dbt_project)
    assert "neither after nor before is a struct" in message, message
    assert "MongoDB connector" in message and "ExtractNewDocumentState" in message, message
    assert "tombstones" not in message, message
    assert not dbt_project.spark.catalog.tableExists(dbt_project.table("history"))


def test_debezium_batch_of_deletes_only(dbt_project: ScratchProject, tmp_path) -> None:
    """A day whose batch holds only deletes (and their tombstones): every line's `after` is
    null, so Spark infers `after` as a string, not a struct. The keys then come from
    `before`, and the day closes the deleted keys' versions. A batch where neither `before`
    nor `after` holds the rows' fields fails with what to declare, writing nothing."""
    t0, hour, change = T0_MS, HOUR_MS, debezium_line

    def batch(name: str, lines: list[str]) -> None:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "part-0.json").write_text("\n".join(lines) + "\n")
        dbt_project.spark.sql(f"create schema if not exists {dbt_project.schema}")
        view = dbt_project.table("debezium_day")
        dbt_project.spark.sql(f"drop view if exists {view}")
        dbt_project.spark.sql(f"create view {view} as select * from json.`{folder}`")

    write_debezium_model(dbt_project, relation="debezium_day")
    # Day 1: two creates.
    batch(
        "day1",
        [
            change("c", None, {"id": 1, "name": "Alice"}, t0, 10),
            change("c", None, {"id": 2, "name": "Bob"}, t0, 11),
        ],
    )
    run(dbt_project)
    assert brief(versions(dbt_project)) == [(1, "Alice", 0, None, None), (2, "Bob", 0, None, None)]

    # Day 2: one delete (before holds the row, as with REPLICA IDENTITY FULL) and its tombstone.
    batch("day2", [change("d", {"id": 2, "name": "Bob"}, None, t0 + 2 * hour, 12), "null"])
    day2_types = dict(dbt_project.spark.table(dbt_project.table("debezium_day")).dtypes)
    assert day2_types["after"] == "string", day2_types
    run(dbt_project)
    expected = [(1, "Alice", 0, None, None), (2, "Bob", 0, 2, "delete")]
    assert brief(versions(dbt_project)) == expected

    # Day 3: tombstones and a truncate only, no row anywhere: nothing to take the fields from.
    commits = iceberg_commits(dbt_project, "history")
    batch("day3", ["null", change("t", None, None, t0 + 3 * hour, 13)])
    message = failure(dbt_project)
    assert "neither after nor before is a struct" in message, message
    assert "Declare the relation's schema" in message, message
    assert brief(versions(dbt_project)) == expected
    assert iceberg_commits(dbt_project, "history") == commits

    # Day 4: a create and a truncate: the truncate is malformed, saying what to do.
    batch(
        "day4",
        [
            change("c", None, {"id": 3, "name": "Carol"}, t0 + 4 * hour, 14),
            change("t", None, None, t0 + 4 * hour, 15),
        ],
    )
    message = failure(dbt_project)
    assert "1 malformed event(s)" in message, message
    assert "t: a TRUNCATE of the table" in message, message
    assert "skipped.operations=t" in message, message
    assert brief(versions(dbt_project)) == expected
    assert iceberg_commits(dbt_project, "history") == commits


@pytest.mark.parametrize("envelope", [False, True], ids=["plain", "envelope"])
def test_debezium_table_whose_schema_a_first_batch_of_reads_fixed(
    dbt_project: ScratchProject, tmp_path, envelope: bool
) -> None:
    """The setup docs/events.md recommends: one JSON table over the topic's folder. Created at
    Debezium's first batch (snapshot reads: every `before` null), the table keeps the schema
    Spark inferred then, `before` a string, and later lines' `before` reads as JSON text. It is
    read as a row: day 2's update (its old values in `before`) and delete (its key only in
    `before`) apply, where the delete was taken for an event without a key. With and without
    Kafka Connect's schema/payload envelope. Day 1: reads of 1 Alice and 2 Bob at hour 0;
    day 2: 1 becomes Angela at hour 1, 2 is deleted at hour 2."""
    t0, hour = T0_MS, HOUR_MS

    def change(*args) -> str:
        line = debezium_line(*args)
        return json.dumps({"schema": {}, "payload": json.loads(line)}) if envelope else line

    folder = tmp_path / "topic"
    folder.mkdir()
    (folder / "batch-1.json").write_text(
        change("r", None, {"id": 1, "name": "Alice"}, t0, 10)
        + "\n"
        + change("r", None, {"id": 2, "name": "Bob"}, t0, 11)
        + "\n"
    )
    dbt_project.spark.sql(f"create schema if not exists {dbt_project.schema}")
    raw = dbt_project.table("debezium_topic")
    dbt_project.spark.sql(f"create table {raw} using json location '{folder}'")
    before = "payload.before" if envelope else "before"
    before_type = f"select {before} as before from {raw}"
    assert dbt_project.spark.sql(before_type).dtypes == [("before", "string")]
    write_debezium_model(dbt_project, relation="debezium_topic")
    run(dbt_project)
    assert brief(versions(dbt_project)) == [(1, "Alice", 0, None, None), (2, "Bob", 0, None, None)]

    (folder / "batch-2.json").write_text(
        change("u", {"id": 1, "name": "Alice"}, {"id": 1, "name": "Angela"}, t0 + hour, 12)
        + "\n"
        + change("d", {"id": 2, "name": "Bob"}, None, t0 + 2 * hour, 13)
        + "\nnull\n"
    )
    # No `refresh table` here: the macro refreshes the relation it reads (the session still
    # lists batch 1 alone otherwise).
    assert dbt_project.spark.sql(before_type).dtypes == [("before", "string")]
    run(dbt_project)
    assert brief(versions(dbt_project)) == [
        (1, "Alice", 0, 1, "update"),
        (1, "Angela", 1, None, None),
        (2, "Bob", 0, 2, "delete"),
    ]

    # The same table through source(), which --empty renders as a subquery: the macro
    # refreshes the table itself, and the run applies nothing.
    sources = [
        {"name": "landing", "schema": dbt_project.schema, "tables": [{"name": "debezium_topic"}]}
    ]
    dbt_project.write("models/landing.yml", yaml.safe_dump({"version": 2, "sources": sources}))
    model = dbt_project.root / "models" / "history.sql"
    relation = "api.Relation.create(schema=target.schema, identifier='debezium_topic')"
    assert relation in model.read_text()
    model.write_text(model.read_text().replace(relation, "source('landing', 'debezium_topic')"))
    for args in (("--empty",), ()):
        run(dbt_project, *args)
        assert brief(versions(dbt_project)) == [
            (1, "Alice", 0, 1, "update"),
            (1, "Angela", 1, None, None),
            (2, "Bob", 0, 2, "delete"),
        ]


@pytest.mark.parametrize("schema_case", ["lower", "mixed"])
def test_events_in_files_are_read_as_they_are_now(
    dbt_project: ScratchProject, tmp_path, schema_case: str
) -> None:
    """Events in a JSON table over a folder that a writer adds a file to each day, read
    through source(), the model run twice in one Spark session (as a notebook or a long-lived
    process runs dbt). Spark keeps such a table's list of files for the session: without the
    run's refresh, the second run read batch 1 alone and reported success. A schema in mixed
    case (`Mixed_...`, which Spark lists in lower case): the first run failed creating the
    schema `<schema>.history`, and the source was taken for missing and not refreshed."""
    if schema_case == "mixed":
        dbt_project = ScratchProject(
            tmp_path / "mixed", "Mixed_" + dbt_project.schema, dbt_project.spark
        )
    folder = tmp_path / "events"
    folder.mkdir()

    def batch(name: str, *events: tuple) -> None:
        rows = [
            {"id": key, "name": value, "op": op, "ts": f"2024-01-01T{hour:02d}:00:00Z", "lsn": 0}
            | ({} if old is None else {"before_id": old})
            for op, key, value, hour, old in events
        ]
        (folder / name).write_text("".join(json.dumps(row) + "\n" for row in rows))

    batch("batch-1.json", ("c", 1, "Alice", 0, None), ("c", 2, "Bob", 0, None))
    dbt_project.source_over_files("landing", "landed_events", EVENTS_DDL, "json", folder)
    dbt_project.write(
        "models/history.sql",
        """
        {{ config(
            materialized='scd2_events',
            unique_key='id',
            event_order_by=['ts', 'lsn'],
            event_old_key_columns=['before_id'],
        ) }}
        select * from {{ source('landing', 'landed_events') }}
        """,
    )
    run(dbt_project)
    assert brief(versions(dbt_project)) == [(1, "Alice", 0, None, None), (2, "Bob", 0, None, None)]

    batch("batch-2.json", ("u", 1, "Angela", 1, 1), ("d", 2, None, 2, None))
    run(dbt_project)
    assert brief(versions(dbt_project)) == [
        (1, "Alice", 0, 1, "update"),
        (1, "Angela", 1, None, None),
        (2, "Bob", 0, 2, "delete"),
    ]

    # --empty renders the source as a subquery; the run refreshes its table and applies nothing.
    run(dbt_project, "--empty")
    assert brief(versions(dbt_project)) == [
        (1, "Alice", 0, 1, "update"),
        (1, "Angela", 1, None, None),
        (2, "Bob", 0, 2, "delete"),
    ]


def test_debezium_field_names_that_need_quoting(dbt_project: ScratchProject, tmp_path) -> None:
    """Database columns such as `e-Mail` or `2nd line` reach Debezium's JSON as they are. The
    select reads them quoted and names them plainly (e_mail, _2nd_line), so the history
    builds. Without event_old_key_columns, before_<key> is left out: as a value column, an
    update that changes nothing (MySQL's binlog fills `before`) would differ from the read
    before it (`before` null) and add a version. A field named `true` (or false, null, which
    Spark reads as values) is true_value; the model refused it as no plain name. Two fields
    that would get one name fail the model, naming both, and write nothing."""
    t0, hour, change = T0_MS, HOUR_MS, debezium_line

    def batch(name: str, lines: list[str]) -> None:
        """The day's lines as the JSON table debezium_<name>, read by the model. A table, not
        a view: the metastore cannot read back a view whose struct fields need quoting
        (Spark's CANNOT_RECOGNIZE_HIVE_TYPE), where a JSON table keeps its schema in Spark's
        own properties."""
        folder = tmp_path / name
        folder.mkdir()
        (folder / "part-0.json").write_text("\n".join(lines) + "\n")
        dbt_project.spark.sql(f"create schema if not exists {dbt_project.schema}")
        table = dbt_project.table(f"debezium_{name}")
        dbt_project.spark.sql(f"create table {table} using json location '{folder}'")
        dbt_project.write(
            "models/history.sql",
            f"""
            {{{{ config(
                materialized='scd2_events', unique_key='cust_id',
                event_order_by=['event_ts', 'event_lsn'],
            ) }}}}
            {{{{ scd2_audit.scd2_debezium_events(
                api.Relation.create(schema=target.schema, identifier='debezium_{name}'),
                ['Cust Id']) }}}}
            """,
        )

    def history() -> list[tuple]:
        rows = dbt_project.spark.sql(
            f"""
            select
                cust_id, e_mail, _2nd_line, true_value, hour(dbt_valid_from),
                hour(dbt_valid_to), event_closed_as
            from {dbt_project.table("history")}
            order by cust_id, dbt_valid_from
            """
        ).collect()
        return [tuple(r) for r in rows]

    write_scd2_tests(dbt_project)
    a1 = {"Cust Id": 1, "e-Mail": "a@x.org", "2nd line": "Flat 1", "true": "t"}
    a2 = {"Cust Id": 1, "e-Mail": "a@y.org", "2nd line": "Flat 1", "true": "t"}
    b1 = {"Cust Id": 2, "e-Mail": "b@x.org", "2nd line": None, "true": None}
    batch(
        "day1",
        [
            change("r", None, a1, t0, 10),
            change("r", None, b1, t0, 11),
            change("u", a1, a2, t0 + hour, 12),
            change("u", b1, b1, t0 + hour, 13),
            change("d", b1, None, t0 + 2 * hour, 14),
        ],
    )
    run(dbt_project)
    table = dbt_project.spark.table(dbt_project.table("history"))
    # Spark infers a JSON struct's fields in alphabetical order.
    assert table.columns[:5] == ["cust_id", "_2nd_line", "e_mail", "true_value", "dbt_scd_id"], (
        table.columns
    )
    expected = [
        (1, "a@x.org", "Flat 1", "t", 0, 1, "update"),
        (1, "a@y.org", "Flat 1", "t", 1, None, None),
        (2, "b@x.org", None, None, 0, 2, "delete"),
    ]
    assert history() == expected
    assert_generic_tests_pass(dbt_project)

    # A later batch where the source has grown an `e_mail` column beside `e-Mail`: both would
    # be e_mail. The model fails naming them, and the table is as it was.
    commits = iceberg_commits(dbt_project, "history")
    a3 = {**a2, "e_mail": "a@z.org"}
    batch("day2", [change("u", a2, a3, t0 + 3 * hour, 15)])
    message = failure(dbt_project)
    assert "e_mail (from after.e-mail, after.e_mail)" in message, message
    assert iceberg_commits(dbt_project, "history") == commits
    assert history() == expected


# wal2json (format-version=2, include-timestamp=1, include-lsn=1) as its source writes it
# (eulerto/wal2json, wal2json.c at ac6c876): pg_decode_write_change writes a change's
# members in this order, compact: action, timestamp (timestamptz_to_str of the commit time:
# ISO, with the walsender session's UTC offset), lsn (pg_lsn_out: "%X/%X"), schema, table,
# columns (the new row: name, type, value) and identity (the old row's replica identity
# columns: on an update whose key did not change it writes them from the new row; under
# REPLICA IDENTITY FULL the whole old row); pg_decode_write_tuple leaves out an update's
# unchanged TOASTed value; pg_decode_write_value writes numbers and booleans bare, NULL as
# null and the rest as escaped JSON text (escape_json). pg_decode_begin_txn_v2 and
# pg_decode_commit_txn_v2 write B and C with timestamp, lsn and nextlsn. As its regression
# outputs show them (expected/update1.out, pk.out, specialvalue.out, and README.md's
# format-version 2 example).
W2J_DDL = (
    "`action` string, `timestamp` string, `lsn` string, `nextlsn` string, `schema` string, "
    "`table` string, `columns` array<struct<name: string, type: string, value: string>>, "
    "`identity` array<struct<name: string, type: string, value: string>>"
)


def w2j(line: dict) -> str:
    return json.dumps(line, separators=(",", ":"), ensure_ascii=False)


def w2j_row(key: int, name: str | None = None, *, toasted: bool = False) -> list[dict]:
    """A customers row as wal2json's columns or identity: id integer, name text (left out
    where ``toasted``: an update's unchanged TOASTed value)."""
    row = [{"name": "id", "type": "integer", "value": key}]
    return row if toasted else [*row, {"name": "name", "type": "text", "value": name}]


def w2j_key(key: int) -> list[dict]:
    """identity under REPLICA IDENTITY DEFAULT: the primary key alone."""
    return w2j_row(key, toasted=True)


def w2j_change(action: str, lsn: str, columns=None, identity=None, table="customers") -> dict:
    change = {"action": action, "lsn": lsn, "schema": "public", "table": table}
    if columns is not None:
        change["columns"] = columns
    if identity is not None:
        change["identity"] = identity
    return change


def w2j_transaction(stamp: str, commit: str, end: str, *changes: dict) -> list[str]:
    """One transaction's lines: B, its changes (each with the commit time), C."""

    def marker(action: str) -> str:
        return w2j({"action": action, "timestamp": stamp, "lsn": commit, "nextlsn": end})

    lines = [
        w2j(
            {
                "action": c["action"],
                "timestamp": stamp,
                **{k: v for k, v in c.items() if k != "action"},
            }
        )
        for c in changes
    ]
    return [marker("B"), *lines, marker("C")]


def wal2json_batch(project: ScratchProject, folder, lines: list[str], ddl: str | None = W2J_DDL):
    """wal2json's lines as the JSON table ``<schema>.wal2json_raw`` over ``folder``, with the
    schema the docs declare (``ddl``), or none: Spark infers it."""
    folder.mkdir()
    (folder / "part-0.json").write_text("\n".join(lines) + "\n")
    raw = project.table("wal2json_raw")
    project.spark.sql(f"create schema if not exists {project.schema}")
    project.spark.sql(f"drop table if exists {raw}")
    project.spark.sql(
        f"create table {raw} {f'({ddl})' if ddl else ''} using json location '{folder}'"
    )
    project.spark.sql(f"refresh table {raw}")


def write_wal2json_model(project: ScratchProject, table: str, columns: str) -> None:
    """An scd2_events model ``history`` keyed by ``id`` over scd2_wal2json_events of
    ``<schema>.wal2json_raw`` (``table`` and ``columns``: the macro's arguments as Jinja
    literals), ordered and given its old key as docs/events.md says, with the scd2 generic
    data tests."""
    project.write(
        "models/history.sql",
        f"""
        {{{{ config(
            materialized='scd2_events',
            unique_key='id',
            event_order_by=['event_ts', 'event_lsn'],
            event_old_key_columns=['before_id'],
        ) }}}}
        {{{{ scd2_audit.scd2_wal2json_events(
            api.Relation.create(schema=target.schema, identifier='wal2json_raw'),
            {table}, ['id'], {columns}) }}}}
        """,
    )
    write_scd2_tests(project)


def test_wal2json_recipe_of_the_docs(dbt_project: ScratchProject, tmp_path) -> None:
    """PostgreSQL's logical decoding through wal2json (docs/events.md): the textbook case, a
    change of the key, updates under REPLICA IDENTITY DEFAULT and FULL, changes of one
    transaction ordered by their LSNs, a replay, NULL and quoted text, and an update without
    a value it needs."""
    write_wal2json_model(dbt_project, "'public.customers'", "{'id': 'int', 'name': 'string'}")

    # Day 1: Alice and Bob, a row of another table and a message (M, no table) in the same
    # transaction; a batch of inserts only, under a schema Spark infers (no identity at all).
    day1 = w2j_transaction(
        "2024-01-01 00:00:00+00",
        "0/1E0",
        "0/210",
        w2j_change("I", "0/150", w2j_row(1, "Alice")),
        w2j_change("I", "0/1A8", w2j_row(2, "Bob")),
        w2j_change("I", "0/1B0", [{"name": "id", "type": "integer", "value": 7}], table="orders"),
    )
    day1.insert(3, w2j({"action": "M", "transactional": True, "prefix": "app", "content": "x"}))
    wal2json_batch(dbt_project, tmp_path / "day1", day1, ddl=None)
    run(dbt_project)
    assert brief(versions(dbt_project)) == [(1, "Alice", 0, None, None), (2, "Bob", 0, None, None)]

    # Day 2, the textbook case: id 1 renamed at 1 (its key unchanged: wal2json writes the new
    # row's key as identity), id 2 deleted at 2 (a commit time written at UTC+1), id 2
    # inserted again at 3.
    day2 = [
        *w2j_transaction(
            "2024-01-01 01:00:00+00",
            "0/2D8",
            "0/308",
            w2j_change("U", "0/2D0", w2j_row(1, "Angela"), w2j_key(1)),
        ),
        *w2j_transaction(
            "2024-01-01 03:00:00+01",
            "0/400",
            "0/430",
            w2j_change("D", "0/3F8", identity=w2j_key(2)),
        ),
        *w2j_transaction(
            "2024-01-01 03:00:00.000001+00",
            "0/528",
            "0/558",
            w2j_change("I", "0/520", w2j_row(2, "Carol")),
        ),
    ]
    wal2json_batch(dbt_project, tmp_path / "day2", day2)
    run(dbt_project)
    assert brief(versions(dbt_project)) == TEXTBOOK

    # Day 3, one transaction at 4: id 1 becomes id 5 (identity: the old key), id 3 is
    # inserted and changed twice (its LSNs order as numbers, not as text: 0/A08 < 0/1000 <
    # 1/28), its name set to quoted text then to NULL, and Carol's to a path and accents.
    tricky = 'O\'Brien "Dan"\nline 2\t\\'
    path = 'C:\\Users\\"Carol" ñ €'
    day3 = w2j_transaction(
        "2024-01-01 04:00:00.25+00",
        "1/60",
        "1/90",
        w2j_change("U", "0/9A0", w2j_row(5, "Angela"), w2j_key(1)),
        w2j_change("I", "0/A08", w2j_row(3, "Dan")),
        w2j_change("U", "0/1000", w2j_row(3, tricky), w2j_key(3)),
        w2j_change("U", "1/28", w2j_row(3, None), w2j_key(3)),
        w2j_change("U", "1/30", w2j_row(2, path), w2j_key(2)),
    )
    wal2json_batch(dbt_project, tmp_path / "day3", day3)
    run(dbt_project)
    day3_versions = [
        (1, "Alice", 0, 1, "update"),
        (1, "Angela", 1, 4, "key_change"),
        (2, "Bob", 0, 2, "delete"),
        (2, "Carol", 3, 4, "update"),
        (2, path, 4, None, None),
        (3, "Dan", 4, 4, "update"),
        (3, tricky, 4, 4, "update"),
        (3, None, 4, None, None),
        (5, "Angela", 4, None, None),
    ]
    rows = versions(dbt_project)
    assert brief(rows) == day3_versions
    assert [r["previous_id"] for r in rows] == [None] * 8 + [1]

    # The three days again, in one folder (a relation of every batch): nothing to add.
    commits = iceberg_commits(dbt_project, "history")
    wal2json_batch(dbt_project, tmp_path / "all", day1 + day2 + day3)
    run(dbt_project)
    assert brief(versions(dbt_project)) == day3_versions
    assert iceberg_commits(dbt_project, "history") == commits

    # An update under REPLICA IDENTITY DEFAULT whose name wal2json left out (an unchanged
    # TOASTed value), and a truncate: both malformed, nothing written.
    bad = w2j_transaction(
        "2024-01-01 05:00:00+00",
        "1/200",
        "1/230",
        w2j_change("U", "1/100", w2j_row(5, toasted=True), w2j_key(5)),
        w2j_change("T", "1/1F8"),
    )
    wal2json_batch(dbt_project, tmp_path / "day4", bad)
    message = failure(dbt_project)
    assert "2 malformed event(s)" in message, message
    assert "a change without the value of name" in message or "TRUNCATE" in message, message
    assert iceberg_commits(dbt_project, "history") == commits

    # Under REPLICA IDENTITY FULL, identity is the whole old row: the key change of id 5 to
    # id 6 that leaves the (TOASTed) name out of columns keeps it from identity.
    full = w2j_transaction(
        "2024-01-01 05:00:00+00",
        "1/300",
        "1/330",
        w2j_change("U", "1/2F8", w2j_row(6, toasted=True), w2j_row(5, "Angela")),
    )
    wal2json_batch(dbt_project, tmp_path / "day5", full)
    run(dbt_project)
    rows = versions(dbt_project)
    assert brief(rows)[-2:] == [(5, "Angela", 4, 5, "key_change"), (6, "Angela", 5, None, None)]
    assert rows[-1]["previous_id"] == 5
    assert_generic_tests_pass(dbt_project)


def test_wal2json_values_read_as_their_types(dbt_project: ScratchProject, tmp_path) -> None:
    """wal2json writes each value as its type's output text, numbers and booleans bare, the
    rest as JSON text: each column is cast to the type the macro's `columns` gives it; text
    that does not read as its type makes the event malformed; format-version 1 lines fail
    the model."""
    write_wal2json_model(
        dbt_project,
        "'customers'",
        "{'id': 'bigint', 'amount': 'decimal(38, 10)', 'price': 'decimal(5, 3)', "
        "'active': 'boolean', 'seen': 'timestamp', 'born': 'date', 'raw': 'binary', "
        "'doc': 'string', 'ratio': 'double'}",
    )
    digits = "12345678901234567.1234567891"

    def row(key, amount, price, seen, ratio) -> list[dict]:
        values = [
            ("id", "bigint", key),
            ("amount", "numeric(38,10)", amount),
            ("price", "numeric(5,3)", price),
            ("active", "boolean", True),
            ("seen", "timestamp with time zone", seen),
            ("born", "date", "2000-02-29"),
            ("raw", "bytea", "54617069727573"),  # bytea's hex output without its \x
            ("doc", "jsonb", '{"a": [1, "x"]}'),
            ("ratio", "double precision", ratio),
        ]
        return [{"name": n, "type": t, "value": v} for n, t, v in values]

    # Key 1 as numeric-data-types-as-string=1 writes it (numbers quoted, NaN kept), key 2
    # without it (numbers bare, NaN as null). "@" marks a number to write bare.
    lines = w2j_transaction(
        "2024-01-01 00:00:00+00",
        "0/300",
        "0/330",
        w2j_change("I", "0/100", row("1", digits, "3.540", "2024-01-01 10:00:00.5+02", "NaN")),
        w2j_change("I", "0/200", row(2, "@1234.5", "@3.540", "2024-01-01 10:00:00+00", None)),
    )
    wal2json_batch(dbt_project, tmp_path / "day1", [re.sub(r'"@([^"]*)"', r"\1", x) for x in lines])
    # Without event_old_key_columns, a key change would leave the old key open.
    model = dbt_project.root / "models" / "history.sql"
    text = model.read_text()
    model.write_text(text.replace("event_old_key_columns=['before_id'],", ""))
    message = failure(dbt_project)
    assert "set event_old_key_columns=['before_id'] (it is [])" in message, message
    # A unique_key other than the macro's key columns (the model pairs the old key columns
    # with its unique_key's, in its order).
    model.write_text(text.replace("unique_key='id'", "unique_key=['id', 'amount']"))
    message = failure(dbt_project)
    assert "unique_key ['id', 'amount'] is not the macro's key columns ['id']" in message, message
    model.write_text(text)
    run(dbt_project)
    rows = dbt_project.spark.sql(
        "select id, amount, price, active, seen, born, raw, doc, ratio from "
        f"{dbt_project.table('history')} order by id"
    ).collect()
    assert [tuple(r)[:8] for r in rows] == [
        (
            1,
            Decimal(digits),
            Decimal("3.540"),
            True,
            datetime(2024, 1, 1, 8, 0, 0, 500000),
            date(2000, 2, 29),
            bytearray(b"Tapirus"),
            '{"a": [1, "x"]}',
        ),
        (
            2,
            Decimal("1234.5000000000"),
            Decimal("3.540"),
            True,
            datetime(2024, 1, 1, 10),
            date(2000, 2, 29),
            bytearray(b"Tapirus"),
            '{"a": [1, "x"]}',
        ),
    ]
    assert math.isnan(rows[0]["ratio"]) and rows[1]["ratio"] is None

    def refused(folder: str, values: list[dict], *expected: str) -> None:
        """An update of key 1 to ``values`` fails the run as one malformed event."""
        lines = w2j_transaction(
            "2024-01-01 01:00:00+00", "0/500", "0/530", w2j_change("U", "0/400", values, w2j_key(1))
        )
        bare = [re.sub(r'"@([^"]*)"', r"\1", x) for x in lines]
        wal2json_batch(dbt_project, tmp_path / folder, bare)
        message = failure(dbt_project)
        for text in ("1 malformed event(s)", *expected):
            assert text in message, message

    # A timestamp written under DateStyle Postgres does not read as one: malformed, named.
    refused(
        "day2",
        row("1", digits, "3.540", "Mon Jan 01 12:00:00 2024 UTC", "NaN"),
        "do not read as their column type: seen",
        "Mon Jan 01 12:00:00 2024 UTC",
    )
    # A bare number with a fraction reaches Spark's JSON reader as a double, which writes it
    # in exponent form from 10^7 (1.2345678901234568E16: rounded), which PostgreSQL never
    # writes.
    refused(
        "day2b",
        row("1", "@" + digits, "3.540", "2024-01-01", "1"),
        "do not read as their column type: amount",
        "numeric-data-types-as-string=1",
    )
    # A date BC, which Spark's cast reads up to the space, as the year AD.
    bc = row("1", digits, "3.540", "2024-01-01", "1")
    bc[5]["value"] = "0044-03-15 BC"
    refused("day2c", bc, "do not read as their column type: born", "0044-03-15 BC")
    # A decimal with a digit beyond its column's scale, which Spark's cast would round.
    refused(
        "day2d",
        row("1", digits, "3.5405", "2024-01-01", "1"),
        "do not read as their column type: price",
        "3.5405",
    )

    # format-version 1: one object per transaction, its changes in `change`.
    version1 = {"change": [{"kind": "insert", "schema": "public", "table": "customers"}]}
    wal2json_batch(dbt_project, tmp_path / "day3", [w2j(version1)], ddl=None)
    message = failure(dbt_project)
    assert "format-version 1" in message and "format-version=2" in message, message
    # The same under the declared schema of the docs, which has no `change`: every line
    # reads as one without `action` (it held no row of the table, and the run applied
    # nothing); each is malformed now, and nothing is written.
    commits = iceberg_commits(dbt_project, "history")
    version1.update({"xid": 1, "timestamp": "2024-01-02 00:00:00+00"})
    wal2json_batch(dbt_project, tmp_path / "day3b", [w2j(version1)])
    message = failure(dbt_project)
    assert "1 malformed event(s)" in message, message
    assert "a line without wal2json's `action`: format-version 1" in message, message
    assert iceberg_commits(dbt_project, "history") == commits


def test_wal2json_names_as_wal2json_writes_them(dbt_project: ScratchProject, tmp_path) -> None:
    """`table` and the column names match as wal2json writes them, case included, a name
    holding a dot quoted as PostgreSQL quotes it; a name the lines do not hold, or lines
    without their schema (include-schemas=0), make the events malformed instead of loading
    nothing or NULL."""
    write_wal2json_model(dbt_project, '\'"Sales"."my.t"\'', "{'id': 'int', 'Name': 'string'}")

    def line(action: str, lsn: str, key: int, **names: str) -> dict:
        columns = [{"name": "id", "type": "integer", "value": key}]
        columns += [{"name": n, "type": "text", "value": v} for n, v in names.items()]
        change = w2j_change(action, lsn, columns)
        change["schema"] = "Sales"
        change["table"] = "my.t"
        return change

    # Day 1: id 1 in "Sales"."my.t"; the same table name in schema sales (another schema for
    # PostgreSQL) and a table named t in schema Sales.my are not it.
    other_schema = {**line("I", "0/110", 2, Name="Other"), "schema": "sales"}
    other_table = {**line("I", "0/120", 3, Name="Other"), "schema": "Sales.my", "table": "t"}
    day1 = w2j_transaction(
        "2024-01-01 00:00:00+00",
        "0/200",
        "0/230",
        line("I", "0/100", 1, Name="Ann"),
        other_schema,
        other_table,
    )
    wal2json_batch(dbt_project, tmp_path / "day1", day1)
    run(dbt_project)
    assert brief(versions(dbt_project)) == [(1, "Ann", 0, None, None)]

    # An insert whose column is named otherwise (`name`): malformed, naming what it holds.
    day2 = w2j_transaction(
        "2024-01-01 01:00:00+00", "0/400", "0/430", line("I", "0/300", 4, name="Dan")
    )
    wal2json_batch(dbt_project, tmp_path / "day2", day2)
    message = failure(dbt_project)
    assert "1 malformed event(s)" in message, message
    assert "a change without the value of Name (the line holds: id, name)" in message, message

    # include-schemas=0: the table's lines have no schema.
    day3 = w2j_transaction(
        "2024-01-01 01:00:00+00",
        "0/400",
        "0/430",
        {**line("I", "0/300", 4, Name="Dan"), "schema": None},
    )
    wal2json_batch(dbt_project, tmp_path / "day3", day3)
    message = failure(dbt_project)
    assert "without its schema: set wal2json's include-schemas=1" in message, message
    assert brief(versions(dbt_project)) == [(1, "Ann", 0, None, None)]


def test_wal2json_composite_key_in_the_models_order(dbt_project: ScratchProject, tmp_path) -> None:
    """A composite key given to the macro in another order than the model's unique_key: the
    model pairs event_old_key_columns with its unique_key by position, so the old key columns
    follow the unique_key (the macro had asked for its own order, and each old key column
    would have been read as the other key column's)."""
    dbt_project.write(
        "models/history.sql",
        """
        {{ config(
            materialized='scd2_events',
            unique_key=['tenant', 'id'],
            event_order_by=['event_ts', 'event_lsn'],
            event_old_key_columns=['before_tenant', 'before_id'],
        ) }}
        {{ scd2_audit.scd2_wal2json_events(
            api.Relation.create(schema=target.schema, identifier='wal2json_raw'),
            'public.customers', ['id', 'tenant'],
            {'id': 'int', 'tenant': 'int', 'name': 'string'}) }}
        """,
    )

    def row(key: int, tenant: int, name: str | None = None) -> list[dict]:
        values = [("id", "integer", key), ("tenant", "integer", tenant), ("name", "text", name)]
        return [{"name": n, "type": t, "value": v} for n, t, v in values if v is not None]

    # Tenant 1's id 10, then moved to id 11 (identity: the old key, whole).
    lines = [
        *w2j_transaction(
            "2024-01-01 00:00:00+00", "0/200", "0/230", w2j_change("I", "0/100", row(10, 1, "a"))
        ),
        *w2j_transaction(
            "2024-01-01 01:00:00+00",
            "0/400",
            "0/430",
            w2j_change("U", "0/300", row(11, 1, "a"), row(10, 1)),
        ),
    ]
    wal2json_batch(dbt_project, tmp_path / "day1", lines)
    run(dbt_project)
    history = dbt_project.spark.sql(
        f"""
        select tenant, id, name, hour(dbt_valid_from) as opened, hour(dbt_valid_to) as closed,
            event_closed_as, event_previous_key.tenant as from_tenant,
            event_previous_key.id as from_id
        from {dbt_project.table("history")}
        order by id
        """
    ).collect()
    assert [tuple(r) for r in history] == [
        (1, 10, "a", 0, 1, "key_change", None, None),
        (1, 11, "a", 1, None, None, 1, 10),
    ]


CREATED_IN_RUN_1 = ((1, "a"), (2, "b"), (3, "c"), (6, "f"))


def test_change_feed_and_run_audit_with_several_changes_of_a_key_in_a_run(
    dbt_project: ScratchProject,
) -> None:
    """One run can hold several changes of a key: the change feed pairs each closed version
    with the version that continues it (an update) by position, not by counting the key's rows
    in the run; a delete followed by a re-creation is a delete and an insert, a key change a
    delete of the old key and an insert of the new one. The run audit counts the versions a
    run opened and closed itself. The same with deletion records (hard_deletes='new_record')."""
    project = dbt_project
    write_model(project, name="history")
    write_model(project, "hard_deletes='new_record',", name="history_nr")
    view = "{{ config(materialized='view') }}\n"
    for name in ("history", "history_nr"):
        feed = f"{{{{ scd2_change_feed(ref('{name}')) }}}}\n"
        project.write(f"models/{name}_feed.sql", view + feed)
        audit = f"{{{{ scd2_run_audit(ref('{name}_feed')) }}}}\n"
        project.write(f"models/{name}_audit.sql", view + audit)
    models = ("history", "history_nr", "history_feed", "history_nr_feed")
    # Run 1: ids 1, 2, 3 and 6 created at hour 1.
    write_events(project, [ev("c", key, name, 1) for key, name in CREATED_IN_RUN_1])
    run1 = project.dbt("run", "--select", *models, "history_audit", "history_nr_audit")
    # Run 2: id 1 updated twice; id 2 deleted, then re-created; id 3 moved to id 4; id 5
    # created and deleted; id 6 untouched.
    write_events(
        project,
        [
            ev("u", 1, "a2", 2, old=1),
            ev("u", 1, "a3", 3, old=1),
            ev("d", 2, "b", 2),
            ev("c", 2, "b2", 4),
            ev("u", 4, "c", 5, old=3),
            ev("c", 5, "e", 2),
            ev("d", 5, "e", 3),
        ],
    )
    run2 = project.dbt("run", "--select", "history", "history_nr")
    r1, r2 = run1.invocation_id, run2.invocation_id
    assert brief(versions(project)) == [
        (1, "a", 1, 2, "update"),
        (1, "a2", 2, 3, "update"),
        (1, "a3", 3, None, None),
        (2, "b", 1, 2, "delete"),
        (2, "b2", 4, None, None),
        (3, "c", 1, 5, "key_change"),
        (4, "c", 5, None, None),
        (5, "e", 2, 3, "delete"),
        (6, "f", 1, None, None),
    ]
    # (run, change type, id, name, hour the change took effect, run that inserted the version)
    expected = sorted(
        [
            (r1, "insert", 1, "a", 1, r1),
            (r1, "insert", 2, "b", 1, r1),
            (r1, "insert", 3, "c", 1, r1),
            (r1, "insert", 6, "f", 1, r1),
            (r2, "update_preimage", 1, "a", 2, r1),
            (r2, "update_postimage", 1, "a2", 2, r2),
            (r2, "update_preimage", 1, "a2", 3, r2),
            (r2, "update_postimage", 1, "a3", 3, r2),
            (r2, "delete", 2, "b", 2, r1),
            (r2, "insert", 2, "b2", 4, r2),
            (r2, "delete", 3, "c", 5, r1),
            (r2, "insert", 4, "c", 5, r2),
            (r2, "insert", 5, "e", 2, r2),
            (r2, "delete", 5, "e", 3, r2),
        ],
        key=str,
    )
    for name in ("history", "history_nr"):
        feed = project.spark.sql(
            f"""
            select _process_id, _change_type, id, name,
                cast((unix_timestamp(_change_ts) - unix_timestamp(timestamp'{T0}')) / 3600
                    as int) as hour,
                _version_inserted_by
            from {project.table(name + "_feed")}
            """
        ).collect()
        assert sorted((tuple(r) for r in feed), key=str) == expected, name
        audit = project.spark.sql(
            f"""
            select process_id, versions_inserted, keys_inserted, versions_updated,
                versions_deleted, versions_unchanged, open_versions
            from {project.table(name + "_audit")}
            order by first_processed_ts
            """
        ).collect()
        assert [tuple(r) for r in audit] == [(r1, 4, 4, 0, 0, 0, 4), (r2, 5, 3, 2, 3, 1, 4)], name

    # Run 3: changes of a key at one event time, told apart by the tie-breaker: id 7 created
    # and updated at hour 6; id 2 deleted and re-created at hour 7. _change_ts cannot order
    # them; _change_order does, a key's whole story (an update's preimage before its
    # postimage, a delete before the insert that follows it).
    write_events(
        project,
        [
            ev("c", 7, "g", 6, lsn=1),
            ev("u", 7, "g2", 6, lsn=2, old=7),
            ev("d", 2, "b2", 7, lsn=1),
            ev("c", 2, "b3", 7, lsn=2),
        ],
    )
    r3 = project.dbt("run", "--select", "history", "history_nr").invocation_id
    stories = {
        2: [
            ("insert", "b", 1, r1),
            ("delete", "b", 2, r2),
            ("insert", "b2", 4, r2),
            ("delete", "b2", 7, r3),
            ("insert", "b3", 7, r3),
        ],
        7: [
            ("insert", "g", 6, r3),
            ("update_preimage", "g", 6, r3),
            ("update_postimage", "g2", 6, r3),
        ],
    }
    for name in ("history", "history_nr"):
        for key, story in stories.items():
            rows = project.spark.sql(
                f"""
                select _change_type, name,
                    cast((unix_timestamp(_change_ts) - unix_timestamp(timestamp'{T0}')) / 3600
                        as int) as hour,
                    _process_id
                from {project.table(name + "_feed")}
                where id = {key}
                order by _change_order
                """
            ).collect()
            assert [tuple(r) for r in rows] == story, (name, key)


def shaped_versions(project: ScratchProject, columns: str) -> list[tuple]:
    """(id, <columns>, valid from hour, valid to hour or None, closed_as) per version."""
    rows = project.spark.sql(
        f"""
        select id, {columns},
            cast((unix_timestamp(dbt_valid_from) - unix_timestamp(timestamp'{T0}')) / 3600
                as int) as valid_from,
            cast((unix_timestamp(dbt_valid_to) - unix_timestamp(timestamp'{T0}')) / 3600
                as int) as valid_to,
            event_closed_as
        from {project.table("history")}
        order by id, event_opened_position
        """
    ).collect()
    return [tuple(r) for r in rows]


def test_events_whose_columns_change_keep_their_history(dbt_project: ScratchProject) -> None:
    """Events, like snapshot sources, change shape: a new column is added to the table (NULL
    in the versions already there), a column the events no longer carry stays with its history
    (NULL in the versions opened from then on, and not compared), a wider type widens the
    column; each in the run's one commit. A run that fails (a malformed event, a type the
    history cannot follow) leaves the table's columns, rows and commits as they were."""
    spark = dbt_project.spark
    base = "op string, ts timestamp, lsn bigint, before_id int"
    write_model(dbt_project)

    # Run 1: id, name.
    write_events(
        dbt_project,
        [
            (1, "Alice", "r", at(0), 0, None),
            (2, "Bob", "r", at(0), 0, None),
            (3, "Cy", "r", at(0), 0, None),
        ],
        ddl=f"id int, name string, {base}",
    )
    run(dbt_project)
    # Write settings of the user's, which run 2's rewrite keeps (the replace dropped the
    # order and reset the distribution mode to this project's default).
    table = dbt_project.table("history")
    spark.sql(f"alter table {table} write ordered by id")
    spark.sql(f"alter table {table} set tblproperties ('write.merge.distribution-mode' = 'hash')")

    def settings() -> list[str | None]:
        properties = dict(spark.sql(f"show tblproperties {table}").collect())
        keys = ("sort-order", "write.distribution-mode", "write.merge.distribution-mode")
        return [properties.get(key) for key in keys]

    assert settings() == ["id ASC NULLS FIRST", "range", "hash"]

    # Run 2: the events gain tier (string) and points (int). id 1 gets a tier: a change;
    # id 2's update has the values it had and no tier: a no-op; id 4 is new.
    ddl2 = f"id int, name string, tier string, points int, {base}"
    write_events(
        dbt_project,
        [
            (1, "Alice", "gold", 10, "u", at(1), 0, 1),
            (2, "Bob", None, None, "u", at(2), 0, 2),
            (4, "Dee", "silver", 5, "c", at(3), 0, None),
        ],
        ddl=ddl2,
    )
    commits = iceberg_commits(dbt_project, "history")
    run(dbt_project)
    assert iceberg_commits(dbt_project, "history") == commits + 1
    assert settings() == ["id ASC NULLS FIRST", "range", "hash"]
    columns = spark.table(dbt_project.table("history")).columns
    assert columns[:5] == ["id", "name", "tier", "points", "dbt_scd_id"]
    assert shaped_versions(dbt_project, "name, tier, points") == [
        (1, "Alice", None, None, 0, 1, "update"),
        (1, "Alice", "gold", 10, 1, None, None),
        (2, "Bob", None, None, 0, None, None),
        (3, "Cy", None, None, 0, None, None),
        (4, "Dee", "silver", 5, 3, None, None),
    ]
    assert_generic_tests_pass(dbt_project)

    # A batch with another new column and a malformed event fails: nothing changes, not even
    # the columns.
    before = all_rows(dbt_project, "history")
    commits = iceberg_commits(dbt_project, "history")
    write_events(
        dbt_project,
        [
            (1, "Alice", "gold", 10, 1.5, "u", at(4), 0, 1),
            (2, "Bob", None, None, 2.0, "x", at(4), 0, 2),
        ],
        ddl=f"id int, name string, tier string, points int, score double, {base}",
    )
    assert "malformed" in failure(dbt_project)
    # A type the history cannot follow (name as a number) fails too, naming the column.
    write_events(
        dbt_project,
        [(1, 7, "gold", 10, "u", at(4), 0, 1)],
        ddl=f"id int, name int, tier string, points int, {base}",
    )
    message = failure(dbt_project)
    assert "name is string in the table but int in the events" in message
    assert "Nothing was written" in message
    # A key column turned double keeps its type (a key is compared by value and recorded in
    # event_previous_key): refused, with the advice that keeps the fractions.
    write_events(
        dbt_project,
        [(1.5, "Alice", "gold", 10, "u", at(4), 0, 1)],
        ddl=f"id double, name string, tier string, points int, {base}",
    )
    message = failure(dbt_project)
    assert "id is int in the table but double in the events, a key column" in message, message
    assert "Casting id back would drop the fractions of its new values" in message, message
    assert "Nothing was written" in message
    assert spark.table(dbt_project.table("history")).columns == columns
    assert all_rows(dbt_project, "history") == before
    assert iceberg_commits(dbt_project, "history") == commits

    # Run 3: the events no longer carry name, and points is a bigint now. id 1's new tier is
    # a change (its version keeps no name); id 3's update with the tier it has is a no-op,
    # as the gone name is not compared; id 2 is deleted.
    write_events(
        dbt_project,
        [
            (1, "platinum", 5_000_000_000, "u", at(5), 0, 1),
            (3, None, None, "u", at(6), 0, 3),
            (2, None, None, "d", at(7), 0, None),
        ],
        ddl=f"id int, tier string, points bigint, {base}",
    )
    # With dbt's on_schema_change='fail', the same batch stops the run, naming the changes.
    write_model(dbt_project, "on_schema_change='fail',")
    message = failure(dbt_project)
    assert "on_schema_change='fail'" in message, message
    assert "new [], wider ['points'], gone ['name']" in message, message
    assert "Nothing was written" in message, message
    assert all_rows(dbt_project, "history") == before
    assert iceberg_commits(dbt_project, "history") == commits
    write_model(dbt_project)
    run(dbt_project)
    assert spark.table(dbt_project.table("history")).columns == columns
    assert dict(spark.table(dbt_project.table("history")).dtypes)["points"] == "bigint"
    assert shaped_versions(dbt_project, "name, tier, points") == [
        (1, "Alice", None, None, 0, 1, "update"),
        (1, "Alice", "gold", 10, 1, 5, "update"),
        (1, None, "platinum", 5_000_000_000, 5, None, None),
        (2, "Bob", None, None, 0, 7, "delete"),
        (3, "Cy", None, None, 0, None, None),
        (4, "Dee", "silver", 5, 3, None, None),
    ]
    assert_generic_tests_pass(dbt_project)

    # The same batch again changes nothing and writes nothing.
    commits = iceberg_commits(dbt_project, "history")
    run(dbt_project)
    assert iceberg_commits(dbt_project, "history") == commits


def test_an_integer_column_whose_events_bring_fractions_becomes_a_double(
    dbt_project: ScratchProject,
) -> None:
    """A JSON field of whole numbers in one batch (read as bigint) with fractions in a later
    one (double): the history and the quarantine are rewritten with the column as a double,
    as a snapshot's is, where every value they hold stays exact (within ±2^53; an int always
    is); a value a double would round fails the run, naming the column, and writes nothing.
    Whole numbers (bigint) into the double column likewise."""
    spark = dbt_project.spark
    base = "op string, ts timestamp, lsn bigint, before_id int"
    big = 2**53 + 1  # the first integer a double cannot hold
    quarantine = "history__quarantine"
    q = dbt_project.table(quarantine)
    write_model(dbt_project, "on_malformed_event='quarantine',")

    def points(table: str) -> list[tuple]:
        return [
            tuple(r) for r in spark.sql(f"select id, points from {table} order by id, ts").collect()
        ]

    # Run 1, integer columns: ids 1 and 2 open; id 3's unknown operation is set aside, with a
    # points value a double would round.
    write_events(
        dbt_project,
        [
            (1, 10, 1, 1, "r", at(0), 0, None),
            (2, 20, big, 2, "r", at(0), 0, None),
            (3, big, 5, 3, "x", at(0), 0, None),
        ],
        ddl=f"id int, points bigint, extra bigint, rank int, {base}",
    )
    run(dbt_project)
    history = dbt_project.table("history")
    assert dict(spark.table(history).dtypes)["points"] == "bigint"
    assert points(q) == [(3, big)]
    before, quarantined = all_rows(dbt_project, "history"), all_rows(dbt_project, quarantine)
    commits = iceberg_commits(dbt_project, "history")

    # Run 2: points, extra and rank come as doubles. extra holds 2^53 + 1 in the table, which
    # a double would round: the run fails, naming it, and writes nothing.
    doubles = f"id int, points double, extra double, rank double, {base}"
    batch = [(1, 10.5, 1.0, 1.5, "u", at(1), 0, 1), (4, 1.25, 7.0, 4.5, "x", at(1), 0, None)]
    write_events(dbt_project, batch, ddl=doubles)
    message = failure(dbt_project)
    assert (
        f"extra is bigint in the table but double in the events, where 1 value(s) of the "
        f"table lie beyond ±{2**53}"
    ) in message, message
    assert "points is" not in message and "rank is" not in message, message
    assert "a key column" not in message, message
    assert "Nothing was written" in message, message

    # extra cast back to bigint in the batch: now the quarantine's own id 3 holds a points
    # value a double would round, and the run fails before writing, naming it.
    batch = [(1, 10.5, 1, 1.5, "u", at(1), 0, 1), (4, 1.25, 7, 4.5, "x", at(1), 0, None)]
    write_events(
        dbt_project, batch, ddl=f"id int, points double, extra bigint, rank double, {base}"
    )
    message = failure(dbt_project)
    assert f"points (1 value(s) beyond ±{2**53})" in message, message
    assert "Nothing was written" in message, message
    for table, rows in (("history", before), (quarantine, quarantined)):
        assert all_rows(dbt_project, table) == rows
    assert iceberg_commits(dbt_project, "history") == commits
    assert dict(spark.table(history).dtypes)["points"] == "bigint"
    assert dict(spark.table(q).dtypes)["points"] == "bigint"

    # The set-aside id 3 moved away by hand, the same batch runs: points and rank are doubles
    # in both tables, the history's values kept exactly, in one commit of the history.
    spark.sql(f"delete from {q} where id = 3")
    run(dbt_project)
    for table in (history, q):
        types = dict(spark.table(table).dtypes)
        assert [types["points"], types["extra"], types["rank"]] == ["double", "bigint", "double"]
    assert iceberg_commits(dbt_project, "history") == commits + 1
    assert [
        tuple(r)
        for r in spark.sql(
            f"select id, points, extra, rank, dbt_valid_to is null from {history} "
            "order by id, dbt_valid_from"
        ).collect()
    ] == [(1, 10.0, 1, 1.0, False), (1, 10.5, 1, 1.5, True), (2, 20.0, big, 2.0, True)]
    assert points(q) == [(4, 1.25)]
    assert_generic_tests_pass(dbt_project)

    # The same batch again changes nothing and writes nothing, in either table.
    commits = iceberg_commits(dbt_project, "history")
    quarantine_commits = iceberg_commits(dbt_project, quarantine)
    run(dbt_project)
    assert iceberg_commits(dbt_project, "history") == commits
    assert iceberg_commits(dbt_project, quarantine) == quarantine_commits

    # Whole numbers again (bigint) go into the double column, as doubles: id 1's 11 is a
    # change. One beyond ±2^53 would be rounded: that batch fails, naming it, writing nothing.
    whole = f"id int, points bigint, extra bigint, rank int, {base}"
    write_events(dbt_project, [(2, big, 2, 2, "u", at(3), 0, 2)], ddl=whole)
    message = failure(dbt_project)
    assert (
        f"points is double in the table but bigint in the events, where 1 value(s) lie "
        f"beyond ±{2**53}"
    ) in message, message
    assert iceberg_commits(dbt_project, "history") == commits
    write_events(dbt_project, [(1, 11, 1, 2, "u", at(2), 0, 1)], ddl=whole)
    run(dbt_project)
    assert dict(spark.table(history).dtypes)["points"] == "double"
    assert [
        tuple(r)
        for r in spark.sql(
            f"select id, points from {history} order by id, dbt_valid_from"
        ).collect()
    ] == [(1, 10.0), (1, 10.5), (1, 11.0), (2, 20.0)]

    # A table partitioned by hand is written by a MERGE, which cannot change its schema in the
    # same commit: a new column fails the run, saying what to do, and writes nothing.
    spark.sql(f"alter table {history} add partition field bucket(4, id)")
    commits = iceberg_commits(dbt_project, "history")
    write_events(
        dbt_project,
        [(1, 12.5, 1, 2.0, "vip", "u", at(4), 0, 1)],
        ddl=f"id int, points double, extra bigint, rank double, note string, {base}",
    )
    message = failure(dbt_project)
    assert "the events have new, wider or retyped columns (['note'])" in message, message
    assert "its partitioning was changed by hand" in message, message
    assert "Add or widen ['note'] first, where this run would: alter table" in message, message
    assert iceberg_commits(dbt_project, "history") == commits
    assert "note" not in spark.table(history).columns
    assert f"alter table {history} add column note string after rank" in message, message

    # Added by hand at the table's end (after the metadata columns): the run says so, naming
    # the statement that moves it, and writes nothing; where it had called the table one
    # scd2_events did not build, with two empty lists, and only --full-refresh as a way out.
    spark.sql(f"alter table {history} add columns (note string)")
    message = failure(dbt_project)
    assert "has column(s) ['note'] after its metadata columns" in message, message
    move = f"alter table {history} alter column note after rank"
    assert move in message, message
    assert iceberg_commits(dbt_project, "history") == commits
    spark.sql(move)
    run(dbt_project)
    assert [
        tuple(r)
        for r in spark.sql(
            f"select id, points, note, dbt_valid_to is null from {history} "
            "where id = 1 order by dbt_valid_from"
        ).collect()
    ] == [
        (1, 10.0, None, False),
        (1, 10.5, None, False),
        (1, 11.0, None, False),
        (1, 12.5, "vip", True),
    ]


def test_a_struct_that_gained_a_field_fails_clearly_and_the_advice_works(
    dbt_project: ScratchProject,
) -> None:
    """An event column holding a struct that gained a field (a new attribute in the source's
    rows): Spark casts a struct only to one of as many fields, so the message's advice to cast
    the column back could not be followed. The run fails before anything is written, showing
    the table's fields selected by name; the model's select written so, the history goes on."""
    base = "op string, ts timestamp, lsn bigint, before_id int"
    write_model(dbt_project)
    # Run 1: two addresses.
    write_events(
        dbt_project,
        [
            (1, ("Rue A", "Lyon"), "r", at(0), 0, None),
            (2, ("Rue B", "Nantes"), "r", at(0), 0, None),
        ],
        ddl=f"id int, address struct<street: string, city: string>, {base}",
    )
    run1 = run(dbt_project)
    before = all_rows(dbt_project, "history")
    commits = iceberg_commits(dbt_project, "history")

    # Run 2: the struct gains zip, and key 2 moves to Rennes.
    write_events(
        dbt_project,
        [(2, ("Rue B", "Rennes", "35000"), "u", at(1), 0, 2)],
        ddl=f"id int, address struct<street: string, city: string, zip: string>, {base}",
    )
    message = failure(dbt_project)
    assert re.search(r"address is struct<street:string,\s*city:string> in the table", message)
    by_name = "named_struct('street', address.street, 'city', address.city) as address"
    assert by_name in message, message
    assert "Nothing was written" in message
    assert all_rows(dbt_project, "history") == before
    assert iceberg_commits(dbt_project, "history") == commits

    # The advice followed: key 2's move closes its version and opens one.
    model = dbt_project.root / "models" / "history.sql"
    model.write_text(
        model.read_text().replace("select *", f"select id, {by_name}, op, ts, lsn, before_id")
    )
    run2 = run(dbt_project)
    assert shaped_versions(dbt_project, "address.city") == [
        (1, "Lyon", 0, None, None),
        (2, "Nantes", 0, 1, "update"),
        (2, "Rennes", 1, None, None),
    ]
    assert run2.invocation_id != run1.invocation_id
    assert_generic_tests_pass(dbt_project)


def test_the_quarantine_follows_the_events_columns(dbt_project: ScratchProject) -> None:
    """A late event with a column the quarantine table does not have yet is set aside with it;
    the events' gone columns are NULL in the rows set aside from then on."""
    spark = dbt_project.spark
    base = "op string, ts timestamp, lsn bigint, before_id int"
    write_model(dbt_project)
    write_events(
        dbt_project, [(1, "Alice", "r", at(5), 0, None)], ddl=f"id int, name string, {base}"
    )
    run(dbt_project)
    # Late (before id 1's version began, other values): quarantined, creating the table.
    write_events(dbt_project, [(1, "Al", "u", at(1), 0, 1)], ddl=f"id int, name string, {base}")
    run(dbt_project)
    # The events gain tier and lose name; another late event.
    write_events(dbt_project, [(1, "gold", "u", at(2), 0, 1)], ddl=f"id int, tier string, {base}")
    run(dbt_project)
    rows = spark.sql(
        f"select name, tier, hour(ts) as hour, scd2_reason from "
        f"{dbt_project.table('history__quarantine')} order by ts"
    ).collect()
    assert [tuple(r)[:3] for r in rows] == [("Al", None, 1), (None, "gold", 2)]
    assert all(r.scd2_reason.startswith("late:") for r in rows)


def test_debezium_events_with_a_new_field(dbt_project: ScratchProject, tmp_path) -> None:
    """A database column added upstream: Debezium's `after` gains a field, the flattened events
    a column, and the history that column (NULL before), with no full refresh."""
    spark = dbt_project.spark
    spark.sql(f"create schema if not exists {dbt_project.schema}")
    write_debezium_model(dbt_project)

    def batch(name: str, lines: list[str]) -> None:
        json_batch(dbt_project, tmp_path / name, lines)

    batch(
        "day1",
        [
            debezium_line("r", None, {"id": 1, "name": "Alice"}, T0_MS, 10),
            debezium_line("r", None, {"id": 2, "name": "Bob"}, T0_MS, 11),
        ],
    )
    run(dbt_project)
    batch(
        "day2",
        [
            debezium_line(
                "u",
                {"id": 1, "name": "Alice", "email": None},
                {"id": 1, "name": "Alice", "email": "a@x.org"},
                T0_MS + HOUR_MS,
                12,
            ),
            debezium_line(
                "c", None, {"id": 3, "name": "Cy", "email": None}, T0_MS + 2 * HOUR_MS, 13
            ),
        ],
    )
    run(dbt_project)
    assert shaped_versions(dbt_project, "name, email") == [
        (1, "Alice", None, 0, 1, "update"),
        (1, "Alice", "a@x.org", 1, None, None),
        (2, "Bob", None, 0, None, None),
        (3, "Cy", None, 2, None, None),
    ]
    assert_generic_tests_pass(dbt_project)


def test_debezium_batch_where_a_field_is_null_on_every_line(
    dbt_project: ScratchProject, tmp_path
) -> None:
    """Spark types a JSON field that is null on every line of a batch as a string: a bigint,
    array or struct column of the table then takes that batch's NULLs as its own type, with no
    type change (Spark casts no string to an array or a struct: the run reads NULLs of the
    table's type)."""
    spark = dbt_project.spark
    spark.sql(f"create schema if not exists {dbt_project.schema}")
    raw = dbt_project.table("debezium_raw")
    write_debezium_model(dbt_project)

    def batch(name: str, lines: list[str]) -> None:
        json_batch(dbt_project, tmp_path / name, lines)

    def row(i: int, name: str, age, tags, address) -> dict:
        return {"id": i, "name": name, "age": age, "tags": tags, "address": address}

    batch(
        "day1",
        [
            debezium_line("r", None, row(1, "Al", 30, ["a"], {"city": "Oslo"}), T0_MS, 10),
            debezium_line("r", None, row(2, "Bo", 40, ["b"], {"city": "Rome"}), T0_MS, 11),
        ],
    )
    run(dbt_project)
    table_types = dict(spark.table(dbt_project.table("history")).dtypes)
    batch(
        "day2",
        [
            debezium_line(
                "u",
                row(1, "Al", None, None, None),
                row(1, "Al", None, None, None),
                T0_MS + HOUR_MS,
                12,
            )
        ],
    )
    inferred = dict(spark.table(raw).select("after.*").dtypes)
    assert [inferred[c] for c in ("age", "tags", "address")] == ["string"] * 3
    run(dbt_project)
    assert shaped_versions(dbt_project, "name, age, tags, address.city") == [
        (1, "Al", 30, ["a"], "Oslo", 0, 1, "update"),
        (1, "Al", None, None, None, 1, None, None),
        (2, "Bo", 40, ["b"], "Rome", 0, None, None),
    ]
    assert dict(spark.table(dbt_project.table("history")).dtypes) == table_types
    assert [table_types[c] for c in ("age", "tags", "address")] == [
        "bigint",
        "array<string>",
        "struct<city:string>",
    ]


def test_debezium_placeholder_for_a_value_not_sent_is_malformed(
    dbt_project: ScratchProject, tmp_path
) -> None:
    """PostgreSQL logs an update's unchanged TOASTed values (large text, bytes, arrays) only
    under REPLICA IDENTITY FULL; otherwise Debezium sends its placeholder instead of the
    value. Taken as the value, the history would hold the placeholder's text as the row's
    notes. Such an event is malformed: the run fails naming the field and writes nothing, or
    sets the event aside with on_malformed_event='quarantine'; unavailable_value names another
    placeholder, or none to take the text as it is."""
    spark = dbt_project.spark
    spark.sql(f"create schema if not exists {dbt_project.schema}")
    placeholder = "__debezium_unavailable_value"
    as_bytes = base64.b64encode(placeholder.encode()).decode()

    def model(config: str = "", unavailable: str | None = None) -> None:
        args = "" if unavailable is None else f"unavailable_value={unavailable}"
        write_debezium_model(dbt_project, config=config, macro_args=args)

    def row(i: int, name: str, notes: str, tags: list[str], photo: str = "cGhvdG8=") -> dict:
        return {"id": i, "name": name, "notes": notes, "tags": tags, "photo": photo}

    day1 = [
        debezium_line("r", None, row(1, "Al", "long notes", ["a"]), T0_MS, 10),
        debezium_line("r", None, row(2, "Bo", "notes 2", ["b"]), T0_MS, 11),
        debezium_line("r", None, row(3, "Cy", "notes 3", ["c"]), T0_MS, 12),
    ]
    json_batch(dbt_project, tmp_path / "day1", day1)
    model()
    run(dbt_project)
    opened = [(1, "Al", 0, None, None), (2, "Bo", 0, None, None), (3, "Cy", 0, None, None)]
    assert brief(versions(dbt_project)) == opened
    commits = iceberg_commits(dbt_project, "history")

    # Day 2: three updates leave columns unsent (text; text and an array of text; bytes as
    # base64), beside a fourth, whole update of key 1's name.
    day2 = [
        debezium_line("u", None, row(1, "Alice", placeholder, ["a"]), T0_MS + HOUR_MS, 20),
        debezium_line("u", None, row(2, "Bob", placeholder, [placeholder]), T0_MS + HOUR_MS, 21),
        debezium_line(
            "u", None, row(3, "Cyd", "notes 3", ["c"], photo=as_bytes), T0_MS + HOUR_MS, 22
        ),
        debezium_line("u", None, row(1, "Ali", "long notes", ["a"]), T0_MS + 2 * HOUR_MS, 23),
    ]
    json_batch(dbt_project, tmp_path / "day2", day2)
    message = failure(dbt_project)
    assert "3 malformed event(s)" in message, message
    assert "u: a change without the value of notes (" in message, message
    assert "REPLICA IDENTITY is FULL" in message and "Oracle's LOBs" in message, message
    assert brief(versions(dbt_project)) == opened
    assert iceberg_commits(dbt_project, "history") == commits

    # Set aside instead: key 1's whole update applies after the one set aside; 2 and 3 stay.
    model(config="on_malformed_event='quarantine',")
    run(dbt_project)
    assert brief(versions(dbt_project)) == [
        (1, "Al", 0, 2, "update"),
        (1, "Ali", 2, None, None),
        (2, "Bo", 0, None, None),
        (3, "Cy", 0, None, None),
    ]
    reasons = spark.sql(
        f"select id, op, scd2_reason from {dbt_project.table('history__quarantine')} order by id"
    ).collect()
    assert [r.id for r in reasons] == [1, 2, 3], reasons
    for reason, fields in zip(reasons, ["notes", "notes, tags", "photo"], strict=True):
        assert reason.scd2_reason.startswith("malformed: "), reason
        # The event's own operation comes first, so that the quarantine keeps it.
        assert reason.op.startswith(f"u: a change without the value of {fields} ("), reason

    # Another placeholder: only it is one; the default's text is then a value like any other.
    json_batch(
        dbt_project,
        tmp_path / "day3",
        [
            debezium_line("u", None, row(2, "Bob", "<unsent>", ["b"]), T0_MS + 3 * HOUR_MS, 30),
            debezium_line("u", None, row(3, "Cyd", placeholder, ["c"]), T0_MS + 3 * HOUR_MS, 31),
        ],
    )
    model(unavailable="'<unsent>'")
    message = failure(dbt_project)
    assert "1 malformed event(s)" in message and "<unsent>" in message, message
    model(unavailable="none")
    run(dbt_project)
    notes = spark.sql(
        f"select id, notes from {dbt_project.table('history')} "
        "where audit_update_process_id is null order by id"
    ).collect()
    assert [tuple(r) for r in notes] == [
        (1, "long notes"),
        (2, "<unsent>"),
        (3, placeholder),
    ]


def quarantined(project: ScratchProject, columns: str = "id, name") -> list[tuple]:
    table = project.table("history__quarantine")
    return sorted(
        (tuple(r) for r in project.spark.sql(f"select {columns} from {table}").collect()),
        key=str,
    )


def test_an_event_is_one_event_whatever_else_the_select_adds_or_where_its_nulls_are(
    dbt_project: ScratchProject,
) -> None:
    """An event's id is a hash of its key, operation, ordering, old-key and value columns, and
    of which of them are NULL: a load time the model's select adds (a new value at each read)
    does not lose the events set aside when the quarantine reads them again, and two events
    that differ only in which column is NULL are two events."""
    write_model(
        dbt_project,
        "event_value_columns=['name'], on_malformed_event='quarantine',",
    )
    model = dbt_project.root / "models" / "history.sql"
    model.write_text(model.read_text().replace("select *", "select *, current_timestamp() as t"))
    write_events(dbt_project, [ev("c", 1, "A", 0), ev("u", 1, "B", 5, old=1)])
    run(dbt_project)
    # a late update of 1, a malformed create (null key), a new key
    write_events(
        dbt_project, [ev("u", 1, "X", 3, old=1), ev("c", None, "N", 6), ev("c", 2, "C", 1)]
    )
    run(dbt_project)
    assert brief(versions(dbt_project)) == [
        (1, "A", 0, 5, "update"),
        (1, "B", 5, None, None),
        (2, "C", 1, None, None),
    ]
    assert quarantined(dbt_project) == sorted([(1, "X"), (None, "N")], key=str)
    run(dbt_project)  # a replay quarantines nothing again
    assert len(quarantined(dbt_project)) == 2

    # (NULL, 'k1') and ('k1', NULL) in two string columns: xxhash64 alone hashes them alike
    dbt_project.write(
        "models/history.sql",
        """
        {{ config(materialized='scd2_events', unique_key='id', event_order_by=['ts', 'lsn'],
                  on_malformed_event='quarantine', event_quarantine='q2') }}
        select * from {{ target.schema }}.raw_pairs
        """,
    )
    ddl = "src string, id string, name string, op string, ts timestamp, lsn bigint"
    write_events(
        dbt_project,
        [(None, "k1", "n", "c", at(0), 0), ("k1", None, "n", "c", at(0), 0)],
        table="raw_pairs",
        ddl=ddl,
    )
    run(dbt_project, "--full-refresh")
    rows = dbt_project.spark.sql(f"select id, name from {dbt_project.table('history')}").collect()
    assert [tuple(r) for r in rows] == [("k1", "n")]
    q2 = dbt_project.spark.sql(f"select src, id, scd2_reason from {dbt_project.table('q2')}")
    assert [tuple(r) for r in q2.collect()] == [("k1", None, "malformed: null key")]


def test_full_refresh_from_a_relation_of_the_latest_batch_is_refused(
    dbt_project: ScratchProject,
) -> None:
    """`--full-refresh` rebuilds the history from the events the relation holds now: from a
    relation of the latest batch alone it dropped the versions before it without a word. It
    is refused then, writing nothing; from a relation holding every event it rebuilds; with
    full_refresh=false in the model's config, --full-refresh leaves the table to a run."""
    write_model(dbt_project)
    day1 = [ev("r", 1, "Alice", 0), ev("r", 2, "Bob", 0)]
    write_events(dbt_project, day1)
    run(dbt_project)
    day2 = [ev("u", 1, "Angela", 5, old=1), ev("c", 3, "Cid", 6)]
    write_events(dbt_project, day2)
    run(dbt_project)
    built = [
        (1, "Alice", 0, 5, "update"),
        (1, "Angela", 5, None, None),
        (2, "Bob", 0, None, None),
        (3, "Cid", 6, None, None),
    ]
    assert brief(versions(dbt_project)) == built
    before = (all_rows(dbt_project, "history"), iceberg_commits(dbt_project, "history"))

    message = failure(dbt_project, "--full-refresh")  # the relation holds day 2 alone
    assert "begin at 2024-01-01 05:00:00" in message, message
    assert "begins at 2024-01-01 00:00:00" in message, message
    assert "drop the 2 version(s) (of 4)" in message, message  # Alice, Bob
    assert "Nothing was written" in message and "full_refresh=false" in message, message
    write_events(dbt_project, [])  # no event at all
    assert "which are none" in failure(dbt_project, "--full-refresh")
    assert (all_rows(dbt_project, "history"), iceberg_commits(dbt_project, "history")) == before

    # Every event: the rebuild gives the same versions, from one run.
    write_events(dbt_project, day1 + day2)
    rebuild = run(dbt_project, "--full-refresh")
    rows = versions(dbt_project)
    assert brief(rows) == built
    assert {r["audit_insert_process_id"] for r in rows} == {rebuild.invocation_id}

    # full_refresh=false: --full-refresh runs the model as a later run (a new update of 2).
    write_model(dbt_project, "full_refresh=false,")
    write_events(dbt_project, [ev("u", 2, "Bea", 7, old=2)])
    run(dbt_project, "--full-refresh")
    assert brief(versions(dbt_project)) == [
        *built[:2],
        (2, "Bob", 0, 7, "update"),
        (2, "Bea", 7, None, None),
        built[3],
    ]


def test_keys_holding_the_separator_and_a_key_change_into_the_same_values(
    dbt_project: ScratchProject,
) -> None:
    """dbt_scd_id tells ('a|b', 'c') from ('a', 'b|c') at one position; a key change into a key
    whose open version has the same values opens a version that records the key it came
    from (docs/events.md)."""
    dbt_project.write(
        "models/history.sql",
        """
        {{ config(materialized='scd2_events', unique_key=['k1', 'k2'],
                  event_order_by=['ts', 'lsn'], event_old_key_columns=['old1', 'old2']) }}
        select * from {{ target.schema }}.raw_events
        """,
    )
    ddl = "k1 string, k2 string, name string, op string, ts timestamp, lsn bigint, "
    ddl += "old1 string, old2 string"
    write_events(
        dbt_project,
        [
            ("a|b", "c", "same", "c", at(0), 0, None, None),
            ("a", "b|c", "same", "c", at(0), 0, None, None),
        ],
        ddl=ddl,
    )
    run(dbt_project)
    table = dbt_project.table("history")
    ids = dbt_project.spark.sql(f"select distinct dbt_scd_id from {table}").count()
    assert ids == 2
    # ('a|b', 'c') becomes ('a', 'b|c'), which already holds 'same'
    write_events(dbt_project, [("a", "b|c", "same", "u", at(1), 0, "a|b", "c")], ddl=ddl)
    run(dbt_project)
    rows = dbt_project.spark.sql(
        f"""
        select k1, k2, name, hour(dbt_valid_from), hour(dbt_valid_to), event_closed_as,
            event_previous_key.k1 as from_k1
        from {table} order by k1, k2, dbt_valid_from
        """
    ).collect()
    assert [tuple(r) for r in rows] == [
        ("a", "b|c", "same", 0, 1, "update", None),
        ("a", "b|c", "same", 1, None, None, "a|b"),
        ("a|b", "c", "same", 0, 1, "key_change", None),
    ]
    assert dbt_project.spark.sql(f"select distinct dbt_scd_id from {table}").count() == 3

    # An update whose composite old key is missing a part is malformed, and said so; one with
    # none of it is an update without an old key. Nothing is written either way.
    commits = iceberg_commits(dbt_project, "history")
    for old, said in (
        (("a", None), "update with a null in its old key (old1, old2)"),
        ((None, None), "update without an old key (old1, old2)"),
    ):
        write_events(dbt_project, [("a", "b|c", "new", "u", at(2), 0, *old)], ddl=ddl)
        message = failure(dbt_project)
        assert "1 malformed event(s)" in message and said in message, message
        assert iceberg_commits(dbt_project, "history") == commits


def test_ordering_columns_follow_their_types_or_the_run_is_refused(
    dbt_project: ScratchProject,
) -> None:
    """The positions (event_opened_position ...) hold the event_order_by columns, the first of
    which is dbt_valid_from: a tie-breaker that widens widens them with it; an event time of
    another type (date for timestamp) or another event_order_by fails the run before anything
    is written, with no branch left behind."""
    spark = dbt_project.spark
    write_model(dbt_project)
    lsn_int = "id int, name string, op string, ts timestamp, lsn int, before_id int"
    write_events(dbt_project, [(1, "A", "r", at(0), 1, None)], ddl=lsn_int)
    run(dbt_project)

    # Run 2: lsn is a bigint now, with a value no int holds.
    write_events(dbt_project, [(1, "B", "u", at(1), 5_000_000_000, 1)])
    run(dbt_project)
    assert brief(versions(dbt_project)) == [(1, "A", 0, 1, "update"), (1, "B", 1, None, None)]
    lsns = spark.sql(
        f"select event_opened_position.lsn as lsn from {dbt_project.table('history')} order by lsn"
    ).collect()
    assert [r.lsn for r in lsns] == [1, 5_000_000_000]
    types = dict(spark.table(dbt_project.table("history")).dtypes)
    assert types["event_opened_position"] == "struct<ts:timestamp,lsn:bigint>"
    assert types["event_last_position"] == "struct<ts:timestamp,lsn:bigint>"

    # Run 3: the event time as a date: refused, naming it and both types.
    before = all_rows(dbt_project, "history")
    commits = iceberg_commits(dbt_project, "history")
    date_ts = "id int, name string, op string, ts date, lsn bigint, before_id int"
    write_events(dbt_project, [(1, "C", "u", datetime(2024, 1, 2), 9, 1)], ddl=date_ts)
    message = failure(dbt_project)
    assert (
        "ts (event_order_by, held in event_opened_position and dbt_valid_from) is timestamp "
        "in the table but date in the events" in message
    )
    assert "Nothing was written" in message

    # Run 4: a tie-breaker dropped from event_order_by: refused, naming both lists.
    write_events(dbt_project, [(1, "C", "u", at(2), 9, 1)])
    model = dbt_project.root / "models" / "history.sql"
    model.write_text(model.read_text().replace("['ts', 'lsn']", "['ts']"))
    message = failure(dbt_project)
    assert "event_opened_position holds event_order_by ['ts', 'lsn']" in message
    assert "the model's event_order_by is ['ts']" in message
    assert all_rows(dbt_project, "history") == before
    assert iceberg_commits(dbt_project, "history") == commits
    assert refs(dbt_project, "history") == ["main"]


def test_decimals_that_widen_or_fit_compare_with_the_table(dbt_project: ScratchProject) -> None:
    """A decimal value column and tie-breaker of a larger precision widen the table's; of a
    smaller one, they are read as the table's. The run compares the events' values and
    positions with the table's as structs, where Spark finds no common type for decimals of
    two precisions: both runs failed with DATATYPE_MISMATCH."""
    spark = dbt_project.spark
    write_model(dbt_project)

    def ddl(amt: str, lsn: str) -> str:
        return f"id int, name string, amt {amt}, op string, ts timestamp, lsn {lsn}, before_id int"

    def amounts() -> list[tuple]:
        rows = spark.sql(
            f"select id, amt, hour(dbt_valid_from) as h, event_closed_as "
            f"from {dbt_project.table('history')} order by id, dbt_valid_from"
        ).collect()
        return [tuple(r) for r in rows]

    d = Decimal
    write_events(
        dbt_project,
        [(1, "A", d("1.50"), "r", at(0), d(0), None), (2, "B", d("2.50"), "r", at(0), d(0), None)],
        ddl=ddl("decimal(10,2)", "decimal(20,0)"),
    )
    run(dbt_project)

    # Run 2, wider: id 1 unchanged (a no-op), id 2 to a value only decimal(12,2) holds, id 3 new.
    write_events(
        dbt_project,
        [
            (1, "A", d("1.50"), "u", at(1), d(10**21), 1),
            (2, "B", d("1234567890.25"), "u", at(2), d(10**21), 2),
            (3, "C", d("3.00"), "c", at(3), d(10**21), None),
        ],
        ddl=ddl("decimal(12,2)", "decimal(22,0)"),
    )
    run(dbt_project)
    types = dict(spark.table(dbt_project.table("history")).dtypes)
    assert types["amt"] == "decimal(12,2)"
    assert types["event_opened_position"] == "struct<ts:timestamp,lsn:decimal(22,0)>"
    assert amounts() == [
        (1, d("1.50"), 0, None),
        (2, d("2.50"), 0, "update"),
        (2, d("1234567890.25"), 2, None),
        (3, d("3.00"), 3, None),
    ]

    # Run 3, narrower: id 1 unchanged again, id 3 changed.
    write_events(
        dbt_project,
        [
            (1, "A", d("1.5"), "u", at(4), d(10**19), 1),
            (3, "C", d("4.5"), "u", at(5), d(10**19), 3),
        ],
        ddl=ddl("decimal(8,1)", "decimal(20,0)"),
    )
    run(dbt_project)
    assert dict(spark.table(dbt_project.table("history")).dtypes)["amt"] == "decimal(12,2)"
    assert amounts() == [
        (1, d("1.50"), 0, None),
        (2, d("2.50"), 0, "update"),
        (2, d("1234567890.25"), 2, None),
        (3, d("3.00"), 3, "update"),
        (3, d("4.50"), 5, None),
    ]
    assert_generic_tests_pass(dbt_project)


def test_events_a_millisecond_apart_are_two_events(dbt_project: ScratchProject) -> None:
    """Spark's to_json writes timestamps to the millisecond: ids and hashes built on it took
    two versions 800 microseconds apart for one (one dbt_scd_id), and a late event for another
    already set aside. A late event delivered twice in one batch is set aside once."""
    write_model(dbt_project)

    def micro(op: str, name: str, hour: int, microseconds: int) -> tuple:
        return (1, name, op, at(hour) + timedelta(microseconds=microseconds), 0, 1)

    write_events(dbt_project, [micro("r", "A", 0, 0)])
    run(dbt_project)
    write_events(dbt_project, [micro("u", "B", 1, 100), micro("u", "C", 1, 900)])
    run(dbt_project)
    table = dbt_project.table("history")
    rows = dbt_project.spark.sql(
        f"select name, dbt_scd_id, dbt_valid_to is null as open from {table} "
        "order by event_opened_position"
    ).collect()
    assert [(r.name, r.open) for r in rows] == [("A", False), ("B", False), ("C", True)]
    assert len({r.dbt_scd_id for r in rows}) == 3

    # Late (before C, other values): 500 and 600 microseconds past hour 0, the first twice.
    late = [micro("u", "L", 0, 500), micro("u", "L", 0, 500), micro("u", "L", 0, 600)]
    write_events(dbt_project, late)
    run(dbt_project)
    assert quarantined(dbt_project, "name, cast(unix_micros(ts) % 1000000 as int)") == [
        ("L", 500),
        ("L", 600),
    ]
    run(dbt_project)  # the same batch again sets nothing aside twice
    assert len(quarantined(dbt_project)) == 2


def test_dbt_valid_to_current_of_the_event_times_type(dbt_project: ScratchProject) -> None:
    """A date event time makes dbt_valid_from a date: dbt_valid_to_current must be a date too
    (a timestamp made dbt_valid_to a timestamp column beside it)."""
    ddl = "id int, name string, op string, ts date, lsn bigint, before_id int"
    write_events(dbt_project, [(1, "A", "r", datetime(2024, 1, 1), 0, None)], ddl=ddl)
    write_model(dbt_project, "dbt_valid_to_current=\"to_timestamp('9999-12-31')\",")
    message = failure(dbt_project)
    assert (
        "dbt_valid_to_current (to_timestamp('9999-12-31')) is of type timestamp but the event "
        "time, which dbt_valid_from holds, is of type date" in message
    )
    assert "to_date('9999-12-31')" in message and "Nothing was written" in message
    assert not dbt_project.spark.catalog.tableExists(dbt_project.table("history"))

    write_model(dbt_project, "dbt_valid_to_current=\"to_date('9999-12-31')\",")
    run(dbt_project)
    types = dict(dbt_project.spark.table(dbt_project.table("history")).dtypes)
    assert (types["dbt_valid_from"], types["dbt_valid_to"]) == ("date", "date")
