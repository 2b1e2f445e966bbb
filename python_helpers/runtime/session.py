"""The production Spark session factory: one in-process SparkSession on the lakehouse.

Every process that runs Spark itself (the pipeline, the generator, the benchmarks, the tests)
starts its session here, with :func:`python_helpers.runtime.lakehouse.spark_conf`, so that all
of them see the same warehouse, metastore, Iceberg catalog and jars.
"""

from __future__ import annotations

import os
import time
from typing import Any

from py4j.java_gateway import JavaClass, JVMView
from pyspark.sql import SparkSession

from python_helpers.runtime.lakehouse import prepare_dirs, spark_conf


class _ClassCachingJVMView(JVMView):
    """py4j's view of the JVM (``session._jvm``), keeping each class it has found.

    py4j resolves ``jvm.Name`` afresh at every access: the JVM tries ``Class.forName`` on the
    name and then on each of the view's imports (``java.lang.*``, ``org.apache.spark.api.java.*``
    and so on), and every miss searches all the ~250 jars of Spark's class path. pyspark 3.5
    reads ``jvm.PythonUtils`` at each ``spark.sql`` and ``jvm.SparkSession$`` at each
    ``getOrCreate`` (dbt-spark's session cursor calls both per statement), and
    ``jvm.functions`` at each function of ``pyspark.sql.functions``: about 2.5 ms of JVM CPU per
    dbt statement, as much as a `set` statement costs otherwise. A class found stays that class
    for the JVM's life; a name found to be no class (a package, or a class of a jar added
    later) is asked again, as py4j does.
    """

    def __getattr__(self, name: str) -> Any:
        found = super().__getattr__(name)
        if isinstance(found, JavaClass):
            setattr(self, name, found)
        return found


def use_utc_in_python() -> None:
    """Put this Python process in UTC, as the lakehouse's Spark session and JVM are.

    pyspark turns a timestamp it collects into a Python datetime in the process's local zone
    (``datetime.fromtimestamp``), whatever Spark's session zone: east of UTC the high end,
    9999-12-31 23:59:59 UTC, is in the year 10000, which Python cannot hold, and every
    collect of an open version failed with "year 10000 is out of range" (west of UTC, the
    times came back shifted). The ``TZ`` variable also reaches the processes this one starts.
    dbt run by hand starts its own session: docs/running-dbt.md says to run it with TZ=UTC.
    """
    if os.environ.get("TZ") != "UTC":
        os.environ["TZ"] = "UTC"
        time.tzset()


def lakehouse_session(
    app_name: str, master: str | None = "local[2]", extra_conf: dict[str, str] | None = None
) -> SparkSession:
    """The in-process SparkSession on the lakehouse; dbt's session target reuses it.

    ``master=None`` keeps the master chosen outside (spark-submit's ``--master``);
    ``extra_conf`` adds or replaces settings (a cluster's master and shared metastore:
    :func:`python_helpers.operations.cluster.client_conf`).
    """
    prepare_dirs()
    use_utc_in_python()
    builder = SparkSession.builder.appName(app_name)
    if master is not None:
        builder = builder.master(master)
    for key, value in {**spark_conf(), **(extra_conf or {})}.items():
        builder = builder.config(key, value)
    session = builder.enableHiveSupport().getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    if type(session._jvm) is JVMView:
        session._jvm.__class__ = _ClassCachingJVMView
    return session
