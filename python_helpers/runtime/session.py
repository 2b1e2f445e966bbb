"""The production Spark session factory: one in-process SparkSession on the lakehouse.

Every process that runs Spark itself (the pipeline, the generator, the benchmarks, the tests)
starts its session here, with :func:`python_helpers.runtime.lakehouse.spark_conf`, so that all
of them see the same warehouse, metastore, Iceberg catalog and jars.
"""

from __future__ import annotations

from pyspark.sql import SparkSession

from python_helpers.runtime.lakehouse import prepare_dirs, spark_conf


def lakehouse_session(
    app_name: str, master: str | None = "local[2]", extra_conf: dict[str, str] | None = None
) -> SparkSession:
    """The in-process SparkSession on the lakehouse; dbt's session target reuses it.

    ``master=None`` keeps the master chosen outside (spark-submit's ``--master``);
    ``extra_conf`` adds or replaces settings (a cluster's master and shared metastore:
    :func:`python_helpers.operations.cluster.client_conf`).
    """
    prepare_dirs()
    builder = SparkSession.builder.appName(app_name)
    if master is not None:
        builder = builder.master(master)
    for key, value in {**spark_conf(), **(extra_conf or {})}.items():
        builder = builder.config(key, value)
    session = builder.enableHiveSupport().getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session
