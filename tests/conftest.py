"""Shared fixtures: one Spark session for the whole run, and throw-away dbt projects.

The ``spark`` fixture starts the only JVM of the test run, on a lakehouse (warehouse and
Derby metastore) in a temporary folder. dbt, driven in-process through ``dbtRunner``, reuses
that session: dbt-spark's session method calls ``SparkSession.builder.getOrCreate()``.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from dbt_common.tests import enable_test_caching
from pyspark.sql import SparkSession

from python_helpers.runtime.lakehouse import SHORT_RUN_JIT_OPTIONS
from python_helpers.runtime.session import lakehouse_session
from python_helpers.tooling.scratch import ScratchProject

# Every JVM of the test run (the pytest workers' own, and the drivers, Thrift servers and a
# cluster's daemons and executors the tests start) compiles with C1 only, in a 256 MiB code
# cache; docs/running-dbt.md ("The test suite") has why and the measurements. Set at import,
# so that xdist's workers and every subprocess inherit it through the environment (an earlier
# version restored the options inherited from xdist's controller for the workers' JVMs, and
# so gave them the 48 MiB cache C1 gets by default, which they filled).
_inherited = os.environ.get("JAVA_TOOL_OPTIONS", "").split()
os.environ["JAVA_TOOL_OPTIONS"] = " ".join(
    [*(o for o in _inherited if o not in SHORT_RUN_JIT_OPTIONS), *SHORT_RUN_JIT_OPTIONS]
)

# dbt writes manifest.json (and run_results.json) twice per invocation, which took about a
# tenth of the test run's Python time and which no test reads but the two that ask for them
# with --write-json (docs/running-dbt.md, "The test suite"). Inherited like the JIT options.
os.environ.setdefault("DBT_WRITE_JSON", "false")

# Every scratch project is parsed from scratch (its schema is part of the profile, so no saved
# manifest can be reused), and a full parse spends nearly all its 1 to 2 s parsing the same
# ~600 macros with Jinja. dbt's own test fixtures (dbt.tests.fixtures.project) switch on
# dbt_common's parse caches, keyed by each macro's text, for exactly this: a changed macro is
# parsed again, an unchanged one is not; parsing then takes 0.1 to 0.5 s.
enable_test_caching()


# The workers' own sessions evaluate expressions interpreted instead of generating and compiling
# Java code for each query (docs/running-dbt.md, "The test suite"): on the suite's tiny tables
# the compiling cost more than it saved, 10 to 15% of a file's time. Spark runs both paths in its
# own tests; the JVMs the tests start (drivers, Thrift servers, a cluster's applications; not
# dbt's adapter suite), make demo and make bench keep code generation, so the suite still runs
# the product on it.
WORKER_SPARK_CONF = {
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
}


# The test files, heaviest first (seconds of a whole run, 2026-11-27): `make test` hands whole
# files to its two workers in this order (--dist loadfile --no-loadscope-reorder), so that the
# run ends on small files instead of one worker running a heavy one alone (xdist's own order,
# by number of tests, started the 330 s cluster file past the middle of the run and left the
# 69 s adapter suite for last). Files not listed run after these, in collection order.
HEAVIEST_FIRST = (
    "test_events.py",  # 683 s
    "test_cluster.py",  # 361 s
    "test_snapshot_schema_evolution.py",  # 300 s
    "test_snapshot_metadata.py",  # 225 s
    "test_reliability.py",  # 209 s
    "test_events_pipeline.py",  # 180 s
    "test_seed_load.py",  # 167 s
    "test_pipeline.py",  # 164 s
    "test_thrift.py",  # 144 s
    "test_snapshot_keys_back.py",  # 128 s
    "test_generate.py",  # 100 s
    "test_dbt_adapter_suite.py",  # 89 s
    "test_analytics.py",  # 81 s
    "test_snapshot_equivalence.py",  # 63 s
    "test_snapshot_sql.py",  # 60 s
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Order the files as HEAVIEST_FIRST says; the tests of a file keep their order."""
    rank = {name: position for position, name in enumerate(HEAVIEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkSession]:
    os.environ["LAKEHOUSE_DIR"] = str(tmp_path_factory.mktemp("lakehouse"))
    session = lakehouse_session("scd2-lakehouse-tests", extra_conf=WORKER_SPARK_CONF)
    yield session
    session.stop()


@pytest.fixture
def dbt_project(
    spark: SparkSession, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[ScratchProject]:
    """A scratch copy of the project on a schema named after the test."""
    # Named after the test, with a hash of its full id: parametrized cases never share one.
    digest = hashlib.md5(request.node.nodeid.encode()).hexdigest()[:8]
    schema = re.sub(r"[^a-z0-9_]", "_", request.node.name.lower())[:48] + "_" + digest
    yield ScratchProject(tmp_path / "project", schema, spark)
