"""Run a command on a throwaway lakehouse of its own (warehouse, Derby metastore, scratch space).

The embedded Derby metastore in ``$LAKEHOUSE_DIR/metastore_db`` admits one JVM at a time: while
the pipeline, a notebook or ``make demo`` holds it, any other session-mode Spark on it (such as
sqlfluff's dbt templater in ``make lint``) waits about 3.5 minutes and then fails with "Unable to
instantiate SessionHiveMetaStoreClient". A command that needs no table of the lakehouse (lint
only compiles the models and passes on an empty metastore) can run on a private one instead::

    python -m python_helpers.tooling.private_metastore [--keep] -- COMMAND [ARG ...]

This makes a temporary folder, sets it as ``LAKEHOUSE_DIR``, renders
:func:`python_helpers.runtime.lakehouse.spark_conf` under it into ``<folder>/conf/
spark-defaults.conf`` and points ``SPARK_CONF_DIR`` at ``<folder>/conf``, the folder pyspark's
spark-submit reads its defaults from, so the command's Spark finds its metastore, warehouse,
``spark.local.dir`` and Derby home all inside the folder. The jars stay the shared, provisioned
ones: :func:`~python_helpers.runtime.lakehouse.jars_dir` does not depend on ``LAKEHOUSE_DIR``.

Exit status: the command's (128 + N when signal N ended it, as in a shell; 127 when it cannot
be started), 2 for a usage or configuration error. The folder is removed afterwards unless
``--keep``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from python_helpers.runtime.lakehouse import (
    LakehouseConfigError,
    environment_variable,
    spark_defaults_path,
    write_spark_defaults,
)

FOLDER_PREFIX = "private-metastore-"
CONF_FOLDER = "conf"
DEFAULTS_NAME = "spark-defaults.conf"
EXIT_USAGE = 2
EXIT_CANNOT_START = 127  # the shell's "command not found"
# Signals sent to the wrapper alone (make on a timeout, a CI runner) that the command must get
# too; Ctrl-C in a terminal already reaches the whole foreground process group.
FORWARDED_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
REMOVE_ATTEMPTS = 10
REMOVE_PAUSE_SECONDS = 0.5


def source_conf_dir() -> Path:
    """The folder spark-submit would read its configuration from without this wrapper."""
    configured = os.environ.get("SPARK_CONF_DIR")
    return Path(configured) if configured else spark_defaults_path().parent


def prepare_private_lakehouse(root: Path) -> dict[str, str]:
    """Render the lakehouse configuration under ``root``; the environment to run a command in."""
    conf_dir = root / CONF_FOLDER
    conf_dir.mkdir(parents=True, exist_ok=True)
    source = source_conf_dir()
    if source.is_dir():
        # Everything but the defaults stays as it was (a log4j2.properties, a spark-env.sh):
        # SPARK_CONF_DIR replaces the whole folder, not just spark-defaults.conf.
        for entry in source.iterdir():
            if entry.is_file() and entry.name != DEFAULTS_NAME:
                shutil.copy2(entry, conf_dir / entry.name)
    # spark_conf() reads LAKEHOUSE_DIR from this process's environment; set only while rendering
    # so that a caller in the same process keeps its own lakehouse.
    with environment_variable("LAKEHOUSE_DIR", str(root)):
        write_spark_defaults(conf_dir / DEFAULTS_NAME)
    return {
        **os.environ,
        "LAKEHOUSE_DIR": str(root),
        "SPARK_CONF_DIR": str(conf_dir),
        # dbt's own outputs too: the project's target/ and logs/ may be in use by another run.
        "DBT_TARGET_PATH": str(root / "target"),
        "DBT_LOG_PATH": str(root / "logs"),
    }


def _wait(process: subprocess.Popen[bytes]) -> int:
    """The process's exit status, passing on the signals meant for it."""
    if threading.current_thread() is not threading.main_thread():
        return process.wait()  # signal handlers can only be set in the main thread

    def forward(signum: int, _frame: FrameType | None) -> None:
        process.send_signal(signum)

    previous = {sig: signal.signal(sig, forward) for sig in FORWARDED_SIGNALS}
    # The command gets the terminal's Ctrl-C itself; the wrapper outlives it to clean up.
    previous[signal.SIGINT] = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return process.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def remove_folder(root: Path) -> bool:
    """Remove ``root``; False (with a warning) if something keeps writing into it.

    The Spark JVM a command starts is pyspark's child, not the wrapper's: it notices its
    parent's exit and shuts down a moment after the command has returned, possibly still
    writing into the folder, so removal is retried for a few seconds.
    """
    for _ in range(REMOVE_ATTEMPTS):
        shutil.rmtree(root, ignore_errors=True)
        if not root.exists():
            return True
        time.sleep(REMOVE_PAUSE_SECONDS)
    print(f"warning: could not remove {root}", file=sys.stderr)
    return False


def run_private(command: Sequence[str], keep: bool = False) -> int:
    """Run ``command`` on a throwaway lakehouse; its exit status (128 + N for signal N)."""
    root = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX)).resolve()
    try:
        env = prepare_private_lakehouse(root)
        try:
            process = subprocess.Popen(list(command), env=env)
        except OSError as exc:
            print(f"error: cannot run {command[0]!r}: {exc}", file=sys.stderr)
            return EXIT_CANNOT_START
        status = _wait(process)
        return 128 - status if status < 0 else status
    finally:
        if keep:
            print(f"kept the private lakehouse in {root}", file=sys.stderr)
        else:
            remove_folder(root)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m python_helpers.tooling.private_metastore",
        usage="%(prog)s [-h] [--keep] -- COMMAND [ARG ...]",
        description="Run COMMAND on a throwaway lakehouse of its own: a temporary folder as "
        "LAKEHOUSE_DIR (warehouse, Derby metastore, Spark scratch space) with the lakehouse's "
        "Spark configuration rendered into <folder>/conf/spark-defaults.conf and SPARK_CONF_DIR "
        "pointing there. For commands that need no table of the real lakehouse (make lint) and "
        "must not wait for its Derby metastore, which admits one JVM at a time.",
        epilog="Exit status: COMMAND's (128+N when signal N ended it, 127 when it cannot be "
        "started), 2 for a usage or configuration error. Example: python -m "
        "python_helpers.tooling.private_metastore -- sqlfluff lint models",
    )
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the temporary folder afterwards (its path is printed on stderr) "
        "instead of removing it",
    )
    parser.add_argument(
        "command",
        nargs=argparse.REMAINDER,
        metavar="-- COMMAND ...",
        help="the command and its arguments, after '--' so that its own options are not "
        "taken for this wrapper's",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command: list[str] = args.command
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        parser.error("no command given: put the command to run after '--'")
    try:
        return run_private(command, keep=args.keep)
    except LakehouseConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
