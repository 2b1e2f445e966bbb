"""dbt Labs' reusable snapshot tests (the `dbt-tests-adapter` package, matching dbt-core
1.11) against this project's macros: a guard that dbt's own snapshot behaviour is kept.

They run in a pytest process of their own (tests/dbt_adapter_suite, on a throw-away
lakehouse): dbt's test fixtures change the working directory and dbt's global flags.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from python_helpers.runtime.lakehouse import PROJECT_ROOT

SUITE = PROJECT_ROOT / "tests" / "dbt_adapter_suite"
TIMEOUT = 900  # seconds: a JVM of its own and about 15 dbt invocations, on 2 loaded cores


@pytest.mark.slow
def test_dbt_adapter_snapshot_tests_pass(tmp_path: Path) -> None:
    # The outer run's PYTEST_ADDOPTS (e.g. --basetemp, -n) are not this run's options.
    env = {
        **{k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"},
        "LAKEHOUSE_DIR": str(tmp_path / "lakehouse"),
    }
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(SUITE),
            "-p",
            "dbt.tests.fixtures.project",
            "-p",
            "no:cacheprovider",
            "-o",
            "python_files=*_cases.py",
            "-q",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    summary = result.stdout[-3000:] + result.stderr[-2000:]
    assert result.returncode == 0, summary
    assert "2 passed" in result.stdout, summary
