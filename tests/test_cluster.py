"""The standalone cluster and shared metastore of make cluster-start (operations/cluster.py).

The slow tests share one cluster (PostgreSQL, the metastore service, a master and two workers)
that the module starts on ports no other process uses, in a lakehouse of its own, and stops:

1. three applications at once: a Thrift server on the cluster, the pipeline (reconciled) and a
   second JVM committing to its own table; the server reads the tables of both; then the
   metastore service is restarted under the running server, which reads and commits again;
2. a worker killed during a snapshot's merge: the run completes (Spark re-runs the lost tasks
   on the other worker) or fails with nothing written; the next run completes the day; no
   version is lost or duplicated; ``restart worker-N`` brings the worker back;
3. two snapshot runs of one table at once from two JVMs: Iceberg's commit lets one through
   and fails the other with nothing written (or finds nothing left to do);
4. stop leaves no process and no port behind (the fixture's teardown).

The fault scenarios run tests/reliability_driver.py with ``--target cluster``: the same day 2
(20,000 keys for the worker kill, fewer for two runs at once) and the same version counts as
the kill-during-merge test of tests/test_reliability.py.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from pyhive import hive

from python_helpers.operations.cluster import (
    MASTER_CLASS,
    WORKER_CLASS,
    ClusterError,
    ClusterPorts,
    ClusterState,
    client_conf,
    describe,
    free_port_offset,
    restart,
    running_parts,
)
from python_helpers.operations.cluster import main as cluster_main
from python_helpers.operations.cluster import stop as stop_cluster
from python_helpers.operations.thrift import (
    SERVER_CLASS,
    ServerFiles,
    exclusive,
    pid_alive,
    port_in_use,
)
from python_helpers.operations.thrift import main as thrift_main
from python_helpers.pipeline.run import PipelineError, check_no_server_on_lakehouse
from python_helpers.runtime.lakehouse import PROJECT_ROOT
from tests import reliability_driver as driver
from tests.subprocess_helpers import logged_since, results, stand_in, wait_for

CLI = [sys.executable, "-m", "python_helpers.operations.cluster"]
TIMEOUT = 900
# Day 1's keys of two runs released together: their merges, several seconds each, overlap.
CONCURRENT_ROWS = 5_000


def test_the_cluster_target_sets_what_client_conf_sets(monkeypatch: pytest.MonkeyPatch) -> None:
    """profiles.yml's cluster target, with its env_var defaults, is client_conf of a cluster
    on the default ports; the variables it reads are the ones the pipeline sets."""
    monkeypatch.delenv("SCD2_CLUSTER_CORES", raising=False)
    profile = yaml.safe_load((PROJECT_ROOT / "profiles.yml").read_text())
    target = profile["scd2_lakehouse"]["outputs"]["cluster"]
    assert target["method"] == "session"
    default = re.compile(r"\{\{ env_var\('[A-Z0-9_]+', '([^']*)'\) \}\}")
    parameters = target["server_side_parameters"]
    settings = {k: default.sub(r"\1", str(v)) for k, v in parameters.items()}
    variables = set(re.findall(r"env_var\('([A-Z0-9_]+)'", json.dumps(parameters)))
    assert variables == {"SCD2_CLUSTER_MASTER", "SCD2_CLUSTER_CORES", "SCD2_METASTORE_URI"}
    state = ClusterState(ClusterPorts.for_offset(0, 2), {}, "1g")
    assert settings == client_conf(state)


def _cli(lakehouse: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LAKEHOUSE_DIR": str(lakehouse)}
    return subprocess.run(
        [*CLI, *args], env=env, capture_output=True, text=True, timeout=300, cwd=PROJECT_ROOT
    )


def test_bad_arguments_and_nothing_to_stop(tmp_path: Path) -> None:
    refusals = {
        ("--workers", "0"): "argument --workers: must be at least 1, got 0",
        ("--worker-cores", "-1"): "argument --worker-cores: must be at least 1, got -1",
        ("--timeout", "0"): "argument --timeout: must be a positive number of seconds",
        ("--timeout", "inf"): "argument --timeout: must be a positive number of seconds",
        # Past Python's longest wait: the start's readiness query failed with a traceback.
        ("--timeout", "1e10"): "at most 86400 (a day): 10000000000.0",
        ("--port-offset", "x"): "argument --port-offset: not a whole number: 'x'",
        # 55432 + 60000 is no port: getaddrinfo would wrap it and probe another
        ("--port-offset", "60000"): "puts port(s) 115432, 69083",
    }
    for arguments, message in refusals.items():
        bad = _cli(tmp_path, "start", *arguments)
        assert bad.returncode == 2 and message in bad.stderr, (arguments, bad.stderr)
    assert not (tmp_path / "cluster").exists()
    # A bad offset in the environment fails the start that uses it, by name, not every command.
    env = {**os.environ, "LAKEHOUSE_DIR": str(tmp_path), "SCD2_CLUSTER_PORT_OFFSET": "ten"}
    bad = subprocess.run(
        [*CLI, "start"], env=env, capture_output=True, text=True, timeout=300, cwd=PROJECT_ROOT
    )
    assert bad.returncode == 2, bad.stderr
    assert "SCD2_CLUSTER_PORT_OFFSET must be a whole number, got 'ten'" in bad.stderr
    for command in ("status", "stop", "--help"):
        done = subprocess.run(
            [*CLI, command], env=env, capture_output=True, text=True, timeout=300,
            cwd=PROJECT_ROOT,
        )  # fmt: skip
        assert done.returncode in (0, 3) and not done.stderr, (command, done.stderr)
    status = _cli(tmp_path, "status")
    assert status.returncode == 3 and "no cluster runs" in status.stdout
    stopped = _cli(tmp_path, "stop")
    assert stopped.returncode == 0 and "no cluster runs" in stopped.stdout
    restart = _cli(tmp_path, "restart", "metastore")
    assert restart.returncode == 2 and "no cluster runs" in restart.stderr, restart.stderr


def test_starts_and_stops_at_once_are_refused(tmp_path: Path) -> None:
    """Two starts at once both passed the checks (nothing running, ports free): the one that
    lost stopped the other's parts in its cleanup, or, for Thrift, removed the winner's pid
    file. While one runs (it holds the lock), another is refused, naming why."""
    with exclusive(tmp_path / "cluster" / "cluster.lock", "a test", RuntimeError):
        stopped = _cli(tmp_path, "stop")
        assert stopped.returncode == 1, stopped.stderr
        assert "another start, stop or restart of the cluster" in stopped.stderr
        status = _cli(tmp_path, "status")  # reads only: not locked
        assert status.returncode == 3, status.stderr
    with exclusive(tmp_path / "thrift" / "start.lock", "a test", RuntimeError):
        started = subprocess.run(
            [sys.executable, "-m", "python_helpers.operations.thrift", "start",
             "--lakehouse-dir", str(tmp_path), "--port", "10097"],
            capture_output=True, text=True, timeout=120, cwd=PROJECT_ROOT,
        )  # fmt: skip
        assert started.returncode == 1, started.stderr
        assert "another start of a Spark Thrift Server" in started.stderr
    assert _cli(tmp_path, "stop").returncode == 0
    # A lock that cannot be taken is said with its path, braces and all (a path holding {x}
    # made the message's own formatting fail with a KeyError).
    odd = tmp_path / "lake {x} {}"
    odd.mkdir()
    (odd / "thrift").write_text("a file where the lock's folder goes")
    with (
        pytest.raises(RuntimeError) as refused,
        exclusive(odd / "thrift" / "start.lock", "a test", RuntimeError),
    ):
        pass
    assert f"cannot take the lock {odd}/thrift/start.lock for a test (" in str(refused.value)


@pytest.mark.parametrize("shared", [False, True], ids=["derby", "cluster"])
def test_local_pipeline_refuses_only_a_server_holding_derby(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared: bool
) -> None:
    """A Thrift server on the lakehouse's Derby metastore stops the local pipeline; one
    started with --cluster (on the shared metastore service) does not."""
    monkeypatch.setenv("LAKEHOUSE_DIR", str(tmp_path))
    files = ServerFiles(10099)
    files.folder.mkdir(parents=True)
    # A live process whose command line names the server's class stands for the server.
    server = stand_in(SERVER_CLASS)
    try:
        files.pid.write_text(f"{server.pid}\n")
        conf = client_conf(ClusterState(ClusterPorts.for_offset(0, 2), {}, "1g")) if shared else {}
        files.properties.write_text("".join(f"{k} {v}\n" for k, v in conf.items()))
        if shared:
            check_no_server_on_lakehouse()
        else:
            with pytest.raises(PipelineError, match=r"holds this lakehouse's metastore"):
                check_no_server_on_lakehouse()
    finally:
        server.kill()
        server.wait()


def test_cluster_stop_stops_a_thrift_server_on_the_cluster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Thrift server started with --cluster is an application of the cluster: stopping the
    cluster stops it too (it kept listening, and failed every query), and the cluster's status
    lists it. One on the lakehouse's Derby metastore is none of the cluster's and stays. No
    cluster runs here: processes whose command line names the server's class stand for the
    servers."""
    monkeypatch.setenv("LAKEHOUSE_DIR", str(tmp_path))
    shared, derby = ServerFiles(10098), ServerFiles(10099)
    shared.folder.mkdir(parents=True)
    stand_ins = {files.port: stand_in(SERVER_CLASS) for files in (shared, derby)}
    try:
        for files in (shared, derby):
            files.pid.write_text(f"{stand_ins[files.port].pid}\n")
        state = ClusterState(ClusterPorts.for_offset(0, 2), {}, "1g")
        conf = client_conf(state)
        shared.properties.write_text("".join(f"{k} {v}\n" for k, v in conf.items()))
        derby.properties.write_text("")
        listed = describe(state)
        pid = stand_ins[10098].pid
        assert f"thrift      pid {pid}: Spark Thrift Server on port 10098" in listed, listed
        assert "10099" not in listed, listed
        report = stop_cluster(say=False)
        assert report[0] == (
            f"Spark Thrift Server on port 10098 (pid {stand_ins[10098].pid}) stopped; "
            f"log {shared.log}"
        )
        assert not pid_alive(stand_ins[10098].pid) and not shared.pid.exists()
        assert pid_alive(stand_ins[10099].pid) and derby.pid.exists()
        # make clean stops every server of the lakehouse first, on any port: one left running
        # would keep its port with no pid file left to stop it by.
        done = subprocess.run(
            [sys.executable, "-m", "python_helpers.operations.thrift", "stop", "--all"],
            env={**os.environ, "LAKEHOUSE_DIR": str(tmp_path)}, capture_output=True,
            text=True, timeout=120, cwd=PROJECT_ROOT,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert f"on port 10099 (pid {stand_ins[10099].pid}) stopped" in done.stdout, done.stdout
        assert not pid_alive(stand_ins[10099].pid) and not derby.pid.exists()
    finally:
        for process in stand_ins.values():
            process.kill()
            process.wait()


def test_stop_all_goes_on_past_a_server_of_another_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A server another user started (sudo) refuses this user's signals: stop --all said so
    with a traceback and left the servers after it running. Now each is tried, the refused
    one named, and the stop exits 1. The refusal is the kernel's PermissionError, raised here
    for one stand-in's pid (this test may run as root, whom no process refuses)."""
    monkeypatch.setenv("LAKEHOUSE_DIR", str(tmp_path))
    theirs, ours = ServerFiles(10096), ServerFiles(10097)
    theirs.folder.mkdir(parents=True)
    stand_ins = {files.port: stand_in(SERVER_CLASS) for files in (theirs, ours)}
    refused = stand_ins[10096].pid
    real_kill = os.kill

    def kill(pid: int, sig: int) -> None:
        if pid == refused and sig != 0:
            raise PermissionError(1, "Operation not permitted")
        real_kill(pid, sig)

    monkeypatch.setattr(os, "kill", kill)
    try:
        for files in (theirs, ours):
            files.pid.write_text(f"{stand_ins[files.port].pid}\n")
        assert thrift_main(["stop", "--all"]) == 1
        out, err = capsys.readouterr()
        assert f"on port 10097 (pid {stand_ins[10097].pid}) stopped" in out, out
        assert f"port 10096: pid {refused} belongs to another user (SIGTERM refused)" in err, err
        assert not pid_alive(stand_ins[10097].pid) and not ours.pid.exists()
        assert pid_alive(refused) and theirs.pid.exists()
    finally:
        monkeypatch.undo()
        for process in stand_ins.values():
            process.kill()
            process.wait()


def test_cluster_stop_reports_parts_of_another_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cluster started by another user (sudo): its master refuses this user's signals and
    its PostgreSQL data folder (0700, the postgres user's) cannot be read. Stop ended in a
    traceback at the first, and printed nothing of what it had done. Now the worker of this
    user stops, the refused parts are said, the master is kept in cluster.json for the next
    stop, and stop exits 1. Stand-ins and refusals as in the test above (root reads all)."""
    monkeypatch.setenv("LAKEHOUSE_DIR", str(tmp_path))
    master, worker = stand_in(MASTER_CLASS), stand_in(WORKER_CLASS)
    lock = tmp_path / "cluster" / "postgres" / "data" / "postmaster.pid"
    lock.parent.mkdir(parents=True)
    lock.write_text("1\n")
    state = ClusterState(ClusterPorts.for_offset(1900, 1), {}, "1g")
    pids = {"master": master.pid, "worker-1": worker.pid}
    (tmp_path / "cluster" / "cluster.json").write_text(
        json.dumps({**dataclasses.asdict(state), "pids": pids})
    )
    real_kill, real_read = os.kill, Path.read_text

    def kill(pid: int, sig: int) -> None:
        if pid == master.pid and sig != 0:
            raise PermissionError(1, "Operation not permitted")
        real_kill(pid, sig)

    def read_text(path: Path, *args: Any, **kwargs: Any) -> str:
        if path == lock:
            raise PermissionError(13, "Permission denied", str(path))
        return real_read(path, *args, **kwargs)

    monkeypatch.setattr(os, "kill", kill)
    monkeypatch.setattr(Path, "read_text", read_text)
    try:
        assert cluster_main(["stop"]) == 1
        out = capsys.readouterr().out
        assert f"master (pid {master.pid}): NOT STOPPED: pid {master.pid} belongs to" in out, out
        assert f"worker-1 (pid {worker.pid}): stopped" in out, out
        assert f"PostgreSQL: NOT STOPPED: cannot read {lock}: the metastore's PostgreSQL" in out
        monkeypatch.undo()
        kept = json.loads((tmp_path / "cluster" / "cluster.json").read_text())
        assert kept["pids"] == {"master": master.pid}, kept
        assert pid_alive(master.pid) and not pid_alive(worker.pid)
    finally:
        monkeypatch.undo()
        for process in (master, worker):
            process.kill()
            process.wait()
            process.wait()


def test_pids_other_processes_took_are_no_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cluster.json outlives its parts (a crash, a reboot), and their pids go to other
    processes: such a pid is reported as not running and never signalled (stop killed
    whatever process had it). A part's own process, whose command line names its class, is
    stopped. A worker restarts when the master runs, whatever the metastore does. No cluster
    runs here: stand-in processes take the parts' pids."""
    monkeypatch.setenv("LAKEHOUSE_DIR", str(tmp_path))

    foreign, master, worker = stand_in(), stand_in(MASTER_CLASS), stand_in(WORKER_CLASS)
    try:
        state = ClusterState(ClusterPorts.for_offset(1900, 2), {}, "1g")
        pids = {"metastore": foreign.pid, "worker-1": foreign.pid, "worker-2": worker.pid}
        (tmp_path / "cluster").mkdir()
        (tmp_path / "cluster" / "cluster.json").write_text(
            json.dumps({**dataclasses.asdict(state), "pids": {**pids, "master": master.pid}})
        )
        assert sorted(running_parts()) == ["master", "worker-2"]
        # worker-1 needs the master alone; the metastore it does not need is down. (Its
        # stand-in pid is foreign: it is not stopped; the start that follows fails on this
        # machine's missing cluster folder or Spark, which this test does not reach for.)
        with pytest.raises(ClusterError) as refused:
            restart("metastore", timeout=1, say=False)
        assert "postgres not running, and metastore needs it" in str(refused.value)
        master.kill()
        master.wait()
        with pytest.raises(ClusterError) as refused:
            restart("worker-1", timeout=1, say=False)
        assert "master not running, and worker-1 needs it" in str(refused.value)
        # PostgreSQL's lock file outlives it too; pg_ctl trusts any live pid it names (of
        # this user), so stop signalled that process. Such a lock is stale and removed.
        lock = tmp_path / "cluster" / "postgres" / "data" / "postmaster.pid"
        lock.parent.mkdir(parents=True)
        lock.write_text(f"{foreign.pid}\n{lock.parent}\n")
        assert "postgres" not in running_parts()
        assert not lock.exists()
        # ... also where the pid runs a postgres of a data directory whose path merely
        # contains ours (another lakehouse's, /elsewhere/<ours>).
        other = stand_in("postgres", "-D", f"/elsewhere{lock.parent}")
        try:
            lock.write_text(f"{other.pid}\n{lock.parent}\n")
            assert "postgres" not in running_parts()
            assert not lock.exists() and pid_alive(other.pid)
        finally:
            other.kill()
            other.wait()
        lock.write_text(f"{foreign.pid}\n{lock.parent}\n")
        report = stop_cluster(say=False)
        assert "worker-1: not running" in report and "metastore: not running" in report
        assert "PostgreSQL: not running" in report and not lock.exists()
        assert pid_alive(foreign.pid)
        assert not pid_alive(worker.pid)
        assert not (tmp_path / "cluster" / "cluster.json").exists()
        # An unreadable cluster.json (a kill mid-write, before it was written aside and
        # renamed): stop goes on without it and says what it could not find.
        (tmp_path / "cluster" / "cluster.json").write_text('{"ports": {"postg')
        report = stop_cluster(say=False)
        assert "is unreadable" in report[0] and "stop any still running by hand" in report[0]
        # ... and fails (make clean then keeps the lakehouse those parts may still use).
        assert _cli(tmp_path, "stop").returncode == 1
    finally:
        for process in (foreign, master, worker):
            process.kill()
            process.wait()


def test_pipeline_refuses_a_cluster_that_is_not_up(tmp_path: Path) -> None:
    """A cluster.json left behind by a cluster that died (a reboot): the pipeline says which
    parts are down, before it starts Spark, instead of waiting for a dead master."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    state = ClusterState(ClusterPorts.for_offset(1900, 2), {}, "1g")
    pids = {name: dead.pid for name in ("metastore", "master", "worker-1", "worker-2")}
    (tmp_path / "cluster").mkdir()
    (tmp_path / "cluster" / "cluster.json").write_text(
        json.dumps({**dataclasses.asdict(state), "pids": pids})
    )
    env = {**os.environ, "LAKEHOUSE_DIR": str(tmp_path), "PYTHONPATH": str(PROJECT_ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "python_helpers.pipeline", "--target", "cluster"],
        env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert "is not all up (down: postgres, metastore, master)" in done.stderr, done.stderr
    assert "Setting default log level" not in done.stderr  # Spark's first words: no JVM


def _free_offset(workers: int) -> int:
    offset = free_port_offset(workers, first=200)
    if offset is None:
        pytest.skip("no free block of ports for a cluster")
    return offset


@dataclass(frozen=True)
class Cluster:
    lakehouse: Path
    offset: int

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "LAKEHOUSE_DIR": str(self.lakehouse), "PYTHONPATH": str(PROJECT_ROOT)}

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return _cli(self.lakehouse, *args)

    def pids(self) -> dict[str, int]:
        return json.loads((self.lakehouse / "cluster" / "cluster.json").read_text())["pids"]

    def reliability(self, command: str, project: Path, schema: str, *args: str) -> list[str]:
        """The argv of tests/reliability_driver.py on this cluster."""
        return [
            sys.executable, "-m", "tests.reliability_driver", command, "--target", "cluster",
            "--project", str(project), "--schema", schema, *args,
        ]  # fmt: skip

    def run(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv, env=self.env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=TIMEOUT
        )

    def heal(self) -> None:
        """Restart any part a failed test left down, so that the next test has the cluster."""
        for name, pid in self.pids().items():
            if not pid_alive(pid):
                self.cli("restart", name)

    def active_applications(self) -> int:
        """Applications the master runs now (its web UI's JSON)."""
        url = f"http://127.0.0.1:{8080 + self.offset}/json/"
        with urllib.request.urlopen(url, timeout=10) as answer:
            return len(json.load(answer)["activeapps"])

    def popen(self, argv: list[str], output: Path) -> subprocess.Popen[str]:
        """A driver whose stdin the test writes to (``WAITING``) and whose output goes to a file."""
        with output.open("w") as out:
            return subprocess.Popen(
                argv, env=self.env, cwd=PROJECT_ROOT, stdin=subprocess.PIPE, stdout=out,
                stderr=subprocess.STDOUT, text=True,
            )  # fmt: skip


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A cluster with two workers on free ports, in a lakehouse of its own; stopped at the end,
    leaving no process and no port behind."""
    # PostgreSQL runs as its own user: the lakehouse's folders must be readable by it
    # (pytest's tmp folders are private to root).
    lakehouse = Path(tempfile.mkdtemp(prefix="scd2-cluster-"))
    lakehouse.chmod(0o755)
    offset = _free_offset(2)
    started = _cli(lakehouse, "start", "--port-offset", str(offset))
    pids: list[int] = []
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        running = Cluster(lakehouse, offset)
        yield running
        pids = list(running.pids().values())
    finally:
        stopped = _cli(lakehouse, "stop")
        shutil.rmtree(lakehouse, ignore_errors=True)
    assert stopped.returncode == 0, stopped.stderr
    assert pids and not any(pid_alive(pid) for pid in pids)
    assert _cli(lakehouse, "status").returncode == 3
    assert not any(port_in_use("127.0.0.1", p) for p in ClusterPorts.for_offset(offset, 2).all())


@pytest.mark.slow
def test_pipeline_beside_a_thrift_server_and_a_second_application(cluster: Cluster) -> None:
    """Three applications of the cluster at once, on the same metastore: a Thrift server, the
    pipeline on the cluster target (reconciled), and another JVM committing to its own Iceberg
    table; the server then reads the tables of both. A second start is refused. Then the
    metastore service is restarted: the server, a JVM that was connected to the old one, reads
    and commits (Iceberg's commit takes the metastore's lock) as before."""
    again = cluster.cli("start", "--port-offset", str(cluster.offset))
    assert again.returncode == 1 and "already runs" in again.stderr, again.stderr
    thrift_port = next(p for p in range(10300, 10400) if not port_in_use("127.0.0.1", p))
    thrift = [sys.executable, "-m", "python_helpers.operations.thrift"]
    cluster_driver = [sys.executable, "-m", "tests.cluster_driver"]
    processes: list[subprocess.Popen[str]] = []
    try:
        server = subprocess.run(
            [*thrift, "start", "--cluster", "--port", str(thrift_port)],
            env=cluster.env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert server.returncode == 0, server.stdout + server.stderr
        connection = hive.connect(host="127.0.0.1", port=thrift_port, username="test")
        cursor = connection.cursor()
        cursor.execute("select count(*) from range(10)")  # the server now holds its executor
        assert cursor.fetchall() == [(10,)]
        project = cluster.lakehouse / "project"
        for command in (
            ["pipeline", "--project", str(project), "--schema", "piped"],
            ["client", "--project", str(cluster.lakehouse), "--schema", "app2"],
        ):
            processes.append(
                subprocess.Popen(
                    [*cluster_driver, *command],
                    env=cluster.env,
                    cwd=PROJECT_ROOT,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
            )
        # Both drivers and the server hold executors at the same time.
        most = 0
        while all(process.poll() is None for process in processes) and most < 3:
            most = max(most, cluster.active_applications())
            time.sleep(0.5)
        pipeline_out, client_out = (
            process.communicate(timeout=TIMEOUT)[0] for process in processes
        )
        assert most == 3, f"at most {most} applications ran at once"
        assert processes[0].returncode == 0, pipeline_out[-4000:]
        assert "every reconciliation OK" in pipeline_out, pipeline_out[-4000:]
        assert processes[1].returncode == 0, client_out[-4000:]
        master = f"spark://127.0.0.1:{7077 + cluster.offset}"
        assert f"RESULT client rows=500 snapshots=5 master={master}" in client_out
        cursor.execute("select count(*) from piped.cdc_check_snapshot where dbt_valid_to is null")
        assert cursor.fetchall() == [(300,)]  # day 2's 300 keys, one open version each
        cursor.execute("select count(*) from app2.client_rows")
        assert cursor.fetchall() == [(500,)]

        unknown = cluster.cli("restart", "worker-9")
        assert unknown.returncode == 2 and "no part 'worker-9'" in unknown.stderr, unknown.stderr
        old = cluster.pids()["metastore"]
        restarted = cluster.cli("restart", "metastore")
        assert restarted.returncode == 0, restarted.stdout + restarted.stderr
        assert not pid_alive(old) and cluster.pids()["metastore"] != old
        cursor.execute("insert into app2.client_rows select id from range(500, 600)")
        cursor.execute("select count(*) from app2.client_rows")
        assert cursor.fetchall() == [(600,)]
        cursor.execute("select count(*) from app2.client_rows.snapshots")
        assert cursor.fetchall() == [(6,)]  # the client's five commits and the server's
        cursor.execute("select count(*) from piped.cdc_check_snapshot where dbt_valid_to is null")
        assert cursor.fetchall() == [(300,)]
        connection.close()
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=60)
        subprocess.run(
            [*thrift, "stop", "--port", str(thrift_port)],
            env=cluster.env, cwd=PROJECT_ROOT, capture_output=True, timeout=120,
        )  # fmt: skip
        cluster.heal()
    status = cluster.cli("status")
    assert status.returncode == 0 and "NOT RUNNING" not in status.stdout, status.stdout
    # metastore, master, two workers
    assert len(re.findall(r"pid (\d+): running", status.stdout)) == 4


# --- faults ---------------------------------------------------------------------------------


def _results(output: str) -> dict[str, Any]:
    """The driver's RESULT lines, merged into one dict."""
    merged: dict[str, Any] = {}
    for result in results(output):
        merged.update(result)
    return merged


def _wait_for(
    condition: Callable[[], bool], process: subprocess.Popen[str], what: str, output: Path
) -> None:
    wait_for(condition, process, what, output, TIMEOUT)


def _metadata_files(cluster: Cluster, schema: str) -> dict[Path, float]:
    """The table's Iceberg metadata files (one more per commit) and when each was written."""
    folder = cluster.lakehouse / "warehouse" / f"{schema}.db" / driver.SNAPSHOT / "metadata"
    return {path: path.stat().st_mtime for path in folder.glob("*.metadata.json")}


def _executor_host(cluster: Cluster) -> str:
    """The worker whose JVM has an executor running (one application, one core: one executor)."""
    for name, pid in cluster.pids().items():
        if not name.startswith("worker-"):
            continue
        for child in Path("/proc").glob("[0-9]*"):
            try:
                parent = int((child / "stat").read_text().rsplit(")", 1)[1].split()[1])
                command = (child / "cmdline").read_bytes()
            except (OSError, IndexError, ValueError):
                continue
            if parent == pid and b"CoarseGrainedExecutorBackend" in command:
                return name
    pytest.fail(f"no executor runs under any worker of {cluster.pids()}")


def _verify(
    cluster: Cluster, project: Path, schema: str, day1_run: str, *runs: str
) -> dict[str, Any]:
    """The table as the faulty step left it; then day 2's snapshot again (nothing to do when
    the day was done) and the counts of versions, also those of ``runs``."""
    argv = cluster.reliability("verify", project, schema, "--day1-run", day1_run)
    for run in runs:
        argv += ["--run", run]
    done = cluster.run(argv)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-5000:]
    return _results(done.stdout)


def _assert_day2_done_by(after: dict[str, Any], run: str, rows: int) -> None:
    """Day 2's changes (after day 1 of ``rows`` keys) are ``run``'s, each once; the verify run
    after it found nothing to do."""
    expected = driver.expected_changes(rows)
    assert after["runs"][run] == {
        "inserted": expected["updated"] + expected["inserted"],
        "closed": expected["updated"] + expected["deleted"],
    }
    counts = after["counts"]
    assert (counts["inserted_by_rerun"], counts["closed_by_rerun"]) == (0, 0)
    assert after["table_after_rerun"]["row_hash"] == after["table_after_kill"]["row_hash"]


def _data_counts(after: dict[str, Any]) -> dict[str, int]:
    return {k: after["counts"][k] for k in driver.DATA_COUNTS}


@pytest.mark.slow
def test_worker_killed_during_a_snapshot_merge(cluster: Cluster, tmp_path: Path) -> None:
    """Day 1 (KILL_ROWS keys), then day 2's snapshot; KILL_DELAY s into its `merge into`, the
    worker running the application's executor is SIGKILLed with its executor JVM."""
    project, schema = tmp_path / "project", "killed_worker"
    state_file, output = tmp_path / "state.json", tmp_path / "setup.out"
    argv = cluster.reliability(
        "setup", project, schema, "--rows", str(driver.KILL_ROWS), "--state", str(state_file),
        "--snapshot",
    )  # fmt: skip
    process = cluster.popen(argv, output)
    victim = ""
    try:
        _wait_for(state_file.exists, process, "day 1 was done", output)
        before = json.loads(state_file.read_text())
        metadata_before = _metadata_files(cluster, schema)
        dbt_log = project / "logs" / "dbt.log"

        def merging() -> bool:
            return logged_since(dbt_log, before["log_offset"], "merge into")

        _wait_for(merging, process, "day 2's merge started", output)
        time.sleep(driver.KILL_DELAY)
        victim = _executor_host(cluster)
        killed_at = time.time()
        os.killpg(cluster.pids()[victim], signal.SIGKILL)  # the worker and its executor JVM
        process.wait(timeout=TIMEOUT)
        # The worker comes back on its ports and registers with the master again.
        restarted = cluster.cli("restart", victim)
        assert restarted.returncode == 0, restarted.stdout + restarted.stderr
        assert f"{victim}: restarted" in restarted.stdout
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=60)
        cluster.heal()
    commits = {
        p: t for p, t in _metadata_files(cluster, schema).items() if p not in metadata_before
    }
    assert all(written > killed_at for written in commits.values()), (
        "the kill landed after the merge had committed: the scenario proved nothing; make the "
        "merge longer (KILL_ROWS) or KILL_DELAY shorter"
    )
    text = output.read_text()
    print(
        f"{victim} killed {driver.KILL_DELAY:.1f} s into the merge; "
        f"the run exited {process.returncode}"
    )
    # The driver saw its executor go (Spark logs the loss at ERROR, the level the session keeps).
    assert "Lost executor" in text, text[-5000:]
    day2_run = _results(text).get("day2_run")
    after = _verify(cluster, project, schema, before["day1_run"], *([day2_run] if day2_run else []))
    if process.returncode == 0:
        # Spark re-ran the lost tasks on the other worker: day 2 done by the run, in one commit.
        assert day2_run and len(commits) == 1
        _assert_day2_done_by(after, day2_run, driver.KILL_ROWS)
    else:
        # Failed: nothing written, not even a commit; the next run did the day.
        assert not commits and after["table_after_kill"] == before["table"], text[-5000:]
    assert _data_counts(after) == driver.expected_counts(driver.KILL_ROWS)
    assert "NOT RUNNING" not in cluster.cli("status").stdout


@pytest.mark.slow
def test_two_snapshot_runs_of_one_table_at_once(cluster: Cluster, tmp_path: Path) -> None:
    """Day 1 (CONCURRENT_ROWS keys) and day 2's source; then day 2's snapshot from two JVMs,
    released together once both are up. The first JVM is the one that did day 1."""
    project, schema, rows = tmp_path / "project", "two_runs", CONCURRENT_ROWS
    state_file = tmp_path / "state.json"
    outputs = [tmp_path / "run-a.out", tmp_path / "run-b.out"]
    setup = cluster.reliability(
        "setup", project, schema, "--rows", str(rows), "--state", str(state_file),
        "--snapshot-on-go",
    )  # fmt: skip
    runs = [cluster.popen(setup, outputs[0])]
    try:
        _wait_for(state_file.exists, runs[0], "day 1 was done", outputs[0])
        before = json.loads(state_file.read_text())
        runs.append(cluster.popen(cluster.reliability("snapshot", project, schema), outputs[1]))
        for process, output in zip(runs, outputs, strict=True):
            _wait_for(
                lambda o=output: "WAITING" in o.read_text(), process, "its JVM was up", output
            )
        for process in runs:
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        for process in runs:
            process.stdin.close()  # type: ignore[union-attr]
            process.wait(timeout=TIMEOUT)
    finally:
        for process in runs:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=60)
    texts = [o.read_text() for o in outputs]
    assert [p.returncode for p in runs] == [0, 0], texts
    results = [_results(t) for t in texts]
    print("two runs at once:", [(r["ok"], r["error"][:300]) for r in results])
    failed = [r for r in results if not r["ok"]]
    for run in failed:
        # Iceberg's optimistic commit: the second commit finds the files it rewrote replaced.
        assert re.search(r"ValidationException|CommitFailedException", run["error"]), run
    after = _verify(cluster, project, schema, before["day1_run"], *(r["run"] for r in results))
    # Exactly one run did day 2; the other wrote nothing (failed), or found nothing left to do
    # and recorded an empty commit.
    done_by = [r["run"] for r in results if after["runs"][r["run"]]["inserted"]]
    assert len(done_by) == 1, after["runs"]
    _assert_day2_done_by(after, done_by[0], rows)
    other = next(r for r in results if r["run"] != done_by[0])
    assert after["runs"][other["run"]] == {"inserted": 0, "closed": 0}
    commits = after["table_after_kill"]["iceberg_snapshots"] - before["table"]["iceberg_snapshots"]
    assert commits == (1 if failed else 2)
    assert _data_counts(after) == driver.expected_counts(rows)
