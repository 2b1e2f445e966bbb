"""Driving a test's subprocesses (tests/reliability_driver.py and the like): waiting on them,
reading the ``RESULT {json}`` lines they print."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def wait_for(
    condition: Callable[[], bool],
    process: subprocess.Popen,
    what: str,
    output: Path,
    timeout: float,
) -> None:
    """Poll ``condition`` until it holds; fail the test, with the end of the process's
    ``output``, if the process exits first or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while not condition():
        if process.poll() is not None:
            pytest.fail(
                f"the driver exited ({process.returncode}) before {what}:\n"
                + output.read_text()[-5000:]
            )
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def stand_in(*words: str) -> subprocess.Popen[bytes]:
    """A live process (it sleeps two minutes) whose command line holds ``words``: it stands
    for a server or a cluster part, recognised by its class on the command line. Returned once
    /proc shows those words: between fork and exec the child still shows pytest's command
    line, and a check that ran then saw no part (a flaky failure on CI)."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", *words])
    cmdline = Path(f"/proc/{process.pid}/cmdline")
    deadline = time.monotonic() + 30
    while words and not all(w.encode() in cmdline.read_bytes().split(b"\0") for w in words):
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"the stand-in process did not show {words} on its command line")
        time.sleep(0.01)
    return process


def logged_since(log: Path, offset: int, statement: str) -> bool:
    """Whether dbt's ``log``, past its first ``offset`` bytes, holds ``statement`` (any case):
    how a test sees that the run it is about to kill has reached that statement."""
    with log.open("rb") as handle:
        handle.seek(offset)
        return statement.lower().encode() in handle.read().lower()


def results(output: str) -> list[dict[str, Any]]:
    """The JSON objects of the ``RESULT `` lines of a driver's output, in order."""
    return [json.loads(line[7:]) for line in output.splitlines() if line.startswith("RESULT ")]
