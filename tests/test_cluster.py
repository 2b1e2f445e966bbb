"""The standalone cluster and shared metastore of make cluster-start (operations/cluster.py).

The slow tests share one cluster (PostgreSQL, the metastore service, a master and two workers)
that the module starts on ports no other process uses, in a lakehouse of its own, and stops:

1. three applications at once: a Thrift server on the cluster, the pipeline (reconciled) and a
   second JVM committing to its own table; the server reads the tables of both;
2. a worker killed during a snapshot's merge: the run completes (Spark re-runs the lost tasks
   on the other worker) or fails with nothing written; the next run completes the day; no
   version is lost or duplicated; ``restart worker-N`` brings the worker back;
3. the metastore service restarted between two runs of one JVM;
4. two snapshot runs of one table at once from two JVMs: Iceberg's commit lets one through
   and fails the other with nothing written (or finds nothing left to do);
5. stop leaves no process and no port behind (the fixture's teardown).

The fault scenarios run tests/reliability_driver.py with ``--target cluster``: the same
20,000-key day 2 and the same version counts as the kill-during-merge test of
tests/test_reliability.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from pyhive import hive

from python_helpers.operations.cluster import ClusterPorts, ClusterState, client_conf
from python_helpers.operations.thrift import SERVER_CLASS, ServerFiles, pid_alive, port_in_use
from python_helpers.pipeline.run import PipelineError, check_no_server_on_lakehouse
from python_helpers.runtime.lakehouse import PROJECT_ROOT
from tests import reliability_driver as driver

CLI = [sys.executable, "-m", "python_helpers.operations.cluster"]
TIMEOUT = 900
FAULT_ROWS = 20_000  # day 1's keys: day 2's merge runs for 10 s or more on one executor core
KILL_DELAY = 2.0  # seconds after the merge statement is logged


def test_the_cluster_target_sets_what_client_conf_sets() -> None:
    """profiles.yml's cluster target, with its env_var defaults, is client_conf of a cluster
    on the default ports."""
    profile = yaml.safe_load((PROJECT_ROOT / "profiles.yml").read_text())
    target = profile["scd2_lakehouse"]["outputs"]["cluster"]
    assert target["method"] == "session"
    default = re.compile(r"\{\{ env_var\('[A-Z0-9_]+', '([^']*)'\) \}\}")
    settings = {k: default.sub(r"\1", str(v)) for k, v in target["server_side_parameters"].items()}
    state = ClusterState(ClusterPorts.for_offset(0, 2), {}, "1g")
    assert settings == client_conf(state)


def _cli(lakehouse: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LAKEHOUSE_DIR": str(lakehouse)}
    return subprocess.run(
        [*CLI, *args], env=env, capture_output=True, text=True, timeout=300, cwd=PROJECT_ROOT
    )


def test_bad_arguments_and_nothing_to_stop(tmp_path: Path) -> None:
    bad = _cli(tmp_path, "start", "--workers", "0")
    assert bad.returncode == 2 and "--workers: at least 1" in bad.stderr, bad.stderr
    assert not (tmp_path / "cluster").exists()
    status = _cli(tmp_path, "status")
    assert status.returncode == 3 and "no cluster runs" in status.stdout
    stopped = _cli(tmp_path, "stop")
    assert stopped.returncode == 0 and "no cluster runs" in stopped.stdout
    restart = _cli(tmp_path, "restart", "metastore")
    assert restart.returncode == 2 and "no cluster runs" in restart.stderr, restart.stderr


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
    stand_in = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)", SERVER_CLASS]
    )
    try:
        files.pid.write_text(f"{stand_in.pid}\n")
        conf = client_conf(ClusterState(ClusterPorts.for_offset(0, 2), {}, "1g")) if shared else {}
        files.properties.write_text("".join(f"{k} {v}\n" for k, v in conf.items()))
        if shared:
            check_no_server_on_lakehouse()
        else:
            with pytest.raises(PipelineError, match=r"holds this lakehouse's metastore"):
                check_no_server_on_lakehouse()
    finally:
        stand_in.kill()
        stand_in.wait()


def _free_offset(workers: int) -> int:
    for offset in range(200, 2000, 37):
        if not any(
            port_in_use("127.0.0.1", p) for p in ClusterPorts.for_offset(offset, workers).all()
        ):
            return offset
    pytest.skip("no free block of ports for a cluster")


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
    table; the server then reads the pipeline's tables. A second start is refused."""
    again = cluster.cli("start", "--port-offset", str(cluster.offset))
    assert again.returncode == 1 and "already runs" in again.stderr, again.stderr
    thrift_port = next(p for p in range(10300, 10400) if not port_in_use("127.0.0.1", p))
    thrift = [sys.executable, "-m", "python_helpers.operations.thrift"]
    server = subprocess.run(
        [*thrift, "start", "--cluster", "--port", str(thrift_port)],
        env=cluster.env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    try:
        assert server.returncode == 0, server.stdout + server.stderr
        connection = hive.connect(host="127.0.0.1", port=thrift_port, username="test")
        cursor = connection.cursor()
        cursor.execute("select count(*) from range(10)")  # the server now holds its executor
        assert cursor.fetchall() == [(10,)]
        cluster_driver = [sys.executable, "-m", "tests.cluster_driver"]
        project = cluster.lakehouse / "project"
        pipeline = subprocess.Popen(
            [*cluster_driver, "pipeline", "--project", str(project), "--schema", "piped"],
            env=cluster.env, cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True,
        )  # fmt: skip
        client = cluster.run(
            [*cluster_driver, "client", "--project", str(cluster.lakehouse), "--schema", "app2"]
        )
        out, _ = pipeline.communicate(timeout=TIMEOUT)
        assert pipeline.returncode == 0, out[-4000:]
        assert "every reconciliation OK" in out, out[-4000:]
        assert client.returncode == 0, client.stdout[-3000:] + client.stderr[-3000:]
        master = f"spark://127.0.0.1:{7077 + cluster.offset}"
        assert f"RESULT client rows=500 snapshots=5 master={master}" in client.stdout
        cursor.execute("select count(*) from piped.cdc_check_snapshot where dbt_valid_to is null")
        assert cursor.fetchall() == [(300,)]  # day 2's 300 keys, one open version each
        cursor.execute("select count(*) from app2.client_rows")
        assert cursor.fetchall() == [(500,)]
        connection.close()
    finally:
        subprocess.run(
            [*thrift, "stop", "--port", str(thrift_port)],
            env=cluster.env, cwd=PROJECT_ROOT, capture_output=True, timeout=120,
        )  # fmt: skip
    status = cluster.cli("status")
    assert status.returncode == 0 and "NOT RUNNING" not in status.stdout, status.stdout
    # metastore, master, two workers
    assert len(re.findall(r"pid (\d+): running", status.stdout)) == 4


# --- faults ---------------------------------------------------------------------------------


def _results(output: str) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for line in output.splitlines():
        if line.startswith("RESULT "):
            merged.update(json.loads(line[7:]))
    return merged


def _wait_for(
    condition: Callable[[], bool], process: subprocess.Popen[str], what: str, output: Path
) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        if process.poll() is not None:
            pytest.fail(
                f"the driver exited ({process.returncode}) before {what}:\n"
                + output.read_text()[-5000:]
            )
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def _metadata_files(cluster: Cluster, schema: str) -> int:
    """The table's Iceberg metadata files: one more per commit (read without a JVM)."""
    folder = cluster.lakehouse / "warehouse" / f"{schema}.db" / driver.SNAPSHOT / "metadata"
    return len(list(folder.glob("*.metadata.json")))


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


def _expected_counts(rows: int) -> dict[str, int]:
    """Day 2's versions after day 1 of ``rows`` keys, as in test_reliability's killed run."""
    expected = driver.expected_changes(rows)
    versions = rows + expected["updated"] + expected["inserted"]
    open_versions = rows - expected["deleted"] + expected["inserted"]
    return {
        "versions": versions,
        "open_versions": open_versions,
        "keys": rows + expected["inserted"],
        "open_keys": open_versions,  # one open version per key
        "scd_ids": versions,  # no duplicated version
        "inserted_by_day1": rows,  # day 1's versions all kept
        "closed_deleted": expected["deleted"],
        "closed_updated": expected["updated"],
        "open_vs_source_mismatch": 0,  # open versions = day 2's source, row for row
    }


def _verify(cluster: Cluster, project: Path, schema: str, day1_run: str) -> dict[str, Any]:
    """The table as the faulty step left it; then day 2's snapshot again (nothing to do when
    the day was done) and the counts of versions."""
    done = cluster.run(cluster.reliability("verify", project, schema, "--day1-run", day1_run))
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-5000:]
    return _results(done.stdout)


@pytest.mark.slow
def test_worker_killed_during_a_snapshot_merge(cluster: Cluster, tmp_path: Path) -> None:
    """Day 1 (FAULT_ROWS keys), then day 2's snapshot; KILL_DELAY s into its `merge into`, the
    worker running the application's executor is SIGKILLed with its executor JVM."""
    project, schema = tmp_path / "project", "killed_worker"
    state_file, output = tmp_path / "state.json", tmp_path / "setup.out"
    argv = cluster.reliability(
        "setup", project, schema, "--rows", str(FAULT_ROWS), "--state", str(state_file),
        "--snapshot",
    )  # fmt: skip
    process = cluster.popen(argv, output)
    victim = ""
    try:
        _wait_for(state_file.exists, process, "day 1 was done", output)
        before = json.loads(state_file.read_text())
        commits_before = _metadata_files(cluster, schema)
        dbt_log = project / "logs" / "dbt.log"

        def merging() -> bool:
            with dbt_log.open("rb") as log:
                log.seek(before["log_offset"])
                return b"merge into" in log.read().lower()

        _wait_for(merging, process, "day 2's merge started", output)
        time.sleep(KILL_DELAY)
        victim = _executor_host(cluster)
        committed_at_kill = _metadata_files(cluster, schema) - commits_before
        os.killpg(cluster.pids()[victim], signal.SIGKILL)  # the worker and its executor JVM
        process.wait(timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=60)
    assert committed_at_kill == 0, (
        "the kill landed after the merge had committed: the scenario proved nothing; make the "
        "merge longer (FAULT_ROWS) or KILL_DELAY shorter"
    )
    text = output.read_text()
    print(f"{victim} killed {KILL_DELAY:.1f} s into the merge; the run exited {process.returncode}")
    # The driver saw its executor go (Spark logs the loss at ERROR, the level the session keeps).
    assert "Lost executor" in text, text[-5000:]
    after = _verify(cluster, project, schema, before["day1_run"])
    if process.returncode == 0:
        # Spark re-ran the lost tasks on the other worker: day 2 done in one commit.
        assert "day2_run" in _results(text)
        assert (
            after["table_after_kill"]["iceberg_snapshots"]
            == before["table"]["iceberg_snapshots"] + 1
        )
    else:
        # Failed: nothing written, not even a commit.
        assert after["table_after_kill"] == before["table"], text[-5000:]
    assert {k: after["counts"][k] for k in driver.DATA_COUNTS} == _expected_counts(FAULT_ROWS)
    # The worker comes back on its ports and registers with the master again.
    restarted = cluster.cli("restart", victim)
    assert restarted.returncode == 0, restarted.stdout + restarted.stderr
    assert f"{victim}: restarted" in restarted.stdout
    assert "NOT RUNNING" not in cluster.cli("status").stdout


@pytest.mark.slow
def test_metastore_restarted_between_two_runs(cluster: Cluster, tmp_path: Path) -> None:
    """One JVM: day 1's snapshot; the metastore service restarted; day 2's snapshot."""
    project, schema = tmp_path / "project", "metastore_restart"
    rows = 2_000
    state_file, output = tmp_path / "state.json", tmp_path / "setup.out"
    argv = cluster.reliability(
        "setup", project, schema, "--rows", str(rows), "--state", str(state_file),
        "--snapshot", "--wait",
    )  # fmt: skip
    process = cluster.popen(argv, output)
    try:
        _wait_for(lambda: "WAITING" in output.read_text(), process, "day 1 was done", output)
        old = cluster.pids()["metastore"]
        restarted = cluster.cli("restart", "metastore")
        assert restarted.returncode == 0, restarted.stdout + restarted.stderr
        assert not pid_alive(old) and cluster.pids()["metastore"] != old
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.close()
        process.wait(timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=60)
    text = output.read_text()
    assert process.returncode == 0, text[-5000:]
    results = _results(text)
    assert "day2_run" in results
    after = _verify(cluster, project, schema, results["day1_run"])
    assert {k: after["counts"][k] for k in driver.DATA_COUNTS} == _expected_counts(rows)
    # Day 2's versions are the run's own (the verify run after it found nothing to do).
    assert (
        after["table_after_kill"]["iceberg_snapshots"] == results["table"]["iceberg_snapshots"] + 1
    )


@pytest.mark.slow
def test_two_snapshot_runs_of_one_table_at_once(cluster: Cluster, tmp_path: Path) -> None:
    """Day 1 (FAULT_ROWS keys) and day 2's source; then day 2's snapshot from two JVMs, released
    together once both are up."""
    project, schema = tmp_path / "project", "two_runs"
    state_file = tmp_path / "state.json"
    setup = cluster.run(
        cluster.reliability(
            "setup", project, schema, "--rows", str(FAULT_ROWS), "--state", str(state_file)
        )
    )
    assert setup.returncode == 0, setup.stdout[-5000:] + setup.stderr[-5000:]
    before = json.loads(state_file.read_text())
    outputs = [tmp_path / "run-a.out", tmp_path / "run-b.out"]
    runs = [cluster.popen(cluster.reliability("snapshot", project, schema), o) for o in outputs]
    try:
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
    succeeded = [r for r in results if r["ok"]]
    print("two runs at once:", [(r["ok"], r["error"][:300]) for r in results])
    assert succeeded, results
    for failed in (r for r in results if not r["ok"]):
        # Iceberg's optimistic commit: the second commit finds the files it rewrote replaced.
        assert re.search(r"ValidationException|CommitFailedException|conflict", failed["error"]), (
            failed
        )
    after = _verify(cluster, project, schema, before["day1_run"])
    # One commit per successful run; the failed one wrote nothing.
    assert after["table_after_kill"]["iceberg_snapshots"] == before["table"][
        "iceberg_snapshots"
    ] + len(succeeded)
    assert {k: after["counts"][k] for k in driver.DATA_COUNTS} == _expected_counts(FAULT_ROWS)
