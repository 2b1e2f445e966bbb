"""Fixtures for dbt Labs' reusable adapter tests (the `dbt-tests-adapter` package), run against
this project's macros on the embedded lakehouse.

This folder is run by tests/test_dbt_adapter_suite.py in a pytest process of its own, with
dbt's fixture plugin (`-p dbt.tests.fixtures.project`): dbt's fixtures change the working
directory and dbt's global flags, which the rest of the suite must not share. Its test files
are named `*_cases.py` so that the main run does not collect them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pyspark.sql import SparkSession

from python_helpers.runtime.lakehouse import PROJECT_ROOT
from python_helpers.runtime.session import lakehouse_session


@pytest.fixture(scope="session", autouse=True)
def spark() -> Iterator[SparkSession]:
    """The lakehouse session (LAKEHOUSE_DIR set by the caller): dbt-spark's session method
    picks it up with getOrCreate(). Without code generation, as the main run's workers (the
    suite checks dbt's snapshot behaviour on tiny tables, where compiling costs more)."""
    from tests.conftest import WORKER_SPARK_CONF

    session = lakehouse_session("dbt-adapter-suite", extra_conf=WORKER_SPARK_CONF)
    yield session
    session.stop()


@pytest.fixture(scope="class")
def dbt_profile_target() -> dict[str, Any]:
    return {"type": "spark", "method": "session", "host": "NA", "threads": 1}


@pytest.fixture(scope="class")
def macros() -> dict[str, str]:
    """Every macro of this project (file names are unique across its folders)."""
    return {path.name: path.read_text() for path in (PROJECT_ROOT / "macros").rglob("*.sql")}


def project_config() -> dict[str, Any]:
    """dbt_project.yml settings a project needs for these macros: Iceberg for seeds and
    snapshots, and the package's name, which its macros call each other by
    (`scd2_audit._scd2_...`), since the test project holds copies of them."""
    return {
        "name": "scd2_audit",
        "seeds": {"+file_format": "iceberg"},
        "snapshots": {"+file_format": "iceberg"},
    }
