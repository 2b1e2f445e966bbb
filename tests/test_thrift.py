"""The Spark Thrift Server launcher, for real: start, refuse a second start, dbt, stop.

The server is a separate JVM on its own temporary lakehouse (the test process's in-process
Spark holds the Derby metastore of another one) and a free port. The tests run in file order
and share one server (module fixture, which always stops it); the last test stops it itself.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pyhive import hive

from python_helpers.operations.thrift import _query_within, pid_alive, port_in_use
from python_helpers.pipeline.run import (
    QUERY_VERBS,
    PipelineOptions,
    StepTimer,
    drop_schema_tables,
    run_days,
)
from python_helpers.runtime.lakehouse import PROJECT_ROOT
from python_helpers.tooling.scratch import ScratchProject
from tests.seed_cases import (
    AWKWARD_COLUMN_TYPES,
    AWKWARD_HEADER,
    awkward_rows,
    seed_properties,
    write_csv,
)
from tests.test_events import TEXTBOOK

START_TIMEOUT = 240  # seconds; two CPU cores shared with other Spark runs

SNAPSHOT = """
    {% snapshot thrift_snapshot %}
    {{ config(unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate') }}
    select * from {{ ref('thrift_source') }}
    {% endsnapshot %}
"""


@dataclass(frozen=True)
class ThriftServer:
    lakehouse: Path
    port: int
    start_output: str

    @property
    def pid_file(self) -> Path:
        return self.lakehouse / "thrift" / f"thrift-{self.port}.pid"

    @property
    def log_file(self) -> Path:
        return self.lakehouse / "thrift" / f"thrift-{self.port}.log"

    def cli(
        self, *args: str, lakehouse: Path | None = None, port: int | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``python -m python_helpers.operations.thrift <args> --port P --lakehouse-dir D``."""
        command = [
            sys.executable,
            "-m",
            "python_helpers.operations.thrift",
            *args,
            "--port",
            str(port or self.port),
        ]
        command += ["--lakehouse-dir", str(lakehouse or self.lakehouse)]
        return subprocess.run(
            command, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=START_TIMEOUT + 60
        )

    def query(self, sql: str, fetch: bool = True) -> list[tuple]:
        """Run ``sql`` on the server; its rows (none with ``fetch`` false, for statements
        that return no result set)."""
        conn = hive.connect(host="127.0.0.1", port=self.port, username="pytest")
        try:
            cursor = conn.cursor()
            cursor.execute(sql)
            return [tuple(row) for row in cursor.fetchall()] if fetch else []
        finally:
            conn.close()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "python_helpers.operations.thrift", *args],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_help_and_bad_usage(tmp_path: Path) -> None:
    helps = _cli("start", "--help").stdout
    for option in ("--port", "--host", "--timeout", "--lakehouse-dir", "--user"):
        assert option in helps
    assert "SPARK_THRIFT_PORT" in helps and "SPARK_THRIFT_HOST" in helps
    assert _cli("start", "--port", "70000").returncode == 2
    assert _cli("stop", "--timeout", "soon").returncode == 2
    assert _cli("restart").returncode == 2
    bad_env = _cli("status", env={"SPARK_THRIFT_PORT": "ten"})
    assert bad_env.returncode == 2
    assert "SPARK_THRIFT_PORT" in bad_env.stderr
    # make passes one THRIFT_ARGS to start, stop and status: the start's options are taken
    # by stop and status and ignored, so an empty lakehouse is still "not running" (exit 3).
    started_with = (
        "--cluster",
        "--user",
        "x",
        "--no-query-check",
        "--lakehouse-dir",
        str(tmp_path),
    )
    status = _cli("status", "--timeout", "300", *started_with)
    assert status.returncode == 3, status.stderr
    stop = _cli("stop", "--host", "0.0.0.0", *started_with)
    assert stop.returncode == 0 and "no Spark Thrift Server runs" in stop.stdout, stop.stderr


def test_start_reports_a_server_that_dies(tmp_path: Path) -> None:
    port = str(_free_port())
    no_jdk = {"JAVA_HOME": str(tmp_path / "no-jdk")}
    died = _cli("start", "--port", port, "--lakehouse-dir", str(tmp_path), env=no_jdk)
    assert died.returncode == 1
    assert "exited with status" in died.stderr
    assert "no-jdk/bin/java" in died.stderr, "the log's tail is shown"
    assert not (tmp_path / "thrift" / f"thrift-{port}.pid").exists()


def test_start_reports_a_server_that_dies_and_keeps_the_log_before(tmp_path: Path) -> None:
    """A start after a crash: the crashed server's log (what says why) is kept as .log.1,
    where the new start wrote over it."""
    port = str(_free_port())
    folder = tmp_path / "thrift"
    folder.mkdir()
    (folder / f"thrift-{port}.log").write_text("the crashed server's last words\n")
    no_jdk = {"JAVA_HOME": str(tmp_path / "no-jdk")}
    died = _cli("start", "--port", port, "--lakehouse-dir", str(tmp_path), env=no_jdk)
    assert died.returncode == 1
    assert (folder / f"thrift-{port}.log.1").read_text() == "the crashed server's last words\n"
    assert "no-jdk/bin/java" in (folder / f"thrift-{port}.log").read_text()


def test_a_server_that_never_answers_is_given_up_at_the_timeout() -> None:
    """A port that accepts connections and never answers (a server hung in its start):
    PyHive's socket has no timeout, and start waited past its --timeout."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.listen()
        port = listener.getsockname()[1]
        began = time.monotonic()
        ok, why = _query_within("127.0.0.1", port, "dbt", 2.0)
        assert not ok and "no answer to a query within 2 s" in why, why
        assert time.monotonic() - began < 30


@pytest.fixture(scope="module")
def thrift_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThriftServer]:
    server = ThriftServer(tmp_path_factory.mktemp("thrift_lakehouse"), _free_port(), "")
    try:
        started = server.cli("start", "--timeout", str(START_TIMEOUT))
        assert started.returncode == 0, f"start failed:\n{started.stdout}\n{started.stderr}"
        yield ThriftServer(server.lakehouse, server.port, started.stdout)
    finally:
        server.cli("stop")  # a no-op when a test stopped it already


def test_start_waits_until_ready(thrift_server: ThriftServer) -> None:
    assert f"ready on 127.0.0.1:{thrift_server.port}" in thrift_server.start_output
    assert "Derby" in thrift_server.start_output  # the one-JVM-per-metastore warning
    pid = int(thrift_server.pid_file.read_text())
    assert pid_alive(pid)
    assert thrift_server.log_file.exists()
    assert thrift_server.query("select 1") == [(1,)]
    status = thrift_server.cli("status")
    assert status.returncode == 0, status.stderr
    assert f"pid {pid}" in status.stdout


def test_second_start_is_refused(thrift_server: ThriftServer, tmp_path: Path) -> None:
    pid = int(thrift_server.pid_file.read_text())
    again = thrift_server.cli("start")
    assert again.returncode == 1
    assert f"already runs on port {thrift_server.port} (pid {pid}" in again.stderr
    assert "thrift-stop" in again.stderr
    assert int(thrift_server.pid_file.read_text()) == pid, "the running server's pid file kept"

    # Another lakehouse on the same port: no pid file there, but the port is taken.
    elsewhere = thrift_server.cli("start", lakehouse=tmp_path / "other")
    assert elsewhere.returncode == 1
    assert f"port {thrift_server.port} on 127.0.0.1 is already in use" in elsewhere.stderr

    # Another port of the same lakehouse: the running server holds its Derby metastore, so a
    # second one could not open it; refused before any JVM starts (no log of its own).
    other = _free_port()
    second = thrift_server.cli("start", port=other)
    assert second.returncode == 1
    assert (
        f"already runs for this lakehouse on port {thrift_server.port} (pid {pid})" in second.stderr
    )
    assert not (thrift_server.lakehouse / "thrift" / f"thrift-{other}.log").exists()


def test_dbt_snapshot_through_thrift(
    thrift_server: ThriftServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPARK_THRIFT_HOST", "127.0.0.1")
    monkeypatch.setenv("SPARK_THRIFT_PORT", str(thrift_server.port))
    # dbt runs in-process but talks PyHive to the server: no local SparkSession is used.
    project = ScratchProject(tmp_path / "project", "thrift_scd2", spark=None)  # type: ignore[arg-type]
    project.write("snapshots/thrift.sql", SNAPSHOT)

    def history() -> list[tuple]:
        return thrift_server.query(
            "select id, name, amount, cast(dbt_valid_from as string), "
            "cast(dbt_valid_to as string) "
            f"from {project.table('thrift_snapshot')} order by id, dbt_valid_from"
        )

    project.write_seed("thrift_source", "id,name,amount", ["1,a,10", "2,b,20", "3,c,30"])
    project.dbt("seed", "--target", "thrift")
    project.dbt("snapshot", "--target", "thrift")
    day1 = history()
    t1 = day1[0][3]
    assert day1 == [(1, "a", 10, t1, None), (2, "b", 20, t1, None), (3, "c", 30, t1, None)]

    # id 1 updated, id 2 unchanged, id 3 deleted, id 4 added.
    project.write_seed("thrift_source", "id,name,amount", ["1,a,11", "2,b,20", "4,d,40"])
    project.dbt("seed", "--target", "thrift")
    project.dbt("snapshot", "--target", "thrift")
    day2 = history()
    t2 = next(row[3] for row in day2 if row[0] == 4)
    assert t2 > t1
    assert day2 == [
        (1, "a", 10, t1, t2),
        (1, "a", 11, t2, None),
        (2, "b", 20, t1, None),
        (3, "c", 30, t1, t2),
        (4, "d", 40, t2, None),
    ]

    # Iceberg tables, in the server's own lakehouse.
    for name in ("thrift_snapshot", "thrift_source"):
        ddl = thrift_server.query(f"show create table {project.table(name)}")[0][0]
        assert "USING iceberg" in ddl, ddl
        assert str(thrift_server.lakehouse / "warehouse") in ddl, ddl
    commits = thrift_server.query(
        f"select count(*) from {project.table('thrift_snapshot')}.snapshots"
    )
    assert commits[0][0] >= 2, "one Iceberg snapshot per dbt snapshot run at least"


def test_pipeline_through_thrift(
    thrift_server: ThriftServer, spark, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole day-1/day-2 pipeline with --target thrift: dbt and the reconciliation go
    through the server; 200 keys, shares 0.2/0.4/0.4."""
    monkeypatch.setenv("SPARK_THRIFT_PORT", str(thrift_server.port))
    project = ScratchProject(
        tmp_path / "project", "thrift_pipeline", spark, include=("models", "snapshots")
    )
    options = PipelineOptions(
        no_init_recs=200,
        no_incr_recs=200,
        no_keys=2,
        no_nonkeys=3,
        days=2,
        seed=3,
        schema=project.schema,
        target="thrift",
        project_dir=project.root,
    )
    results = run_days(options, StepTimer())
    assert len(results) == 4
    for r in results:
        assert r.all_ok, r
        assert r.observed == ({"I": 200} if r.day == 1 else {"D": 40, "U": 80, "N": 80, "I": 40})
    # The tables live in the server's warehouse, not in this process's lakehouse.
    location = [
        row
        for row in thrift_server.query("describe table extended thrift_pipeline.cdc_check_snapshot")
        if row[0] == "Location"
    ]
    assert str(thrift_server.lakehouse) in location[0][1]
    # The next run's fresh start, through the server: the analyst views go with the tables.
    views = thrift_server.query("show views in thrift_pipeline")
    assert "cdc_check_current" in {row[1] for row in views}
    drop_schema_tables(
        lambda sql: thrift_server.query(sql, fetch=sql.split()[0].lower() in QUERY_VERBS),
        "thrift_pipeline",
    )
    assert thrift_server.query("show tables in thrift_pipeline") == []


@pytest.mark.parametrize("method", ["spark_csv", "sql_inserts"])
def test_seed_through_thrift(
    thrift_server: ThriftServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    """The awkward seed through the server: its Spark reads the file (same machine), or dbt
    sends the rows; either way the same values come back, and a failing reload keeps them."""
    monkeypatch.setenv("SPARK_THRIFT_PORT", str(thrift_server.port))
    project = ScratchProject(tmp_path / "project", f"thrift_seed_{method}", spark=None)  # type: ignore[arg-type]
    cells, expected = awkward_rows()
    write_csv(project.root / "seeds" / "awkward.csv", AWKWARD_HEADER, cells)
    project.write(
        "seeds/awkward.yml",
        seed_properties("awkward", AWKWARD_COLUMN_TYPES, seed_load_method=method),
    )
    project.dbt("seed", "--target", "thrift")
    table = project.table("awkward")
    select = (
        "select id, name, amount, cast(changed_at as string), cast(business_date as string) "
        f"from {table} order by id"
    )

    def as_strings(value: object) -> object:
        return None if value is None else str(value)

    want = [(i, name, amount, as_strings(ts), as_strings(d)) for i, name, amount, ts, d in expected]
    assert thrift_server.query(select) == want
    commits = thrift_server.query(f"select count(*) from {table}.snapshots")

    write_csv(
        project.root / "seeds" / "awkward.csv",
        AWKWARD_HEADER,
        [*cells, ["99", "x", "NaN?", "", ""]],
    )
    failed = project.dbt("seed", "--target", "thrift", check=False)
    assert "value 'NaN?' is not a valid double" in failed.result.results[0].message
    assert thrift_server.query(select) == want
    assert thrift_server.query(f"select count(*) from {table}.snapshots") == commits

    # An emptied file: the project's message, where a Thrift server's description of a result
    # with no columns failed PyHive's fetch ("'NoneType' object is not iterable").
    (project.root / "seeds" / "awkward.csv").write_text("")
    failed = project.dbt("seed", "--target", "thrift", check=False)
    assert "the file has no header row" in failed.result.results[0].message
    assert thrift_server.query(select) == want
    assert thrift_server.query(f"select count(*) from {table}.snapshots") == commits


def test_events_through_thrift(
    thrift_server: ThriftServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The textbook case of docs/events.md through the server, whose session holds the run's
    cached steps and settings: id 1 Alice and id 2 Bob, then update 1 to Angela, delete 2,
    create 2 Carol; a repeated run adds nothing, and a late event is set aside."""
    monkeypatch.setenv("SPARK_THRIFT_PORT", str(thrift_server.port))
    schema = "thrift_events"
    project = ScratchProject(tmp_path / "project", schema, spark=None)  # type: ignore[arg-type]
    project.write(
        "models/history.sql",
        """
        {{ config(
            materialized='scd2_events', unique_key='id', event_order_by=['ts', 'lsn'],
        ) }}
        select * from {{ target.schema }}.raw_events
        """,
    )
    thrift_server.query(f"create schema if not exists {schema}", fetch=False)

    def batch(rows: str) -> None:
        thrift_server.query(
            f"create or replace table {schema}.raw_events using iceberg as "
            f"select * from values {rows} as t(id, name, op, ts, lsn)",
            fetch=False,
        )

    batch(
        "(1, 'Alice', 'r', timestamp'2024-01-01 00:00:00', 1), "
        "(2, 'Bob', 'r', timestamp'2024-01-01 00:00:00', 2)"
    )
    project.dbt("run", "--select", "history", "--target", "thrift")
    batch(
        "(1, 'Angela', 'u', timestamp'2024-01-01 01:00:00', 3), "
        "(2, cast(null as string), 'd', timestamp'2024-01-01 02:00:00', 4), "
        "(2, 'Carol', 'c', timestamp'2024-01-01 03:00:00', 5)"
    )
    project.dbt("run", "--select", "history", "--target", "thrift")
    select = (
        "select id, name, hour(dbt_valid_from), hour(dbt_valid_to), event_closed_as "
        f"from {schema}.history order by id, dbt_valid_from"
    )
    expected = TEXTBOOK
    assert thrift_server.query(select) == expected
    commits = thrift_server.query(f"select count(*) from {schema}.history.snapshots")
    project.dbt("run", "--select", "history", "--target", "thrift")
    assert thrift_server.query(select) == expected
    assert thrift_server.query(f"select count(*) from {schema}.history.snapshots") == commits

    # A late event (before Angela, other values) goes to the quarantine table.
    batch("(1, 'Alicia', 'u', timestamp'2024-01-01 00:30:00', 6)")
    project.dbt("run", "--select", "history", "--target", "thrift")
    assert thrift_server.query(select) == expected
    assert thrift_server.query(
        f"select id, name, scd2_reason from {schema}.history__quarantine"
    ) == [
        (
            1,
            "Alicia",
            "late: at or before the last event applied to its key, and not what "
            "the history holds there",
        )
    ]


def test_stop_then_stop_again(thrift_server: ThriftServer) -> None:
    pid = int(thrift_server.pid_file.read_text())
    stopped = thrift_server.cli("stop")
    assert stopped.returncode == 0, stopped.stderr
    assert f"pid {pid}) stopped" in stopped.stdout
    assert not pid_alive(pid)
    assert not thrift_server.pid_file.exists()
    assert not port_in_use("127.0.0.1", thrift_server.port)

    again = thrift_server.cli("stop")
    assert again.returncode == 0, again.stderr
    assert f"no Spark Thrift Server runs on port {thrift_server.port}" in again.stdout
    status = thrift_server.cli("status")
    assert status.returncode == 3
