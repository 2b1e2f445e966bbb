"""The generator's SparkSession: reuse the process's session, else start one on the lakehouse."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from pyspark import SparkContext
from pyspark.sql import SparkSession

from python_helpers.runtime.session import lakehouse_session

APP_NAME = "scd2-generate"
DEFAULT_MASTER = "local[2]"


def generator_session(master: str | None = None) -> tuple[SparkSession, bool]:
    """``(session, started_here)``.

    A session already running in this process (the pipeline, the tests) is reused as it is, so
    that the generator writes into the same lakehouse and no second JVM competes for the Derby
    metastore. Otherwise a session is started with the lakehouse configuration (Iceberg catalog,
    warehouse, metastore). Under spark-submit (pyspark then connects to spark-submit's JVM, which
    sets ``PYSPARK_GATEWAY_PORT``) the master given to spark-submit is kept unless ``master`` is
    given; elsewhere ``master`` defaults to ``local[2]``.
    """
    if SparkContext._active_spark_context is not None:
        return SparkSession.builder.getOrCreate(), False
    if master is None and "PYSPARK_GATEWAY_PORT" not in os.environ:
        master = DEFAULT_MASTER
    return lakehouse_session(APP_NAME, master), True


TIME_ZONE = "spark.sql.session.timeZone"


@contextmanager
def in_utc(spark: SparkSession) -> Iterator[SparkSession]:
    """``spark`` with its session time zone UTC for the block, then as it was: the generator's
    dates become midnight UTC and its event times UTC instants, as in the lakehouse's own
    session, also in a session reused from a notebook set to another zone (where every
    ``updated_at`` and event time of the tables was shifted by its offset)."""
    zone = spark.conf.get(TIME_ZONE)
    spark.conf.set(TIME_ZONE, "UTC")
    try:
        yield spark
    finally:
        spark.conf.set(TIME_ZONE, zone)
