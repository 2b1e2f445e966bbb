"""The standalone cluster and shared metastore of make cluster-start (operations/cluster.py).

The slow test starts its own cluster (PostgreSQL, the metastore service, a master and two
workers) on ports no other process uses, in a lakehouse of its own, and stops it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from pyhive import hive

from python_helpers.operations.cluster import ClusterPorts, ClusterState, client_conf
from python_helpers.operations.thrift import pid_alive, port_in_use
from python_helpers.runtime.lakehouse import PROJECT_ROOT

CLI = [sys.executable, "-m", "python_helpers.operations.cluster"]


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


def _free_offset(workers: int) -> int:
    for offset in range(200, 2000, 37):
        if not any(
            port_in_use("127.0.0.1", p) for p in ClusterPorts.for_offset(offset, workers).all()
        ):
            return offset
    pytest.skip("no free block of ports for a cluster")


@pytest.mark.slow
def test_pipeline_on_the_cluster_beside_a_second_application() -> None:
    """The pipeline reconciles on the cluster target while another JVM commits to its own
    Iceberg table through the same metastore; a Thrift server on the cluster then reads the
    pipeline's tables; a second start is refused; stop ends every process."""
    # PostgreSQL runs as its own user: the lakehouse's folders must be readable by it
    # (pytest's tmp folders are private to root).
    lakehouse = Path(tempfile.mkdtemp(prefix="scd2-cluster-"))
    lakehouse.chmod(0o755)
    offset = _free_offset(2)
    env = {**os.environ, "LAKEHOUSE_DIR": str(lakehouse), "PYTHONPATH": str(PROJECT_ROOT)}
    started = _cli(lakehouse, "start", "--port-offset", str(offset), "--worker-memory", "2g")
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        again = _cli(lakehouse, "start", "--port-offset", str(offset))
        assert again.returncode == 1 and "already runs" in again.stderr, again.stderr
        driver = [sys.executable, "-m", "tests.cluster_driver"]
        pipeline = subprocess.Popen(
            [
                *driver,
                "pipeline",
                "--project",
                str(lakehouse / "project"),
                "--schema",
                "piped",
            ],
            env=env,
            cwd=PROJECT_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        client = subprocess.run(
            [*driver, "client", "--project", str(lakehouse), "--schema", "second_app"],
            env=env,
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=900,
        )
        out, _ = pipeline.communicate(timeout=1200)
        assert pipeline.returncode == 0, out[-4000:]
        assert "every reconciliation OK" in out, out[-4000:]
        assert client.returncode == 0, client.stdout[-3000:] + client.stderr[-3000:]
        master = f"spark://127.0.0.1:{7077 + offset}"
        assert f"RESULT client rows=500 snapshots=5 master={master}" in client.stdout
        # The Thrift server as a third application of the cluster, on the same metastore:
        # it sees the pipeline's tables.
        thrift_port = next(p for p in range(10300, 10400) if not port_in_use("127.0.0.1", p))
        thrift = [sys.executable, "-m", "python_helpers.operations.thrift"]
        server = subprocess.run(
            [*thrift, "start", "--cluster", "--port", str(thrift_port)],
            env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        try:
            assert server.returncode == 0, server.stdout + server.stderr
            connection = hive.connect(host="127.0.0.1", port=thrift_port, username="test")
            cursor = connection.cursor()
            cursor.execute(
                "select count(*) from piped.cdc_check_snapshot where dbt_valid_to is null"
            )
            assert cursor.fetchall() == [(300,)]  # day 2's 300 keys, one open version each
            connection.close()
        finally:
            subprocess.run(
                [*thrift, "stop", "--port", str(thrift_port)],
                env=env, cwd=PROJECT_ROOT, capture_output=True, timeout=120,
            )  # fmt: skip
        status = _cli(lakehouse, "status")
        assert status.returncode == 0 and "NOT RUNNING" not in status.stdout, status.stdout
        pids = [int(p) for p in re.findall(r"pid (\d+): running", status.stdout)]
        assert len(pids) == 4  # metastore, master, two workers
    finally:
        stopped = _cli(lakehouse, "stop")
    assert stopped.returncode == 0, stopped.stderr
    shutil.rmtree(lakehouse, ignore_errors=True)
    assert not any(pid_alive(pid) for pid in pids)
    assert _cli(lakehouse, "status").returncode == 3
    assert not any(port_in_use("127.0.0.1", p) for p in ClusterPorts.for_offset(offset, 2).all())
