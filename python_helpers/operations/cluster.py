"""Start, stop, restart and inspect a Spark standalone cluster and a shared metastore here.

``start`` brings up, in order, each bound to loopback where the program allows it:

1. PostgreSQL (Debian's ``postgresql`` package), a cluster of its own in
   ``$LAKEHOUSE_DIR/cluster/postgres``: the metastore's database, which many clients may use at
   once (Derby admits one JVM);
2. a Hive metastore service (``HiveMetaStore`` from pyspark's own jars) over it, with the lock
   tables Iceberg's Hive catalog needs to lock a table during its commit;
3. a Spark standalone master and ``--workers`` workers (``--worker-cores`` task slots each;
   each application gets an executor JVM of its own), from pyspark's distribution.

Logs, pids and the state of a running cluster live in ``$LAKEHOUSE_DIR/cluster/``. A second
``start`` is refused while any part runs; ``stop`` stops them in reverse order (SIGTERM, then
SIGKILL) and says what it did; ``restart PART`` brings one part back on its ports while the
rest runs; ``status`` exits 3 when nothing runs.

Sessions on the cluster: :func:`client_conf` (the ``cluster`` target of ``profiles.yml`` sets
the same through ``server_side_parameters``). docs/cluster.md has the rest.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from python_helpers.operations.thrift import (
    MAX_SECONDS,
    ThriftStopError,
    ThriftUsageError,
    cmdline_args,
    exclusive,
    log_tail,
    on_shared_metastore,
    pid_alive,
    pid_runs,
    port_in_use,
    positive_seconds,
    running_servers,
    spark_home,
    terminate,
)
from python_helpers.operations.thrift import stop as stop_thrift
from python_helpers.runtime.lakehouse import lakehouse_dir, prepare_dirs, warehouse_dir

HOST = "127.0.0.1"
DEFAULT_WORKERS = 2
DEFAULT_WORKER_MEMORY = "4g"
# Task slots per worker. Each application holds its executor's core for as long as it runs (no
# dynamic allocation), so two workers of one core each would admit two applications: a Thrift
# server and a notebook would leave dbt waiting for resources. Two slots per worker admit four
# one-core applications at once on this two-core machine (oversubscribed on purpose: they
# mostly wait on each other's I/O and the metastore, not all compute at once).
DEFAULT_WORKER_CORES = 2
DEFAULT_TIMEOUT = 120.0
STOP_TIMEOUT = 30.0
# A stopped part's ports can stay bound a moment after its pid looks gone (seen in the suite: a
# metastore restart found its own port taken; likely the JVM's main thread already a zombie
# while its other threads finish the shutdown): restart waits that long before calling the
# port taken by another process.
PORT_RELEASE_WAIT = 10.0
EXIT_NOT_RUNNING = 3
METASTORE_DATABASE = "metastore"
METASTORE_USER = "hive"
MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"
METASTORE_CLASS = "org.apache.hadoop.hive.metastore.HiveMetaStore"
JDBC_JAR_CANDIDATES = ("/usr/share/java/postgresql.jar",)
INSTALL_HINT = "apt-get install -y postgresql libpostgresql-jdbc-java"

# Hive 2.3's transaction and lock tables (its TxnDbUtil.prepDb column lists, written for
# PostgreSQL: `bytea` for Derby's `for bit data`). DataNucleus' autoCreateAll makes the
# metastore's own tables but not these, and without them every lock call fails; Iceberg's Hive
# catalog locks a table for each commit. Unquoted names: Hive's lock code queries them so.
LOCK_TABLES_SQL = """
create table if not exists txns (txn_id bigint primary key, txn_state char(1) not null,
    txn_started bigint not null, txn_last_heartbeat bigint not null,
    txn_user varchar(128) not null, txn_host varchar(128) not null);
create table if not exists txn_components (tc_txnid bigint references txns (txn_id),
    tc_database varchar(128) not null, tc_table varchar(128), tc_partition varchar(767),
    tc_operation_type char(1) not null);
create table if not exists completed_txn_components (ctc_txnid bigint,
    ctc_database varchar(128) not null, ctc_table varchar(128), ctc_partition varchar(767));
create table if not exists next_txn_id (ntxn_next bigint not null);
insert into next_txn_id select 1 where not exists (select 1 from next_txn_id);
create table if not exists hive_locks (hl_lock_ext_id bigint not null,
    hl_lock_int_id bigint not null, hl_txnid bigint, hl_db varchar(128) not null,
    hl_table varchar(128), hl_partition varchar(767), hl_lock_state char(1) not null,
    hl_lock_type char(1) not null, hl_last_heartbeat bigint not null, hl_acquired_at bigint,
    hl_user varchar(128) not null, hl_host varchar(128) not null, hl_heartbeat_count integer,
    hl_agent_info varchar(128), hl_blockedby_ext_id bigint, hl_blockedby_int_id bigint,
    primary key (hl_lock_ext_id, hl_lock_int_id));
create index if not exists hl_txnid_index on hive_locks (hl_txnid);
create table if not exists next_lock_id (nl_next bigint not null);
insert into next_lock_id select 1 where not exists (select 1 from next_lock_id);
create table if not exists compaction_queue (cq_id bigint primary key,
    cq_database varchar(128) not null, cq_table varchar(128) not null,
    cq_partition varchar(767), cq_state char(1) not null, cq_type char(1) not null,
    cq_tblproperties varchar(2048), cq_worker_id varchar(128), cq_start bigint,
    cq_run_as varchar(128), cq_highest_txn_id bigint, cq_meta_info bytea,
    cq_hadoop_job_id varchar(32));
create table if not exists next_compaction_queue_id (ncq_next bigint not null);
insert into next_compaction_queue_id select 1
    where not exists (select 1 from next_compaction_queue_id);
create table if not exists completed_compactions (cc_id bigint primary key,
    cc_database varchar(128) not null, cc_table varchar(128) not null,
    cc_partition varchar(767), cc_state char(1) not null, cc_type char(1) not null,
    cc_tblproperties varchar(2048), cc_worker_id varchar(128), cc_start bigint, cc_end bigint,
    cc_run_as varchar(128), cc_highest_txn_id bigint, cc_meta_info bytea,
    cc_hadoop_job_id varchar(32));
create table if not exists aux_table (mt_key1 varchar(128) not null, mt_key2 bigint not null,
    mt_comment varchar(255), primary key (mt_key1, mt_key2));
create table if not exists write_set (ws_database varchar(128) not null,
    ws_table varchar(128) not null, ws_partition varchar(767), ws_txnid bigint not null,
    ws_commit_id bigint not null, ws_operation_type char(1) not null);
"""


class ClusterError(RuntimeError):
    """Base class: the cluster could not be started, stopped or inspected."""


class ClusterUsageError(ClusterError):
    """Bad arguments, or a program the cluster needs is missing (exit status 2)."""


class ClusterAlreadyRunningError(ClusterError):
    """A part of the cluster already runs for this lakehouse, or one of its ports is taken."""


class ClusterStartError(ClusterError):
    """A part of the cluster died, or never became ready, during ``start``."""


@dataclass(frozen=True)
class ClusterPorts:
    """The cluster's ports: Spark's defaults, or all shifted by ``offset`` (tests, two clusters)."""

    postgres: int
    metastore: int
    master: int
    master_ui: int
    workers: tuple[tuple[int, int], ...]  # (rpc, web UI) per worker

    @classmethod
    def for_offset(cls, offset: int, workers: int) -> ClusterPorts:
        return cls(
            postgres=55432 + offset,
            metastore=9083 + offset,
            master=7077 + offset,
            master_ui=8080 + offset,
            workers=tuple((7078 + offset + i, 8081 + offset + i) for i in range(workers)),
        )

    def all(self) -> list[int]:
        return [self.postgres, self.metastore, self.master, self.master_ui] + [
            port for pair in self.workers for port in pair
        ]


@dataclass(frozen=True)
class ClusterState:
    """What ``start`` wrote to ``cluster.json``: enough for ``stop``, ``status`` and clients."""

    ports: ClusterPorts
    pids: dict[str, int]
    worker_memory: str
    worker_cores: int = DEFAULT_WORKER_CORES

    @property
    def master_url(self) -> str:
        return f"spark://{HOST}:{self.ports.master}"

    @property
    def metastore_uri(self) -> str:
        return f"thrift://{HOST}:{self.ports.metastore}"


def cluster_dir() -> Path:
    return lakehouse_dir() / "cluster"


def state_file() -> Path:
    return cluster_dir() / "cluster.json"


def read_state() -> ClusterState | None:
    try:
        raw = json.loads(state_file().read_text())
        ports = raw["ports"]
        ports["workers"] = tuple(tuple(pair) for pair in ports["workers"])
        return ClusterState(
            ClusterPorts(**ports),
            raw["pids"],
            raw["worker_memory"],
            raw.get("worker_cores", DEFAULT_WORKER_CORES),
        )
    except FileNotFoundError:
        return None
    except (ValueError, KeyError, TypeError) as exc:
        raise ClusterError(
            f"{state_file()} is unreadable ({exc!r}); stop what runs and start again"
        ) from None


def _write_state(state: ClusterState) -> None:
    # Written aside and renamed: a kill or a full disk mid-write leaves the previous file whole,
    # never a truncated one that stop and status could not read.
    partial = state_file().with_name(f"{state_file().name}.partial")
    partial.write_text(json.dumps(asdict(state), indent=2) + "\n")
    partial.replace(state_file())


def client_conf(
    state: ClusterState, cores: int | None = None, executor_memory: str = "2g"
) -> dict[str, str]:
    """Spark settings of a session on the cluster, beside the lakehouse's own: its master, the
    shared metastore (Iceberg's catalog too) with Iceberg's commit lock on, and at most
    ``cores`` cores (default ``$SCD2_CLUSTER_CORES`` or 1, as the cluster target of
    profiles.yml), so that several applications (the Thrift server, a notebook, dbt) run at
    once."""
    if cores is None:
        text = os.environ.get("SCD2_CLUSTER_CORES") or "1"
        if not text.isdigit() or int(text) < 1:
            raise ClusterUsageError(f"SCD2_CLUSTER_CORES must be a whole number >= 1, got {text!r}")
        cores = int(text)
    return {
        "spark.master": state.master_url,
        "spark.cores.max": str(cores),
        "spark.executor.memory": executor_memory,
        "spark.hadoop.hive.metastore.uris": state.metastore_uri,
        "spark.sql.catalog.spark_catalog.uri": state.metastore_uri,
        "spark.hadoop.iceberg.engine.hive.lock-enabled": "true",
    }


def target_env(state: ClusterState) -> dict[str, str]:
    """The environment variables by which the ``cluster`` target of profiles.yml finds this
    cluster (its defaults are the default ports')."""
    return {"SCD2_CLUSTER_MASTER": state.master_url, "SCD2_METASTORE_URI": state.metastore_uri}


# --- the programs ---------------------------------------------------------------------------


def _postgres_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=_version_key)
    if not found:
        raise ClusterUsageError(
            f"PostgreSQL is not installed (no pg_ctl). Install it: {INSTALL_HINT}"
        )
    return Path(found[-1]).parent


def _version_key(path: str) -> int:
    with contextlib.suppress(ValueError):
        return int(Path(path).parts[4])
    return 0


def _jdbc_jar() -> Path:
    override = os.environ.get("LAKEHOUSE_POSTGRES_JDBC")
    for candidate in ([override] if override else []) + list(JDBC_JAR_CANDIDATES):
        if Path(candidate).is_file():
            return Path(candidate)
    raise ClusterUsageError(
        f"no PostgreSQL JDBC driver (looked for {override or JDBC_JAR_CANDIDATES[0]}). Install "
        f"it: {INSTALL_HINT}, or set LAKEHOUSE_POSTGRES_JDBC to the jar"
    )


def _java() -> str:
    home = os.environ.get("JAVA_HOME")
    java = Path(home) / "bin" / "java" if home else shutil.which("java")
    if not java:
        raise ClusterUsageError("no java on PATH and JAVA_HOME unset: install a JDK 17")
    return str(java)


def _as_postgres_user(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: as root, run it as Debian's ``postgres`` user."""
    if os.geteuid() != 0:
        return command
    if shutil.which("runuser") is None:
        raise ClusterUsageError("running as root needs runuser (util-linux) to start PostgreSQL")
    return ["runuser", "-u", "postgres", "--", *command]


def _run(command: list[str], what: str, **kwargs) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, **kwargs)
    if done.returncode != 0:
        raise ClusterStartError(f"{what} failed ({' '.join(command)}):\n{done.stdout}{done.stderr}")
    return done


def _postgres_start(port: int) -> None:
    folder = cluster_dir() / "postgres"
    data = folder / "data"
    bin_dir = _postgres_bin()
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    if not (data / "PG_VERSION").exists():
        _run(
            _as_postgres_user(
                [
                    str(bin_dir / "initdb"),
                    "-D",
                    str(data),
                    "-U",
                    METASTORE_USER,
                    "--auth=trust",
                    "-E",
                    "UTF8",
                    "--no-locale",
                ]
            ),
            "initdb of the metastore's PostgreSQL (is every parent folder of "
            f"{folder} readable by the postgres user?)",
        )
    _run(
        _as_postgres_user(
            [
                str(bin_dir / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(folder / "postgres.log"),
                "-o",
                f"-h {HOST} -p {port} -k {folder}",
                "-w",
                "-t",
                "60",
                "start",
            ]
        ),
        f"starting PostgreSQL (log {folder / 'postgres.log'})",
    )
    psql = [
        str(bin_dir / "psql"),
        "-h",
        HOST,
        "-p",
        str(port),
        "-U",
        METASTORE_USER,
        "-v",
        "ON_ERROR_STOP=1",
        "-qAt",
    ]
    exists = _run(
        [
            *psql,
            "-d",
            "postgres",
            "-c",
            f"select 1 from pg_database where datname = '{METASTORE_DATABASE}'",
        ],
        "listing PostgreSQL's databases",
    )
    if not exists.stdout.strip():
        _run(
            [*psql, "-d", "postgres", "-c", f"create database {METASTORE_DATABASE}"],
            "creating the metastore database",
        )
    _run([*psql, "-d", METASTORE_DATABASE, "-c", LOCK_TABLES_SQL], "creating the lock tables")


def _postgres_of(pid: int, data: Path) -> bool:
    """``pid`` is alive and (where /proc tells) runs with ``-D <data>``, this data directory
    exactly: pg_ctl starts the postmaster so, while a directory that merely contains ours in its
    path (``/y/x/lake/...`` beside ``/x/lake/...``) is another's."""
    if not pid_alive(pid):
        return False
    args = cmdline_args(pid)
    if args is None:
        return True
    wanted = os.fsencode(data)
    return any(
        (arg == b"-D" and following == wanted) or arg == b"-D" + wanted
        for arg, following in zip(args, [*args[1:], b""], strict=True)
    )


def _postgres_running() -> bool:
    data = cluster_dir() / "postgres" / "data"
    lock = data / "postmaster.pid"
    try:
        first_line = lock.read_text().split("\n", 1)[0].strip()
    except FileNotFoundError:
        return False
    except PermissionError:
        raise ClusterError(
            f"cannot read {lock}: the metastore's PostgreSQL belongs to another user; "
            "run as the user who started the cluster"
        ) from None
    # A lock file left by a crash or a reboot names a pid that another process may have taken
    # since: pg_ctl would report that process as PostgreSQL, and stop would signal it. Where
    # /proc says the pid runs no postgres of this data directory (pg_ctl starts it with
    # -D <data>; another lakehouse's or the system's does not qualify), the lock is stale:
    # removed, not running.
    if first_line.isdigit() and not _postgres_of(int(first_line), data):
        lock.unlink(missing_ok=True)
        return False
    with contextlib.suppress(ClusterUsageError):
        done = subprocess.run(
            _as_postgres_user([str(_postgres_bin() / "pg_ctl"), "-D", str(data), "status"]),
            capture_output=True,
            text=True,
            timeout=60,
        )
        return done.returncode == 0
    return False


def _postgres_stop() -> str:
    data = cluster_dir() / "postgres" / "data"
    if not _postgres_running():
        return "PostgreSQL: not running"
    _run(
        _as_postgres_user(
            [
                str(_postgres_bin() / "pg_ctl"),
                "-D",
                str(data),
                "-m",
                "fast",
                "-w",
                "-t",
                "60",
                "stop",
            ]
        ),
        "stopping PostgreSQL",
    )
    return "PostgreSQL: stopped"


def _hive_site(ports: ClusterPorts) -> Path:
    conf_dir = cluster_dir() / "conf"
    conf_dir.mkdir(parents=True, exist_ok=True)
    properties = {
        "javax.jdo.option.ConnectionURL": (
            f"jdbc:postgresql://{HOST}:{ports.postgres}/{METASTORE_DATABASE}"
        ),
        "javax.jdo.option.ConnectionDriverName": "org.postgresql.Driver",
        "javax.jdo.option.ConnectionUserName": METASTORE_USER,
        "javax.jdo.option.ConnectionPassword": METASTORE_USER,
        "datanucleus.schema.autoCreateAll": "true",
        "hive.metastore.schema.verification": "false",
        "hive.metastore.warehouse.dir": warehouse_dir().as_uri(),
        "hive.async.log.enabled": "false",
        # As in the embedded metastore (python_helpers/runtime/lakehouse.py): Iceberg's schema
        # is the table's own; Hive's copy of the column list is informational.
        "hive.metastore.disallow.incompatible.col.type.changes": "false",
        "hive.metastore.server.min.threads": "8",
    }
    body = "".join(
        f"  <property><name>{escape(k)}</name><value>{escape(v)}</value></property>\n"
        for k, v in properties.items()
    )
    path = conf_dir / "hive-site.xml"
    path.write_text(f'<?xml version="1.0"?>\n<configuration>\n{body}</configuration>\n')
    return conf_dir


def _launch(name: str, command: list[str], env: dict[str, str]) -> int:
    log = cluster_dir() / f"{name}.log"
    if log.exists():  # a restart: the log of the run before says why the part went down
        log.replace(log.with_name(f"{name}.log.1"))
    with log.open("w") as handle:
        handle.write(f"# {time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(command)}\n")
        handle.flush()
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            cwd=cluster_dir(),
            env=env,
            start_new_session=True,
        )
    return process.pid


def _log_tail(path: Path) -> str:
    return log_tail(
        path,
        port_advice="shift the cluster's ports with --port-offset (or stop what holds it), "
        "then start again",
    )


def _part_alive(name: str, pid: int) -> bool:
    """``pid`` runs the part ``name`` (its Java class): a pid in cluster.json that another
    process has taken since the part died (after a crash or a reboot) is no part of the
    cluster, is reported as not running and is never signalled."""
    java_class = {"metastore": METASTORE_CLASS, "master": MASTER_CLASS}.get(
        name, WORKER_CLASS if name.startswith("worker-") else None
    )
    return pid_runs(pid, java_class)


def _wait_port(name: str, pid: int, port: int, deadline: float) -> None:
    while not port_in_use(HOST, port):
        if not pid_alive(pid):
            raise ClusterStartError(
                f"{name} exited while starting.\n{_log_tail(cluster_dir() / f'{name}.log')}"
            )
        if time.monotonic() > deadline:
            raise ClusterStartError(
                f"{name} did not listen on port {port} in time.\n"
                f"{_log_tail(cluster_dir() / f'{name}.log')}"
            )
        time.sleep(0.5)


def _wait_log(name: str, pid: int, text: str, deadline: float) -> None:
    log = cluster_dir() / f"{name}.log"
    while text not in log.read_text(errors="replace"):
        if not pid_alive(pid):
            raise ClusterStartError(f"{name} exited while starting.\n{_log_tail(log)}")
        if time.monotonic() > deadline:
            raise ClusterStartError(f"{name} did not log {text!r} in time.\n{_log_tail(log)}")
        time.sleep(0.5)


def _spark_env() -> dict[str, str]:
    return {
        **os.environ,
        "SPARK_HOME": str(spark_home()),
        # The daemons' web UIs bind SPARK_LOCAL_IP (else every interface); --host binds RPC.
        "SPARK_LOCAL_IP": HOST,
        "SPARK_DAEMON_MEMORY": "512m",
    }


# --- the commands -------------------------------------------------------------------


def start_ports(workers: int, worker_cores: int, port_offset: int, timeout: float) -> ClusterPorts:
    """The ports of a start with these options; raise :class:`ClusterUsageError` on a bad one,
    before anything is written."""
    if workers < 1:
        raise ClusterUsageError(f"--workers: at least 1, got {workers}")
    if worker_cores < 1:
        raise ClusterUsageError(f"--worker-cores: at least 1, got {worker_cores}")
    if not 0 < timeout <= MAX_SECONDS:  # nan too
        raise ClusterUsageError(
            f"--timeout: must be a positive number of seconds, at most {MAX_SECONDS:.0f} "
            f"(a day), got {timeout}"
        )
    ports = ClusterPorts.for_offset(port_offset, workers)
    outside = [port for port in ports.all() if not 1024 <= port <= 65535]
    if outside:
        raise ClusterUsageError(
            f"--port-offset {port_offset} with {workers} worker(s) puts port(s) "
            f"{', '.join(map(str, outside))} outside 1024-65535; choose an offset between "
            f"{1024 - min(ports.all()) + port_offset} and {65535 - max(ports.all()) + port_offset}"
        )
    return ports


def start(
    workers: int = DEFAULT_WORKERS,
    port_offset: int = 0,
    worker_memory: str = DEFAULT_WORKER_MEMORY,
    timeout: float = DEFAULT_TIMEOUT,
    worker_cores: int = DEFAULT_WORKER_CORES,
    say: bool = True,
) -> ClusterState:
    """Start PostgreSQL, the metastore service, the master and the workers; raise on failure
    (stopping whatever this call started)."""
    ports = start_ports(workers, worker_cores, port_offset, timeout)
    running = running_parts()
    if running:
        raise ClusterAlreadyRunningError(
            f"the cluster of {lakehouse_dir()} already runs ({', '.join(running)}). Stop it "
            "first: make cluster-stop (python -m python_helpers.operations.cluster stop)"
        )
    _check_free(ports.all())
    _java()
    _jdbc_jar()
    _postgres_bin()
    prepare_dirs()
    cluster_dir().mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + timeout
    state = ClusterState(ports, {}, worker_memory, worker_cores)
    try:
        for part in _part_names(state):
            _start_part(state, part, deadline, wait=not part.startswith("worker-"))
        # The workers start side by side; each is ready once the master has registered it.
        for part in _part_names(state):
            if part.startswith("worker-"):
                _wait_ready(state, part, deadline)
    except (ClusterError, KeyboardInterrupt, OSError):
        with contextlib.suppress(ClusterError):
            stop(say=False)
        raise
    if say:
        print(describe(state))
    return state


def restart(part: str, timeout: float = DEFAULT_TIMEOUT, say: bool = True) -> ClusterState:
    """Stop one part of the running cluster (when it runs) and start it again on its ports.

    For a part that died or was killed (a lost worker, a metastore restarted for maintenance)
    without stopping the rest: applications keep running, the metastore's clients reconnect,
    a worker registers with the master again. A restarted master does not know the
    applications that ran before it (no recovery mode): start them again. The parts a part
    needs (:func:`_needs`) must run. If the part does not come back, it is
    stopped again and the error says so; its previous log is kept as ``<part>.log.1``.
    """
    state = read_state()
    if state is None:
        raise ClusterUsageError(
            f"no cluster runs for {lakehouse_dir()}: start one (make cluster-start)"
        )
    parts = _part_names(state)
    if part not in parts:
        raise ClusterUsageError(f"restart: no part {part!r}; the parts are {', '.join(parts)}")
    running = running_parts()
    down = [p for p in _needs(part) if p not in running]
    if down:
        raise ClusterError(
            f"restart {part}: {', '.join(down)} not running, and {part} needs it: restart "
            f"{down[0]} first, or the whole cluster (make cluster-stop cluster-start)"
        )
    pid = state.pids.get(part)
    try:
        if part == "postgres":
            _postgres_stop()
        elif pid is not None and _part_alive(part, pid):
            terminate(pid, STOP_TIMEOUT)
    except ThriftStopError as exc:
        raise ClusterError(f"restart {part}: could not stop it: {exc}") from None
    taken = _taken_ports(_part_ports(state.ports, part))
    deadline = time.monotonic() + PORT_RELEASE_WAIT
    while taken and time.monotonic() < deadline:
        time.sleep(0.2)
        taken = _taken_ports(taken)
    if taken:
        raise ClusterAlreadyRunningError(
            f"restart {part}: port(s) {', '.join(map(str, taken))} taken by another process "
            f"since the cluster started; {part} is down. Stop that process and restart {part}"
        )
    try:
        _start_part(state, part, time.monotonic() + timeout, wait=True)
    except (ClusterError, KeyboardInterrupt, OSError):
        new_pid = state.pids.get(part)
        if part != "postgres" and new_pid is not None and new_pid != pid and pid_alive(new_pid):
            with contextlib.suppress(ThriftStopError):
                terminate(new_pid, STOP_TIMEOUT)
        raise
    if say:
        print(f"{part}: restarted")
        print(describe(state))
    return state


def _needs(part: str) -> list[str]:
    """The parts ``part`` needs running to start: the metastore its database, a worker the
    master (the master needs neither: the metastore serves the applications, not it)."""
    return {"metastore": ["postgres"]}.get(part, ["master"] if part.startswith("worker-") else [])


def _taken_ports(ports: Sequence[int]) -> list[int]:
    """The ports something listens on, on any of the machine's addresses: the metastore
    listens on all of them, and died at start where another process held its port on
    another address than 127.0.0.1."""
    try:
        return [port for port in ports if port_in_use("0.0.0.0", port)]
    except ThriftUsageError as exc:
        raise ClusterUsageError(str(exc)) from None


def free_port_offset(workers: int, first: int) -> int | None:
    """The first ``--port-offset`` from ``first`` on at which none of a cluster's ports is in
    use (a cluster of its own beside others: tests, benchmarks), or None."""
    for offset in range(first, first + 2_000, 37):
        if not _taken_ports(ClusterPorts.for_offset(offset, workers).all()):
            return offset
    return None


def _check_free(ports: Sequence[int]) -> None:
    taken = _taken_ports(ports)
    if taken:
        raise ClusterAlreadyRunningError(
            f"port(s) {', '.join(map(str, taken))} already in use by another "
            "process: stop it, or shift the cluster's ports with --port-offset"
        )


def _part_ports(ports: ClusterPorts, part: str) -> list[int]:
    if part.startswith("worker-"):
        return list(ports.workers[int(part.split("-")[1]) - 1])
    return {
        "postgres": [ports.postgres],
        "metastore": [ports.metastore],
        "master": [ports.master, ports.master_ui],
    }[part]


def _part_names(state: ClusterState) -> list[str]:
    """The parts in start order (stop goes the other way)."""
    workers = [f"worker-{number}" for number in range(1, len(state.ports.workers) + 1)]
    return ["postgres", "metastore", "master", *workers]


def _start_part(state: ClusterState, part: str, deadline: float, wait: bool) -> None:
    """Start ``part`` on its port, record its pid in cluster.json, and wait until it is ready
    when ``wait``."""
    ports = state.ports
    if part == "postgres":
        _postgres_start(ports.postgres)
        return
    if part == "metastore":
        conf_dir = _hive_site(ports)
        jars = spark_home() / "jars"
        command = [
            _java(),
            "-Xmx512m",
            "-cp",
            f"{conf_dir}:{jars}/*:{_jdbc_jar()}",
            METASTORE_CLASS,
            "-p",
            str(ports.metastore),
        ]
        env = {**os.environ, "HADOOP_USER_NAME": os.environ.get("USER", "scd2")}
    elif part == "master":
        command = [
            str(spark_home() / "bin" / "spark-class"),
            MASTER_CLASS,
            "--host",
            HOST,
            "--port",
            str(ports.master),
            "--webui-port",
            str(ports.master_ui),
        ]
        env = _spark_env()
    else:
        number = int(part.split("-")[1])
        rpc, ui = ports.workers[number - 1]
        work = cluster_dir() / part
        work.mkdir(exist_ok=True)
        command = [
            str(spark_home() / "bin" / "spark-class"),
            WORKER_CLASS,
            "--host",
            HOST,
            "--port",
            str(rpc),
            "--webui-port",
            str(ui),
            "--cores",
            str(state.worker_cores),
            "--memory",
            state.worker_memory,
            "--work-dir",
            str(work),
            state.master_url,
        ]
        env = _spark_env()
    state.pids[part] = _launch(part, command, env)
    _write_state(state)
    if wait:
        _wait_ready(state, part, deadline)


def _wait_ready(state: ClusterState, part: str, deadline: float) -> None:
    pid = state.pids[part]
    if part == "metastore":
        _wait_port(part, pid, state.ports.metastore, deadline)
    elif part == "master":
        _wait_port(part, pid, state.ports.master, deadline)
    elif part.startswith("worker-"):
        _wait_log(part, pid, "Successfully registered with master", deadline)


def has_metastore() -> bool:
    """Whether this lakehouse has a cluster metastore (running or not): its tables' files are in
    the warehouse too."""
    return (cluster_dir() / "postgres" / "data" / "PG_VERSION").exists()


def running_parts() -> list[str]:
    """The parts of this lakehouse's cluster that run (empty when none does)."""
    parts = []
    state = None
    with contextlib.suppress(ClusterError):
        state = read_state()
    if state is not None:
        parts += [name for name, pid in state.pids.items() if _part_alive(name, pid)]
    if _postgres_running():
        parts.append("postgres")
    return parts


def running_state() -> ClusterState:
    """The state of this lakehouse's cluster, for a client about to use it; raise, naming what
    is down, unless PostgreSQL, the metastore, the master and a worker run (a ``cluster.json``
    left by a cluster that died, e.g. at a reboot, would have the client wait on a dead
    master)."""
    state, running = read_state(), running_parts()
    if state is None:
        raise ClusterUsageError(
            f"no cluster runs for {lakehouse_dir()}. Start one: make cluster-start "
            "(python -m python_helpers.operations.cluster start)"
        )
    # A worker down leaves the others to run the executors; anything else down stops clients.
    down = [part for part in ("postgres", "metastore", "master") if part not in running]
    if down or not any(part.startswith("worker-") for part in running):
        raise ClusterError(
            f"the cluster of {lakehouse_dir()} is not all up (down: "
            f"{', '.join(down) or 'every worker'}). make "
            "cluster-status says what runs; make cluster-restart PART=... or make cluster-stop "
            "cluster-start"
        )
    return state


def stop(say: bool = True) -> list[str]:
    """Stop every part started for this lakehouse, workers first; return what was done.
    A Thrift server running as an application of the cluster (``thrift start --cluster``)
    stops first: without the cluster it would still listen, and fail every query."""
    report = []
    for files, _pid in running_servers():
        if on_shared_metastore(files):
            try:
                report.append(stop_thrift(files.port))
            except ThriftStopError as exc:
                report.append(f"Spark Thrift Server on port {files.port}: NOT STOPPED: {exc}")
    try:
        state = read_state()
    except ClusterError as exc:  # unreadable: stop what can be found without it
        state = None
        report.append(
            f"NOT STOPPED (unknown): {exc}. Without it the master, workers and metastore "
            "service cannot be found: "
            "stop any still running by hand (ps -ef | grep -e deploy.master -e deploy.worker "
            "-e HiveMetaStore), then remove the file"
        )
    survivors: dict[str, int] = {}
    if state is not None:
        for name, pid in reversed(list(state.pids.items())):
            if _part_alive(name, pid):
                try:
                    report.append(f"{name} (pid {pid}): {terminate(pid, STOP_TIMEOUT)}")
                except ThriftStopError as exc:
                    report.append(f"{name} (pid {pid}): NOT STOPPED: {exc}")
                    survivors[name] = pid
            else:
                report.append(f"{name}: not running")
    try:
        report.append(_postgres_stop())
    except ClusterError as exc:  # said with the rest, which a traceback lost
        report.append(f"PostgreSQL: NOT STOPPED: {exc}")
    try:
        if state is not None and survivors:
            # Kept for the next stop: without it the parts still running would be lost.
            kept = ClusterState(state.ports, survivors, state.worker_memory, state.worker_cores)
            _write_state(kept)
        elif state is not None:
            state_file().unlink(missing_ok=True)
    except OSError as exc:
        report.append(f"NOT STOPPED (unknown): cannot update {state_file()} ({exc.strerror})")
    if state is None and report == ["PostgreSQL: not running"]:
        report = [f"no cluster runs for {lakehouse_dir()}"]
    if say:
        print("\n".join(report))
    return report


def describe(state: ClusterState) -> str:
    lines = [f"cluster of {lakehouse_dir()} (logs in {cluster_dir()}):"]
    lines.append(
        f"  master      {state.master_url}  (web UI http://{HOST}:{state.ports.master_ui})"
    )
    lines.append(
        f"  metastore   {state.metastore_uri}  (over PostgreSQL {HOST}:{state.ports.postgres})"
    )
    for name, pid in state.pids.items():
        alive = _part_alive(name, pid)
        lines.append(f"  {name:<11} pid {pid}: {'running' if alive else 'NOT RUNNING'}")
    lines.append(f"  postgres    {'running' if _postgres_running() else 'NOT RUNNING'}")
    # A Thrift server started on the cluster (thrift start --cluster) is an application of it,
    # which make cluster-stop stops first.
    for files, pid in running_servers():
        if on_shared_metastore(files):
            lines.append(
                f"  thrift      pid {pid}: Spark Thrift Server on port {files.port} "
                f"(log {files.log})"
            )
    settings = " ".join(f"{name}={value}" for name, value in target_env(state).items())
    lines.append(f"  dbt: --target cluster with {settings}")
    return "\n".join(lines)


def status() -> tuple[ClusterState | None, list[str]]:
    return read_state(), running_parts()


# --- command line ---------------------------------------------------------------------------


def _at_least_one(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _offset(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


def _env_offset() -> int:
    """``$SCD2_CLUSTER_PORT_OFFSET`` (0 when unset), read when start needs it, so that a bad
    value fails start by name instead of every command (stop, status, --help)."""
    text = os.environ.get("SCD2_CLUSTER_PORT_OFFSET", "").strip() or "0"
    try:
        return int(text)
    except ValueError:
        raise ClusterUsageError(
            f"SCD2_CLUSTER_PORT_OFFSET must be a whole number, got {text!r}"
        ) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m python_helpers.operations.cluster",
        description=__doc__.split("\n\n")[0]
        + " Everything runs from this machine's packages (PostgreSQL, a JDK) and pyspark's "
        f"own jars; logs and pids are in $LAKEHOUSE_DIR/cluster. Needs: {INSTALL_HINT}. "
        "Each command's options: COMMAND --help.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    begin = commands.add_parser(
        "start",
        help="start the cluster and wait until it is ready",
        description="Start PostgreSQL (the metastore's database), the Hive metastore service, "
        "a Spark standalone master and its workers on this machine, and wait until each is "
        "ready. Exit status: 0 ready, 1 failed to start (what started is stopped again) or "
        "already running, 2 bad usage or a missing package.",
    )
    begin.add_argument(
        "--workers",
        type=_at_least_one,
        default=DEFAULT_WORKERS,
        help="Spark workers; an application's executors are JVMs each worker starts for it "
        "(default %(default)s)",
    )
    begin.add_argument(
        "--worker-cores",
        type=_at_least_one,
        default=DEFAULT_WORKER_CORES,
        help="task slots each worker offers (default %(default)s): an application on the "
        "cluster holds spark.cores.max of them (1 by default) while it runs; memory limits "
        "too, at 2g per executor (--worker-memory)",
    )
    begin.add_argument(
        "--worker-memory",
        default=DEFAULT_WORKER_MEMORY,
        help="memory each worker offers its executors (default %(default)s)",
    )
    begin.add_argument(
        "--port-offset",
        type=_offset,
        default=None,
        help="shift every port by this much (master 7077, its UI 8080, workers 7078+/8081+, "
        "metastore 9083, PostgreSQL 55432); default $SCD2_CLUSTER_PORT_OFFSET or 0",
    )
    begin.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIMEOUT,
        help="seconds to wait for everything to be ready (default %(default)s)",
    )
    again = commands.add_parser(
        "restart",
        help="stop one part (when it runs) and start it again on its ports, leaving the rest "
        "running: after a part died, or to restart the metastore service",
    )
    again.add_argument(
        "part",
        help="postgres, metastore, master or worker-N (N from 1; make cluster-status lists them)",
    )
    again.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIMEOUT,
        help="seconds to wait for the part to be ready (default %(default)s; PostgreSQL waits "
        "up to 60 s itself)",
    )
    commands.add_parser(
        "stop",
        help="stop every part of the cluster (says so when none runs; exit 1 when a part "
        "would not stop, which cluster.json keeps for the next stop)",
    )
    commands.add_parser("status", help="what runs, with its URLs (exit 3 when nothing runs)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    what = f"start, stop or restart of the cluster of {lakehouse_dir()}"
    try:
        if args.command == "start":
            args.port_offset = _env_offset() if args.port_offset is None else args.port_offset
            # Bad options refused before the lock file (or anything) is written.
            start_ports(args.workers, args.worker_cores, args.port_offset, args.timeout)
        # A stop where no cluster folder is has nothing to stop, and writes nothing.
        if args.command in ("start", "restart") or (
            args.command == "stop" and cluster_dir().exists()
        ):
            with exclusive(cluster_dir() / "cluster.lock", what, ClusterAlreadyRunningError):
                return _command(args)
        return _command(args)
    except ClusterUsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ClusterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def _command(args: argparse.Namespace) -> int:
    if args.command == "start":
        start(
            args.workers,
            args.port_offset,
            args.worker_memory,
            args.timeout,
            worker_cores=args.worker_cores,
        )
        return 0
    if args.command == "restart":
        restart(args.part, args.timeout)
        return 0
    if args.command == "stop":
        return 1 if any("NOT STOPPED" in line for line in stop()) else 0
    state, running = status()
    if state is None and not running:
        print(f"no cluster runs for {lakehouse_dir()}")
        return EXIT_NOT_RUNNING
    if state is not None:
        print(describe(state))
    else:
        print(f"cluster of {lakehouse_dir()}: {', '.join(running)} running, no state file")
    return 0 if running else EXIT_NOT_RUNNING


if __name__ == "__main__":
    sys.exit(main())
