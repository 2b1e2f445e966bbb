"""Run dbt commands in this Python process through dbt's programmatic runner.

All steps share one JVM: dbt-spark's session method picks up the SparkSession that already
exists in the process (``SparkSession.builder.getOrCreate``), so only the first step pays for
starting Spark. Likewise only the first step's objects that live on (the modules dbt imports,
its compiled macro templates) are left out of Python's later full garbage collections
(:func:`_freeze_long_lived`).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from python_helpers.runtime.lakehouse import PROJECT_ROOT


class DbtStepError(RuntimeError):
    """A dbt command failed: the message names the command and the failing nodes."""


@dataclass(frozen=True)
class DbtStep:
    args: tuple[str, ...]
    seconds: float
    result: Any  # dbt's RunExecutionResult (or other per-command result)
    invocation_id: str


def failures(result: Any) -> list[str]:
    lines = []
    for node_result in getattr(result, "results", None) or []:
        status = str(getattr(node_result, "status", "")).lower()
        if status in {"error", "fail", "runtime error"}:
            node = getattr(node_result, "node", None)
            name = getattr(node, "unique_id", "?")
            lines.append(f"  {name}: {status}: {(node_result.message or '').strip()}")
    return lines


def run_dbt(
    args: Sequence[str],
    project_dir: Path = PROJECT_ROOT,
    profiles_dir: Path | None = None,
    check: bool = True,
) -> DbtStep:
    """Invoke ``dbt <args>`` in-process; raise :class:`DbtStepError` on failure when ``check``."""
    from dbt.cli.main import dbtRunner

    full = [
        *args,
        "--project-dir",
        str(project_dir),
        "--profiles-dir",
        str(profiles_dir or project_dir),
    ]
    started = time.perf_counter()
    res = dbtRunner().invoke(full)
    seconds = time.perf_counter() - started
    _freeze_long_lived()
    invocation_id = _invocation_id()
    step = DbtStep(tuple(args), seconds, res.result, invocation_id)
    # dbt's runner catches Ctrl-C (after cancelling its queries) and returns it as a failure:
    # raised again, so that a caller stops as it would on any other interrupt.
    if isinstance(res.exception, KeyboardInterrupt):
        raise KeyboardInterrupt from res.exception
    if check and not res.success:
        detail = "\n".join(failures(res.result)) or f"  {res.exception!r}"
        raise DbtStepError(f"dbt {' '.join(args)} failed:\n{detail}")
    return step


_frozen = False


def _freeze_long_lived() -> None:
    """After the process's first dbt invocation, move every object then alive to Python's
    permanent generation (``gc.freeze``), once.

    Each invocation builds a manifest whose objects outlive Python's young collections and so
    set off a full (generation 2) collection in about two invocations of three. A full
    collection walks every object alive: besides the manifest, the 175,000 or more that dbt's
    and pyspark's modules and dbt's caches hold for the process's life.
    Frozen once they exist (after the first invocation, which imports the adapter and
    compiles the macros it runs), they are no longer walked; what that gained is measured in
    docs/seeds.md ("Taken on 2026-12-02") and docs/running-dbt.md ("The test suite"). Frozen
    objects are still freed when their last reference goes (a frozen cycle that becomes
    garbage is not): over 25 invocations the process's size and its count of unfrozen objects
    stayed flat.
    """
    global _frozen
    if _frozen:
        return
    _frozen = True
    gc.collect()
    gc.freeze()


def _invocation_id() -> str:
    from dbt_common.invocation import get_invocation_id

    return get_invocation_id()
