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
from pyspark.sql import SparkSession

from python_helpers.runtime.session import lakehouse_session
from python_helpers.tooling.scratch import ScratchProject

# The JVMs the tests start in subprocesses (drivers, Thrift servers, a cluster's daemons and
# executors) compile with C1 only: they live for a minute or two, and C2 spent most of their
# CPU compiling code they did not run long enough to repay, on a suite that is CPU-bound.
# Measured on this 2-core machine: the killed-merge tests' two driver JVMs 134 -> 74 CPU-s; a
# session start and a tiny CTAS 33 -> 15 CPU-s. This process's own JVM lives for the whole
# run and keeps the default: C1-only made no difference to it over a whole suite (the two
# workers' JVMs 3,245 CPU-s with it, 3,311 without). Semantics are the same; `make demo`,
# `make bench` and the dbt targets keep the JVM's default.
JIT_OPTION = "-XX:TieredStopAtLevel=1"
JAVA_OPTIONS = os.environ.get("JAVA_TOOL_OPTIONS", "")
if JIT_OPTION not in JAVA_OPTIONS:
    os.environ["JAVA_TOOL_OPTIONS"] = f"{JAVA_OPTIONS} {JIT_OPTION}".strip()


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkSession]:
    os.environ["LAKEHOUSE_DIR"] = str(tmp_path_factory.mktemp("lakehouse"))
    subprocess_options = os.environ["JAVA_TOOL_OPTIONS"]
    # pyspark starts the JVM with this process's environment: the default JIT for this one.
    if JAVA_OPTIONS:
        os.environ["JAVA_TOOL_OPTIONS"] = JAVA_OPTIONS
    else:
        del os.environ["JAVA_TOOL_OPTIONS"]
    try:
        session = lakehouse_session("scd2-lakehouse-tests")
    finally:
        os.environ["JAVA_TOOL_OPTIONS"] = subprocess_options
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
