"""Start, stop and inspect a Spark Thrift Server over the local lakehouse.

The server is pyspark's own ``HiveThriftServer2``, launched through ``<pyspark>/bin/spark-submit``
(the pip wheel ships no ``sbin/start-thriftserver.sh``) with every setting of
:func:`python_helpers.runtime.lakehouse.spark_conf`: the same warehouse, Derby metastore, Iceberg
catalog and jars as dbt's ``local`` target. dbt's ``thrift`` target (``profiles.yml``), beeline,
PyHive or any Hive2 JDBC/ODBC client then talk to it.

Its log and pid live in ``$LAKEHOUSE_DIR/thrift/thrift-<port>.log`` and ``.pid``.

The embedded Derby metastore admits one JVM at a time: while the server runs, a session-mode
Spark (dbt's ``local`` target, the tests, the demo) on the same ``LAKEHOUSE_DIR`` cannot open
the metastore; use ``--target thrift`` or stop the server.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import fcntl
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from python_helpers.runtime.lakehouse import (
    LakehouseConfigError,
    lakehouse_dir,
    metastore_dir,
    prepare_dirs,
    spark_conf,
)

SERVER_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 10000
DEFAULT_START_TIMEOUT = 120.0
DEFAULT_STOP_TIMEOUT = 30.0
KILL_WAIT = 10.0
# The longest --timeout taken: beyond a day, a mistake (and past ~9.2e9 s, Python's waits fail).
MAX_SECONDS = 86_400.0
POLL_SECONDS = 1.0
LOG_TAIL_LINES = 40
EXIT_NOT_RUNNING = 3  # `status` when nothing runs (LSB convention)


class ThriftError(RuntimeError):
    """Base class: the Thrift server could not be started, stopped or inspected."""


class ThriftUsageError(ThriftError):
    """Bad arguments or environment variables (exit status 2)."""


class ThriftAlreadyRunningError(ThriftError):
    """A server already runs for this port and lakehouse, or the port is taken."""


class ThriftStartError(ThriftError):
    """The server process died, or never became ready, during ``start``."""


class ThriftStopError(ThriftError):
    """The server process survived SIGTERM and SIGKILL, or refused them (another user's)."""


@dataclass(frozen=True)
class ServerFiles:
    """Where a server on ``port`` keeps its log, pid and rendered Spark properties."""

    port: int

    @property
    def folder(self) -> Path:
        return lakehouse_dir() / "thrift"

    @property
    def log(self) -> Path:
        return self.folder / f"thrift-{self.port}.log"

    @property
    def pid(self) -> Path:
        return self.folder / f"thrift-{self.port}.pid"

    @property
    def properties(self) -> Path:
        return self.folder / f"thrift-{self.port}.conf"


@dataclass(frozen=True)
class ServerStatus:
    host: str
    port: int
    pid: int | None
    listening: bool
    files: ServerFiles

    @property
    def running(self) -> bool:
        return self.pid is not None


# --- processes and ports ------------------------------------------------------------------


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def _reap(pid: int) -> None:
    """Collect ``pid`` if it is our own exited child (else it lingers as a zombie)."""
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)


def cmdline_args(pid: int) -> list[bytes] | None:
    """``pid``'s arguments as bytes (another process's need not be UTF-8), or None where /proc
    does not tell."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None


def _cmdline(pid: int) -> str | None:
    """``pid``'s command line as text, or None where /proc does not tell."""
    args = cmdline_args(pid)
    return None if args is None else b" ".join(args).decode(errors="replace")


def pid_alive(pid: int) -> bool:
    """True when ``pid`` is a live (non-zombie) process."""
    _reap(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc (macOS): trust kill(0)
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def pid_runs(pid: int, java_class: str | None) -> bool:
    """``pid`` is alive and (where /proc tells) runs ``java_class`` (any process when None),
    not a pid that another process took since the one recorded died."""
    if not pid_alive(pid):
        return False
    cmdline = _cmdline(pid)
    return cmdline is None or java_class is None or java_class in cmdline


def is_thrift_server(pid: int) -> bool:
    """``pid`` runs HiveThriftServer2, not a recycled pid."""
    return pid_runs(pid, SERVER_CLASS)


def _connect_host(host: str) -> str:
    return "127.0.0.1" if host in {"", "0.0.0.0"} else host


def port_in_use(host: str, port: int) -> bool:
    """Something listens on ``host:port`` of this machine.

    Tested by binding the port rather than connecting to it: a bare TCP connect makes the
    Thrift server log a ``TTransportException`` error for every probe.
    """
    try:
        family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        raise ThriftUsageError(f"unknown host {host!r}: {exc}") from None
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return True
            raise ThriftUsageError(f"cannot listen on {host}:{port}: {exc}") from None
    return False


def on_shared_metastore(files: ServerFiles) -> bool:
    """Whether the server of ``files`` uses a metastore service (``start --cluster``) rather
    than the lakehouse's embedded Derby, which it would hold against every other JVM."""
    try:
        return "spark.hadoop.hive.metastore.uris " in files.properties.read_text()
    except FileNotFoundError:
        return False


def running_servers() -> list[tuple[ServerFiles, int]]:
    """Every server started for this lakehouse that still runs, on any port: (files, pid)."""
    folder = ServerFiles(DEFAULT_PORT).folder
    servers = []
    for pid_file in sorted(folder.glob("thrift-*.pid")) if folder.exists() else []:
        try:
            files = ServerFiles(int(pid_file.stem.split("-", 1)[1]))
        except ValueError:
            continue  # not a file this module writes
        pid = read_pid(files)
        if pid is not None:
            servers.append((files, pid))
    return servers


def derby_holder() -> tuple[ServerFiles, int] | None:
    """A server of this lakehouse that holds its embedded Derby metastore, which admits one
    JVM: one started without ``--cluster``. None when no such server runs."""
    return next(
        ((files, pid) for files, pid in running_servers() if not on_shared_metastore(files)),
        None,
    )


def read_pid(files: ServerFiles) -> int | None:
    """The pid of the server started for ``files.port``; removes a stale pid file."""
    try:
        pid = int(files.pid.read_text().strip())
    except FileNotFoundError:
        return None
    except ValueError:
        files.pid.unlink(missing_ok=True)
        return None
    if is_thrift_server(pid):
        return pid
    files.pid.unlink(missing_ok=True)
    return None


THRIFT_PORT_ADVICE = "pick another one with --port / SPARK_THRIFT_PORT"


def _known_causes(port_advice: str) -> tuple[tuple[str, str], ...]:
    return (
        (
            "Another instance of Derby may have already booted",
            f"the Derby metastore {metastore_dir()} is open in another JVM (session-mode "
            "dbt, make test or make demo, a notebook, or another Thrift server on this "
            "LAKEHOUSE_DIR). Stop that process, or use another LAKEHOUSE_DIR.",
        ),
        (
            "Address already in use",
            f"the port is taken: {port_advice}.",
        ),
        (
            "NoClassDefFoundError: org/apache/iceberg",
            "Iceberg classes missing: check the jars (make setup; LAKEHOUSE_JARS).",
        ),
    )


def log_tail(path: Path, lines: int = LOG_TAIL_LINES, port_advice: str = THRIFT_PORT_ADVICE) -> str:
    """A known cause found in the log (if any), then its last ``lines`` lines;
    ``port_advice``: what to do when the log says a port is taken."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return f"(no log at {path})"
    causes = _known_causes(port_advice)
    hints = [f"likely cause: {hint}\n" for needle, hint in causes if needle in text]
    tail = "\n".join(text.splitlines()[-lines:])
    return "".join(hints) + f"last lines of {path}:\n{tail}"


def query_ok(host: str, port: int, user: str) -> tuple[bool, str]:
    """Run ``select 1`` and ``show databases`` (a metastore round trip) through PyHive."""
    from pyhive import hive

    try:
        conn = hive.connect(host=_connect_host(host), port=port, username=user)
        try:
            cursor = conn.cursor()
            cursor.execute("select 1")
            if cursor.fetchall() != [(1,)]:
                return False, "select 1 returned an unexpected result"
            cursor.execute("show databases")
            cursor.fetchall()
        finally:
            conn.close()
    except Exception as exc:  # PyHive/thrift raise many unrelated types
        return False, f"{type(exc).__name__}: {exc}"
    return True, ""


def _query_within(host: str, port: int, user: str, seconds: float) -> tuple[bool, str]:
    """:func:`query_ok`, given up after ``seconds``: PyHive's socket has no timeout, so a
    server that accepts the connection and never answers held start past its --timeout. The
    thread left waiting is a daemon and ends with the connection or the process."""
    outcome: list[tuple[bool, str]] = []
    worker = threading.Thread(
        target=lambda: outcome.append(query_ok(host, port, user)), daemon=True
    )
    worker.start()
    worker.join(max(seconds, POLL_SECONDS))
    return outcome[0] if outcome else (False, f"no answer to a query within {seconds:.0f} s")


@contextlib.contextmanager
def exclusive(lock: Path, what: str, error: type[Exception]) -> Iterator[None]:
    """Hold ``lock`` (an flock, released when the process ends, however it ends) for the
    block; raise ``error`` when another process holds it, or when it cannot be taken (a
    read-only lakehouse). Two starts at once both passed the checks (no pid file, port
    free), and the one that lost removed the winner's pid file, or, for the cluster, stopped
    the other start's parts in its cleanup."""

    def cannot(reason: str) -> Exception:
        return error(
            f"cannot take the lock {lock} for {what} ({reason}): make the lakehouse writable "
            "by this user, or run as the user who started it"
        )

    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise cannot(exc.strerror) from None
    try:
        # Written to where it can be: NFS emulates flock with POSIX locks, whose exclusive
        # lock needs a file open for writing; read-only where this user may only read it.
        handle = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        if exc.errno not in (errno.EACCES, errno.EROFS):
            raise cannot(exc.strerror) from None
        try:
            handle = os.open(lock, os.O_RDONLY)
        except OSError:
            raise cannot(exc.strerror) from None  # why it could not be written, not ENOENT
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise error(
                f"another {what} is under way (it holds {lock}); wait for it to end, then try again"
            ) from None
        except OSError as exc:  # ENOLCK, EBADF: a filesystem that cannot lock it
            raise cannot(exc.strerror) from None
        yield
    finally:
        os.close(handle)


# --- the three commands -------------------------------------------------------------------


def build_command(
    host: str, port: int, conf: dict[str, str], properties: Path, master: str = "local[*]"
) -> list[str]:
    """The spark-submit command line for HiveThriftServer2 with the lakehouse's Spark conf.

    ``--properties-file`` replaces the venv's ``conf/spark-defaults.conf`` (which may have
    been rendered for another ``LAKEHOUSE_DIR``); every setting is also passed as ``--conf``.
    The jars reach the driver through ``spark.driver.extraClassPath``, which spark-submit's
    launcher puts on the JVM's ``-cp`` (the same as ``--driver-class-path``); with ``--jars``
    Thrift sessions fail with ``NoClassDefFoundError: org/apache/iceberg/spark/PathIdentifier``.
    """
    command = [
        str(spark_home() / "bin" / "spark-submit"),
        "--master",
        master,
        "--name",
        f"scd2-lakehouse-thrift-{port}",
        "--class",
        SERVER_CLASS,
        "--properties-file",
        str(properties),
    ]
    for key, value in sorted(conf.items()):
        command += ["--conf", f"{key}={value}"]
    command += [
        "--hiveconf",
        f"hive.server2.thrift.port={port}",
        "--hiveconf",
        f"hive.server2.thrift.bind.host={host}",
        "spark-internal",
    ]
    return command


def _stop_command(port: int) -> str:
    return (
        f"make thrift-stop SPARK_THRIFT_PORT={port} "
        f"(or: python -m python_helpers.operations.thrift stop --port {port})"
    )


def start(
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    timeout: float = DEFAULT_START_TIMEOUT,
    user: str = "dbt",
    query_check: bool = True,
    say: bool = True,
    on_cluster: bool = False,
) -> ServerStatus:
    """Start the server in the background and wait until it answers; raise on failure.

    ``on_cluster``: as an application of the lakehouse's standalone cluster, on its shared
    metastore (make cluster-start; docs/cluster.md), instead of ``local[*]`` on Derby.
    """
    files = ServerFiles(port)
    pid = read_pid(files)
    if pid is not None:
        raise ThriftAlreadyRunningError(
            f"a Spark Thrift Server already runs on port {port} (pid {pid}, "
            f"lakehouse {lakehouse_dir()}, log {files.log}).\n"
            f"Stop it first: {_stop_command(port)}"
        )
    if port_in_use(host, port):
        raise ThriftAlreadyRunningError(
            f"port {port} on {host} is already in use by a process this lakehouse did not "
            f"start (no live pid file {files.pid}). Another Thrift server, maybe on another "
            f"LAKEHOUSE_DIR? Stop that one, or pick another port: --port / SPARK_THRIFT_PORT."
        )
    holder = None if on_cluster else derby_holder()
    if holder is not None:
        raise ThriftAlreadyRunningError(
            f"a Spark Thrift Server already runs for this lakehouse on port {holder[0].port} "
            f"(pid {holder[1]}) and holds its Derby metastore ({metastore_dir()}), which admits "
            f"one JVM: a second server could not open it. Use that one (SPARK_THRIFT_PORT="
            f"{holder[0].port}), or stop it first: {_stop_command(holder[0].port)}. On the "
            "cluster's shared metastore (make cluster-start; --cluster) several servers can run."
        )
    prepare_dirs()
    files.folder.mkdir(parents=True, exist_ok=True)
    conf, master = spark_conf(), "local[*]"
    if on_cluster:
        from python_helpers.operations.cluster import ClusterError, client_conf, running_state

        try:
            cluster = running_state()
            conf.update(client_conf(cluster))
        except ClusterError as exc:
            raise ThriftUsageError(f"--cluster: {exc}") from None
        master = cluster.master_url
    files.properties.write_text(
        "# Rendered by python -m python_helpers.operations.thrift start; "
        "edit python_helpers/runtime/lakehouse.py.\n"
        + "".join(f"{key} {value}\n" for key, value in sorted(conf.items()))
    )
    command = build_command(host, port, conf, files.properties, master)
    env = {**os.environ, "SPARK_HOME": str(spark_home())}
    if files.log.exists():  # the previous server's log says why it went down: kept, once
        files.log.replace(files.log.with_name(f"{files.log.name}.1"))
    with files.log.open("w") as log:
        log.write(f"# {time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(command)}\n")
        log.flush()
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=files.folder,
            env=env,
            start_new_session=True,  # survives this CLI; stop signals its process group
        )
    files.pid.write_text(f"{process.pid}\n")
    if say:
        print(
            f"starting Spark Thrift Server on {host}:{port} (pid {process.pid}); "
            f"log {files.log}; waiting up to {timeout:.0f} s ...",
            flush=True,
        )
    try:
        _wait_ready(process, host, port, timeout, user, query_check, files)
    except (ThriftStartError, KeyboardInterrupt):
        terminate(process.pid, DEFAULT_STOP_TIMEOUT)
        files.pid.unlink(missing_ok=True)
        raise
    return ServerStatus(host, port, process.pid, True, files)


def _wait_ready(
    process: subprocess.Popen[bytes],
    host: str,
    port: int,
    timeout: float,
    user: str,
    query_check: bool,
    files: ServerFiles,
) -> None:
    deadline = time.monotonic() + timeout
    last_error = "port not open yet"
    while True:
        code = process.poll()
        if code is not None:
            raise ThriftStartError(
                f"the Spark Thrift Server exited with status {code} while starting.\n"
                f"{log_tail(files.log)}"
            )
        if port_in_use(host, port):
            if not query_check:
                return
            ok, last_error = _query_within(host, port, user, deadline - time.monotonic())
            if ok:
                return
        if time.monotonic() >= deadline:
            raise ThriftStartError(
                f"the Spark Thrift Server was not ready after {timeout:.0f} s "
                f"({last_error}); it has been stopped.\n{log_tail(files.log)}"
            )
        time.sleep(POLL_SECONDS)


def _signal(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        try:
            if os.getpgid(pid) == pid:  # our own session: signal the whole group
                os.killpg(pid, sig)
                return
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        except PermissionError:
            # Started by another user (sudo): said, so that a stop of several goes on.
            raise ThriftStopError(
                f"pid {pid} belongs to another user ({sig.name} refused): stop it as that user"
            ) from None


def _wait_gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while pid_alive(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)
    return True


def terminate(pid: int, timeout: float) -> str:
    """SIGTERM, wait up to ``timeout``, then SIGKILL; return how it ended."""
    _signal(pid, signal.SIGTERM)
    if _wait_gone(pid, timeout):
        return "stopped"
    _signal(pid, signal.SIGKILL)
    if _wait_gone(pid, KILL_WAIT):
        return f"killed (still running {timeout:.0f} s after SIGTERM)"
    raise ThriftStopError(f"pid {pid} survived SIGTERM and SIGKILL")


def stop(port: int = DEFAULT_PORT, timeout: float = DEFAULT_STOP_TIMEOUT) -> str:
    """Stop the server started for ``port``; return a one-line report (also when none runs)."""
    files = ServerFiles(port)
    pid = read_pid(files)
    if pid is None:
        note, taken = "", False
        with contextlib.suppress(ThriftUsageError):
            taken = port_in_use(DEFAULT_HOST, port)
        if taken:
            note = (
                f" (but something else listens on port {port}: not started from "
                f"{lakehouse_dir()}, left alone)"
            )
        return f"no Spark Thrift Server runs on port {port} for {lakehouse_dir()}{note}"
    how = terminate(pid, timeout)
    files.pid.unlink(missing_ok=True)
    return f"Spark Thrift Server on port {port} (pid {pid}) {how}; log {files.log}"


def status(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> ServerStatus:
    files = ServerFiles(port)
    pid = read_pid(files)
    return ServerStatus(host, port, pid, port_in_use(host, port), files)


# --- command line -------------------------------------------------------------------------


def env_port() -> int:
    """SPARK_THRIFT_PORT (default 10000), checked; ThriftUsageError names it when it is no port."""
    raw = os.environ.get("SPARK_THRIFT_PORT") or str(DEFAULT_PORT)
    try:
        return _port(raw)
    except argparse.ArgumentTypeError as exc:
        raise ThriftUsageError(f"SPARK_THRIFT_PORT: {exc}") from None


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port out of range 1-65535: {value}")
    return value


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= MAX_SECONDS:  # nan too
        raise argparse.ArgumentTypeError(
            f"must be a positive number of seconds, at most {MAX_SECONDS:.0f} (a day): {value}"
        )
    return value


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--port",
        type=_port,
        default=None,
        help=f"TCP port of the server (default: $SPARK_THRIFT_PORT, else {DEFAULT_PORT}); "
        "also names its log and pid files",
    )
    common.add_argument(
        "--lakehouse-dir",
        type=Path,
        default=None,
        help="lakehouse folder (warehouse, metastore, thrift/ logs and pids) "
        "(default: $LAKEHOUSE_DIR, else <project>/.lakehouse)",
    )
    parser = argparse.ArgumentParser(
        prog="python -m python_helpers.operations.thrift",
        description="Start, stop or inspect a Spark Thrift Server (HiveServer2 protocol) over "
        "the local lakehouse: same warehouse, Derby metastore, Iceberg catalog and jars as "
        "dbt's local target. dbt's `thrift` target, beeline, PyHive and Hive2 JDBC/ODBC "
        "clients connect to it. Log and pid: $LAKEHOUSE_DIR/thrift/thrift-PORT.log/.pid. "
        "Derby admits one JVM at a time: while the server runs, session-mode Spark on the same "
        "lakehouse cannot open the metastore.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    start_p = commands.add_parser(
        "start",
        parents=[common],
        help="start the server in the background and wait until it answers queries",
        description="Start the server in the background and wait until it accepts "
        "connections and answers `select 1` and `show databases` through PyHive. Refuses to "
        "start when a server from this lakehouse already runs on the port, or the port is "
        "taken. Exit status: 0 ready, 1 failed to start or already running, 2 bad usage.",
    )
    start_p.add_argument(
        "--host",
        default=None,
        help=f"address to bind (default: $SPARK_THRIFT_HOST, else {DEFAULT_HOST}: this machine "
        "only; 0.0.0.0 listens on every interface, without authentication)",
    )
    start_p.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_START_TIMEOUT,
        help="seconds to wait for the server to become ready before stopping it and failing "
        f"(default: {DEFAULT_START_TIMEOUT:.0f})",
    )
    start_p.add_argument(
        "--user",
        default=None,
        help="user name for the readiness query (default: $SPARK_THRIFT_USER, else dbt)",
    )
    start_p.add_argument(
        "--cluster",
        action="store_true",
        help="run as an application of the lakehouse's standalone cluster, on its shared "
        "metastore (make cluster-start first), instead of local[*] on the Derby metastore",
    )
    start_p.add_argument(
        "--no-query-check",
        action="store_true",
        help="consider the server ready as soon as the port accepts connections, without "
        "running a query through PyHive",
    )

    stop_p = commands.add_parser(
        "stop",
        parents=[common],
        help="stop the server (SIGTERM, then SIGKILL after --timeout)",
        description="Stop the server started from this lakehouse on the port: SIGTERM, wait, "
        "SIGKILL after --timeout; removes the pid file. When nothing runs, says so and exits 0.",
    )
    stop_p.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_STOP_TIMEOUT,
        help=f"seconds to wait after SIGTERM before SIGKILL (default: {DEFAULT_STOP_TIMEOUT:.0f})",
    )
    stop_p.add_argument(
        "--all",
        action="store_true",
        help="stop every server started from this lakehouse, on any port (--port is then "
        "ignored); make clean uses it before removing the lakehouse",
    )

    status_p = commands.add_parser(
        "status",
        parents=[common],
        help="tell whether a server runs (exit 0) or not (exit 3)",
        description="Print pid, port, log and whether the port is listening. "
        f"Exit status: 0 running, {EXIT_NOT_RUNNING} not running, 2 bad usage.",
    )
    status_p.add_argument(
        "--host",
        default=None,
        help=f"address to probe (default: $SPARK_THRIFT_HOST, else {DEFAULT_HOST})",
    )
    # make passes one THRIFT_ARGS to thrift-start, thrift-stop and thrift-status: the start's
    # options the other two lack are taken and ignored, so that a THRIFT_ARGS="--cluster"
    # exported for the session does not make `make thrift-stop` an argument error. Those
    # they share keep their own meaning: --timeout for stop (the wait before SIGKILL), --host
    # for status (the address probed).
    ignored = "a start option: accepted and ignored here, so that one THRIFT_ARGS serves "
    ignored += "make thrift-start, thrift-stop and thrift-status"
    for sub, names in ((stop_p, ["--host"]), (status_p, ["--timeout"])):
        for name in names:
            sub.add_argument(name, dest=f"ignored_{name[2:]}", metavar="VALUE", help=ignored)
        sub.add_argument("--user", dest="ignored_user", metavar="VALUE", help=ignored)
        for flag in ("--cluster", "--no-query-check"):
            sub.add_argument(flag, dest=f"ignored_{flag[2:]}", action="store_true", help=ignored)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.lakehouse_dir is not None:
            os.environ["LAKEHOUSE_DIR"] = str(args.lakehouse_dir.resolve())
        host = getattr(args, "host", None) or os.environ.get("SPARK_THRIFT_HOST") or DEFAULT_HOST
        if args.command == "stop" and args.all:
            # Every server is tried, failures said at the end (exit 1).
            failed = []
            servers = running_servers()
            for files, _pid in servers:
                try:
                    print(stop(files.port, args.timeout))
                except ThriftStopError as exc:
                    failed.append(f"port {files.port}: {exc}")
            if not servers:
                print(f"no Spark Thrift Server runs for {lakehouse_dir()}")
            if failed:
                raise ThriftStopError("; ".join(failed))
            return 0
        port = args.port if args.port is not None else env_port()
        if args.command == "start":
            user = args.user or os.environ.get("SPARK_THRIFT_USER") or "dbt"
            what = f"start of a Spark Thrift Server on {lakehouse_dir()}"
            lock = ServerFiles(port).folder / "start.lock"
            with exclusive(lock, what, ThriftAlreadyRunningError):
                server = start(
                    host,
                    port,
                    args.timeout,
                    user,
                    not args.no_query_check,
                    on_cluster=args.cluster,
                )
            print(
                f"Spark Thrift Server ready on {host}:{port} (pid {server.pid})\n"
                f"  lakehouse: {lakehouse_dir()}\n"
                f"  log:       {server.files.log}\n"
                f"  connect:   dbt --target thrift (SPARK_THRIFT_PORT={port}), or "
                f"{spark_home() / 'bin' / 'beeline'} -u jdbc:hive2://{_connect_host(host)}:{port}\n"
                f"  stop:      {_stop_command(port)}\n"
                + (
                    "  on the cluster's shared metastore: other JVMs may use it meanwhile."
                    if args.cluster
                    else "  note: Derby admits one JVM at a time: while this server runs, "
                    "session-mode Spark on this lakehouse (dbt --target local, make demo) "
                    "cannot use it (make test uses lakehouses of its own)."
                )
            )
            return 0
        if args.command == "stop":
            print(stop(port, args.timeout))
            return 0
        info = status(host, port)
        if info.running:
            state = "listening" if info.listening else "not listening (yet?)"
            print(
                f"running: pid {info.pid} on {host}:{port}, {state}; log {info.files.log}",
            )
            return 0
        print(f"not running on port {port} for {lakehouse_dir()}")
        return EXIT_NOT_RUNNING
    except (ThriftUsageError, LakehouseConfigError) as exc:
        parser.print_usage(sys.stderr)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ThriftError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
