"""Analyst models over the snapshots: current state, as of, change feed, run audit, legacy view.

The project's own snapshots and models run in a scratch project on hand-made `cdc_source` days
(2 keys, 2 values, updated_at): seed, snapshot, change, snapshot, `dbt run`, `dbt test`. Every
figure is exact: rows per change type with the snapshot runs' invocation ids, run audit counts,
and states equal to the seeded days.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import yaml

from python_helpers.runtime.dbt_invoke import DbtStep
from python_helpers.tooling.scratch import ScratchProject
from tests.snapshot_helpers import compiled_code

VARS = ("--vars", "{cdc_no_keys: 2}")
SNAPSHOTS = ("cdc_check_snapshot", "cdc_timestamp_snapshot")
HEADER = "key_1,key_2,col_1,col_2,updated_at"
DATA = ("key_1", "key_2", "col_1", "col_2", "updated_at")
DAY1 = [
    "k1,a,1.5,10.5,2024-01-01 00:00:00",  # updated on day 2 (col_1)
    "k1,b,2.5,20.5,2024-01-01 00:00:00",  # unchanged
    "k2,a,3.5,30.5,2024-01-01 00:00:00",  # deleted on day 2
    "k2,b,4.5,40.5,2024-01-01 00:00:00",  # updated on day 2 (col_2)
]
DAY2 = [
    "k1,a,1.75,10.5,2024-01-02 00:00:00",
    "k1,b,2.5,20.5,2024-01-01 00:00:00",
    "k2,b,4.5,41.5,2024-01-02 00:00:00",
    "k3,a,5.5,50.5,2024-01-02 00:00:00",  # inserted on day 2
]
# Between the two days on the business time axis (the timestamp strategy's validity).
BETWEEN_BUSINESS_DAYS = "2024-01-01 12:00:00"

Row = tuple[Any, ...]


def _rows(lines: list[str]) -> set[Row]:
    """Seed lines as the tuples Spark returns for DATA (strings, doubles, timestamp text)."""
    out = set()
    for line in lines:
        k1, k2, c1, c2, ts = line.split(",")
        out.add((k1, k2, float(c1), float(c2), ts))
    return out


def _select(project: ScratchProject, sql: str) -> list[dict[str, Any]]:
    return [r.asDict() for r in project.spark.sql(sql).collect()]


def _state(project: ScratchProject, relation: str) -> set[Row]:
    """The key and data columns of a relation (a table name or a parenthesised query)."""
    source = relation if relation.startswith("(") else project.table(relation)
    rows = project.spark.sql(
        f"""
        select key_1, key_2, col_1, col_2,
            date_format(updated_at, 'yyyy-MM-dd HH:mm:ss') as updated_at
        from {source} as state
        """
    ).collect()
    result = {tuple(r) for r in rows}
    assert len(result) == len(rows), f"duplicate rows in {relation}"
    return result


@pytest.fixture
def project(dbt_project: ScratchProject) -> ScratchProject:
    """The scratch project with the project's own models and snapshots."""
    return ScratchProject(
        dbt_project.root, dbt_project.schema, dbt_project.spark, include=("models", "snapshots")
    )


def _day(project: ScratchProject, lines: list[str]) -> DbtStep:
    project.write_seed("cdc_source", HEADER, lines)
    project.dbt("seed", "--full-refresh", *VARS)
    return project.dbt("snapshot", *VARS)


def test_analyst_models_on_two_days(project: ScratchProject) -> None:
    # hard_deletes='new_record' beside the project's two: its deletion records must not show
    # up as changes of their own.
    project.write(
        "snapshots/cdc_new_record_snapshot.sql",
        """
        {% snapshot cdc_new_record_snapshot %}
        {{ config(unique_key=cdc_key_columns(), strategy='check', check_cols='all',
                  hard_deletes='new_record') }}
        select * from {{ ref('cdc_source') }}
        {% endsnapshot %}
        """,
    )
    project.write(
        "models/new_record_change_feed.sql",
        "select * from ({{ scd2_change_feed(ref('cdc_new_record_snapshot')) }}) as feed\n",
    )
    project.write(
        "models/new_record_current.sql",
        "select * from ({{ scd2_current(ref('cdc_new_record_snapshot')) }}) as state\n",
    )

    # Before the first snapshot the models still compile (dbt compile, docs, sqlfluff): the
    # columns documented for the snapshot stand in for the missing table's.
    compiled = project.dbt("compile", "-s", "cdc_check_current", *VARS)
    assert "`key_5`," in compiled_code(compiled)

    run1 = _day(project, DAY1)
    # A moment after run 1 and before run 2, on the processing time axis (the check
    # strategy's validity).
    between_runs = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    time.sleep(1)
    run2 = _day(project, DAY2)
    assert run1.invocation_id != run2.invocation_id
    project.dbt("run", *VARS)
    project.dbt("test", *VARS)
    day1, day2 = _rows(DAY1), _rows(DAY2)

    # Current state: the latest day exactly, for both strategies.
    assert _state(project, "cdc_check_current") == day2
    assert _state(project, "cdc_timestamp_current") == day2
    # As of now (var as_of_ts defaults to current_timestamp()): the latest day too.
    assert _state(project, "cdc_check_as_of") == day2
    assert _state(project, "cdc_timestamp_as_of") == day2

    # The deleted key's open row there is dbt's deletion record: no part of any state.
    assert _state(project, "new_record_current") == day2
    for moment, state in (("current_timestamp()", day2), (between_runs, day1)):
        inline = project.dbt(
            "compile",
            *VARS,
            "--inline",
            "{{ scd2_as_of(ref('cdc_new_record_snapshot'), '" + moment + "') }}",
        )
        assert _state(project, f"({compiled_code(inline)})") == state, moment

    # Change feed: exact rows, with the snapshot runs' invocation ids.
    k1a_old, k1b, k2a, k2b_old = sorted(day1)
    k1a_new, k2b_new, k3a = sorted(day2 - {k1b})
    expected_changes = {
        *[(run1.invocation_id, "insert", *row) for row in day1],
        (run2.invocation_id, "update_preimage", *k1a_old),
        (run2.invocation_id, "update_postimage", *k1a_new),
        (run2.invocation_id, "update_preimage", *k2b_old),
        (run2.invocation_id, "update_postimage", *k2b_new),
        (run2.invocation_id, "delete", *k2a),
        (run2.invocation_id, "insert", *k3a),
    }
    feed = _select(
        project,
        f"""
        select snapshot_name, _process_id, _change_type, key_1, key_2, col_1, col_2,
            date_format(updated_at, 'yyyy-MM-dd HH:mm:ss') as updated_at, _commit_timestamp
        from {project.table("snapshot_change_feed")}
        """,
    )
    assert len(feed) == 2 * len(expected_changes)
    for snapshot in SNAPSHOTS:
        rows = [r for r in feed if r["snapshot_name"] == snapshot]
        got = {tuple(r[c] for c in ("_process_id", "_change_type", *DATA)) for r in rows}
        assert got == expected_changes, snapshot
        # _commit_timestamp: the run's processing time, one per run, as in the snapshot.
        commit = {r["_process_id"]: set() for r in rows}
        for r in rows:
            commit[r["_process_id"]].add(r["_commit_timestamp"])
        [run1_at], [run2_at] = commit[run1.invocation_id], commit[run2.invocation_id]
        assert run1_at < run2_at
        inserted_at = _select(
            project,
            f"""
            select audit_insert_process_id as run, min(audit_insert_ts) as first,
                max(audit_insert_ts) as last
            from {project.table(snapshot)} group by 1
            """,
        )
        assert {(r["run"], r["first"], r["last"]) for r in inserted_at} == {
            (run1.invocation_id, run1_at, run1_at),
            (run2.invocation_id, run2_at, run2_at),
        }

    # The new_record snapshot's feed is the same changes: its deletion record is no change.
    new_record = _select(
        project,
        f"""
        select snapshot_name, _process_id, _change_type, key_1, key_2, col_1, col_2,
            date_format(updated_at, 'yyyy-MM-dd HH:mm:ss') as updated_at
        from {project.table("new_record_change_feed")}
        """,
    )
    assert {r["snapshot_name"] for r in new_record} == {"cdc_new_record_snapshot"}
    assert {tuple(r[c] for c in ("_process_id", "_change_type", *DATA)) for r in new_record} == (
        expected_changes
    )

    # Run audit: per snapshot and run.
    audit = _select(
        project,
        f"select * from {project.table('snapshot_run_audit')} order by first_processed_ts",
    )
    counts = (
        "versions_inserted",
        "keys_inserted",
        "versions_updated",
        "versions_deleted",
        "versions_unchanged",
        "open_versions",
    )
    for snapshot in SNAPSHOTS:
        rows = [r for r in audit if r["snapshot_name"] == snapshot]
        assert [(r["process_id"], *(r[c] for c in counts)) for r in rows] == [
            (run1.invocation_id, 4, 4, 0, 0, 0, 4),
            (run2.invocation_id, 3, 1, 2, 1, 1, 4),
        ], snapshot
        for r in rows:
            assert r["first_processed_ts"] == r["last_processed_ts"]

    # As of a moment between the runs: day 1 exactly. The check strategy's validity is
    # processing time (model + var as_of_ts); the timestamp strategy's is the source's
    # updated_at, so its day 1 lies between the business days (the macro, inline).
    project.dbt(
        "run", "-s", "cdc_check_as_of", "--vars", f"{{cdc_no_keys: 2, as_of_ts: '{between_runs}'}}"
    )
    assert _state(project, "cdc_check_as_of") == day1
    inline = project.dbt(
        "compile",
        *VARS,
        "--inline",
        "{{ scd2_as_of(ref('cdc_timestamp_snapshot'), '" + BETWEEN_BUSINESS_DAYS + "') }}",
    )
    assert _state(project, f"({compiled_code(inline)})") == day1
    # Before anything was snapshotted: nothing.
    inline = project.dbt(
        "compile",
        *VARS,
        "--inline",
        "{{ scd2_as_of(ref('cdc_check_snapshot'), 'current_timestamp() - interval 1 day') }}",
    )
    assert _state(project, f"({compiled_code(inline)})") == set()

    # Legacy view: every version, the high-end timestamp instead of NULL in dbt_valid_to.
    for snapshot, legacy in zip(
        SNAPSHOTS, ("cdc_check_legacy", "cdc_timestamp_legacy"), strict=True
    ):
        joined = _select(
            project,
            f"""
            select s.dbt_valid_to as original,
                date_format(l.dbt_valid_to, 'yyyy-MM-dd HH:mm:ss') as legacy_text,
                l.dbt_valid_to as legacy, l.effective_end_ts as effective_end
            from {project.table(snapshot)} as s
            join {project.table(legacy)} as l on s.dbt_scd_id = l.dbt_scd_id
            """,
        )
        assert len(joined) == 7
        assert project.spark.table(project.table(legacy)).columns == (
            project.spark.table(project.table(snapshot)).columns
        )
        for r in joined:
            if r["original"] is None:
                assert r["legacy_text"] == "9999-12-31 23:59:59"
            else:
                assert r["legacy"] == r["original"]
            assert r["legacy"] == r["effective_end"]
        assert sum(r["original"] is None for r in joined) == 4

    # dbt unit tests: the snapshot is a fixture (a CTE of the test's query), and dbt gives the
    # macros no graph. Given its key, scd2_current reads the fixture with the snapshot
    # table's columns; without it, the message says what to pass (the demo model gives none).
    project.write(
        "models/unit_current.sql",
        "with current_state as (\n"
        "    {{ scd2_current(ref('cdc_check_snapshot'), unique_key=['key_1', 'key_2']) }}\n"
        ")\n\nselect * from current_state\n",
    )
    closed = "2024-01-02 00:00:00"
    fixture = {
        "input": "ref('cdc_check_snapshot')",
        "rows": [
            {
                "key_1": "k1",
                "key_2": "a",
                "col_1": 1.0,
                "dbt_valid_to": closed,
                "audit_update_process_id": "r2",
            },
            {
                "key_1": "k1",
                "key_2": "a",
                "col_1": 2.0,
                "dbt_valid_to": None,
                "audit_update_process_id": None,
            },
            {
                "key_1": "k2",
                "key_2": "a",
                "col_1": 3.0,
                "dbt_valid_to": closed,
                "audit_update_process_id": "r2",
            },
        ],
    }
    expect = {"rows": [{"key_1": "k1", "key_2": "a", "col_1": 2.0}]}
    project.write(
        "models/unit_tests.yml",
        yaml.safe_dump(
            {
                "version": 2,
                "unit_tests": [
                    {"name": name, "model": model, "given": [fixture], "expect": expect}
                    for name, model in (
                        ("ut_keyed", "unit_current"),
                        ("ut_demo", "cdc_check_current"),
                    )
                ],
            }
        ),
    )
    step = project.dbt("test", "--select", "ut_keyed", "ut_demo", *VARS, check=False)
    status = {r.node.name: (str(r.status), r.message or "") for r in step.result.results}
    assert status["ut_keyed"][0] == "pass", status["ut_keyed"][1]
    assert status["ut_demo"][0] == "error", status
    assert (
        "In a dbt unit test (its fixture is __dbt__cte__cdc_check_snapshot)" in status["ut_demo"][1]
    )
    for written in ("unit_tests.yml", "unit_current.sql"):
        (project.root / "models" / written).unlink()

    # Docs: every column of every model and source in the catalog has a description.
    project.dbt("docs", "generate", "--write-json", *VARS)
    manifest = json.loads((project.root / "target" / "manifest.json").read_text())
    catalog = json.loads((project.root / "target" / "catalog.json").read_text())
    documented = {**manifest["nodes"], **manifest["sources"]}
    missing = []
    for unique_id, entry in {**catalog["nodes"], **catalog["sources"]}.items():
        node = documented[unique_id]
        if node["resource_type"] not in {"model", "source"} or node["name"].startswith(
            "new_record"
        ):
            continue
        if not node["description"]:
            missing.append(unique_id)
        for column in entry["columns"]:
            if not node["columns"].get(column.lower(), {}).get("description"):
                missing.append(f"{unique_id}.{column}")
    assert not missing
    models = {n["name"] for n in manifest["nodes"].values() if n["resource_type"] == "model"}
    assert {
        "cdc_check_current",
        "cdc_timestamp_current",
        "cdc_check_as_of",
        "cdc_timestamp_as_of",
        "snapshot_change_feed",
        "snapshot_run_audit",
        "cdc_check_legacy",
        "cdc_timestamp_legacy",
    } <= models
    assert {f"model.scd2_audit.{m}" for m in models} <= set(catalog["nodes"])


def _as_of_sql(project: ScratchProject, snapshot: str, moment: str, *args: str) -> str:
    """The SQL of scd2_as_of on a snapshot, compiled by dbt."""
    step = project.dbt(
        "compile", *args, "--inline", f"{{{{ scd2_as_of(ref('{snapshot}'), '{moment}') }}}}"
    )
    return compiled_code(step)


def test_change_feed_and_as_of_on_generated_days(project: ScratchProject) -> None:
    """The generator's default days (10000 10000 5 10 0.2 0.4 0.4), written as tables."""
    generator = pytest.importorskip("python_helpers.generator")
    from python_helpers.generator.output import write_tables

    spark = project.spark
    spec = generator.GeneratorSpec(10000, 10000, 5, 10, 0.2, 0.4, 0.4)
    write_tables(generator.generate_day(spark, spec, 1), project.schema)
    run1 = project.dbt("snapshot")
    between_runs = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    time.sleep(1)
    write_tables(generator.generate_day(spark, spec, 2), project.schema)
    run2 = project.dbt("snapshot")
    project.dbt("run")

    feed = spark.sql(
        f"""
        select snapshot_name, _process_id, _change_type, count(*) as changes
        from {project.table("snapshot_change_feed")}
        group by 1, 2, 3
        """
    ).collect()
    for snapshot in SNAPSHOTS:
        counts = {
            (r._process_id, r._change_type): r.changes for r in feed if r.snapshot_name == snapshot
        }
        assert counts == {
            (run1.invocation_id, "insert"): 10000,
            (run2.invocation_id, "insert"): 2000,
            (run2.invocation_id, "update_preimage"): 4000,
            (run2.invocation_id, "update_postimage"): 4000,
            (run2.invocation_id, "delete"): 2000,
        }, snapshot
    audit = spark.sql(
        f"""
        select snapshot_name, versions_inserted, keys_inserted, versions_updated,
            versions_deleted, versions_unchanged, open_versions
        from {project.table("snapshot_run_audit")}
        where process_id = '{run2.invocation_id}'
        """
    ).collect()
    assert sorted(tuple(r) for r in audit) == [
        (snapshot, 6000, 2000, 4000, 2000, 4000, 10000) for snapshot in SNAPSHOTS
    ]

    def same(sql: str, day: int) -> None:
        """Same rows as the day's source: same size, and no row of one missing in the other."""
        state = spark.sql(sql)
        source = generator.generate_day(spark, spec, day).source
        assert state.columns == source.columns
        assert state.count() == 10000
        assert state.exceptAll(source).count() == 0  # with equal sizes: equal multisets

    # Between the snapshots: day 1. The check strategy's validity is processing time, the
    # timestamp strategy's the source's updated_at (day 2 changes are stamped 2024-01-02).
    same(_as_of_sql(project, "cdc_check_snapshot", between_runs), 1)
    same(_as_of_sql(project, "cdc_timestamp_snapshot", BETWEEN_BUSINESS_DAYS), 1)
    # After day 2 (the as-of models default to now): day 2.
    same(f"select * from {project.table('cdc_check_as_of')}", 2)
    same(f"select * from {project.table('cdc_timestamp_as_of')}", 2)


def test_change_feed_orders_versions_of_one_instant(project: ScratchProject) -> None:
    """A timestamp snapshot whose updated_at is a date, with dbt's deletion records: an update,
    a delete and a re-creation of key 1 in one day make versions of that day alone, the
    updated one and the deletion record both [today, today], which tie on their range. The
    feed ordered them by range alone, and when the deletion record came first the update
    read as a delete and an insert. Keys 2 to 5 stay (the deletes' share stays under the
    guard's)."""
    project.write(
        "snapshots/tie_snapshot.sql",
        """
        {% snapshot tie_snapshot %}
        {{ config(unique_key='id', strategy='timestamp', updated_at='updated_at',
                  hard_deletes='new_record') }}
        select * from {{ ref('tie_source') }}
        {% endsnapshot %}
        """,
    )
    project.write(
        "models/tie_change_feed.sql",
        "select * from ({{ scd2_change_feed(ref('tie_snapshot')) }}) as feed\n",
    )
    today = datetime.now(UTC).date()
    yesterday = today - timedelta(days=1)
    others = [f"{key},same,{yesterday}" for key in range(2, 6)]
    runs = []
    for first in (f"1,a,{yesterday}", f"1,b,{today}", None, f"1,c,{today}"):
        lines = [first, *others] if first else others
        project.write_seed("tie_source", "id,val,updated_at", lines)
        project.dbt("seed", "--full-refresh", "-s", "tie_source")
        runs.append(project.dbt("snapshot", "-s", "tie_snapshot").invocation_id)
    if datetime.now(UTC).date() != today:
        pytest.skip("the runs crossed midnight (UTC): their versions are of two days")
    project.dbt("run", "-s", "tie_change_feed")
    feed = project.spark.sql(
        f"""
        select _change_type, val, _process_id
        from {project.table("tie_change_feed")}
        where id = 1
        order by _change_order
        """
    ).collect()
    assert [tuple(row) for row in feed] == [
        ("insert", "a", runs[0]),
        ("update_preimage", "a", runs[1]),
        ("update_postimage", "b", runs[1]),
        ("delete", "b", runs[2]),
        ("insert", "c", runs[3]),
    ]
