"""The one definition of the local lakehouse's Spark configuration.

Used by the dbt ``local`` target (through pyspark's ``conf/spark-defaults.conf``, rendered by
``python -m python_helpers.runtime.lakehouse --write-defaults`` in ``make setup``; dbt-spark's
session method starts Spark through pyspark's spark-submit, which reads that file, so
``profiles.yml`` names no Spark setting), by the runtime's session factory
(:mod:`python_helpers.runtime.session`: the pipeline, the generator, the tests' ``spark``
fixture) and by the Thrift server launcher, so that every process sees the same warehouse,
metastore, catalog and jars. ``--provision`` copies and builds the jars (see
:func:`provision_jars` and :mod:`python_helpers.runtime.relocate`); ``--json`` prints the
configuration.

Environment variables (all optional):

``LAKEHOUSE_DIR``
    Folder holding the warehouse, the Derby metastore, Spark scratch space and the Thrift
    server's log and pid. Default: ``<project>/.lakehouse``.
``LAKEHOUSE_JAR_CACHE``
    Folder for the provisioned jars (kept by ``make clean``). Default: ``<project>/.cache/jars``.
``LAKEHOUSE_JARS``
    Comma-separated jar paths to use instead of the provisioned Iceberg jars (for a machine
    with its own Iceberg runtime).
``LAKEHOUSE_DRIVER_MEMORY``, ``LAKEHOUSE_SHUFFLE_PARTITIONS``
    Spark's sizing (see :func:`sizing_conf`): driver heap and initial shuffle partitions.
``LAKEHOUSE_PACKAGES``
    Maven coordinates for ``spark.jars.packages`` (needs Maven access), e.g.
    ``org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.2``. Replaces the provisioned jars.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]  # python_helpers/runtime/lakehouse.py
ICEBERG_JAR_NAME = "iceberg-spark-runtime-3.5_2.12-1.10.2.jar"
SHADED_JACKSON_JAR_NAME = "iceberg-shaded-jackson-2.15.2.jar"
JACKSON_JARS = (
    "jackson-core-2.15.2.jar",
    "jackson-databind-2.15.2.jar",
    "jackson-annotations-2.15.2.jar",
)
SHADED_JACKSON_PACKAGE = {
    "com.fasterxml.jackson": "org.apache.iceberg.shaded.com.fasterxml.jackson"
}


class LakehouseConfigError(RuntimeError):
    """The lakehouse cannot be configured (missing jars, bad environment variable...)."""


@contextlib.contextmanager
def environment_variable(name: str, value: str) -> Iterator[None]:
    """``name`` set to ``value`` in this process's environment for the block, then as it was
    (unset when it was unset)."""
    previous = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous


def lakehouse_dir() -> Path:
    return Path(os.environ.get("LAKEHOUSE_DIR") or PROJECT_ROOT / ".lakehouse").resolve()


def warehouse_dir() -> Path:
    return lakehouse_dir() / "warehouse"


def metastore_dir() -> Path:
    return lakehouse_dir() / "metastore_db"


def jars_dir() -> Path:
    return Path(os.environ.get("LAKEHOUSE_JAR_CACHE") or PROJECT_ROOT / ".cache" / "jars").resolve()


def _site_dir(package: str) -> Path:
    module = __import__(package)
    return Path(module.__file__).resolve().parent


def provision_jars(force: bool = False) -> list[Path]:
    """Copy the Iceberg runtime jar and build the relocated Jackson jar; idempotent.

    Both are cached under :func:`jars_dir` and rebuilt only when missing.
    """
    from python_helpers.runtime.relocate import relocate_jars

    target = jars_dir()
    target.mkdir(parents=True, exist_ok=True)
    runtime = target / ICEBERG_JAR_NAME
    if force or not runtime.exists():
        source = _site_dir("snowpark_connect_deps_iceberg") / "jars" / ICEBERG_JAR_NAME
        if not source.exists():
            raise LakehouseConfigError(
                f"{source} not found: install the pinned 'snowpark-connect-deps-iceberg' "
                "package (make setup), or set LAKEHOUSE_JARS / LAKEHOUSE_PACKAGES."
            )
        tmp = runtime.with_suffix(".tmp")
        tmp.write_bytes(source.read_bytes())
        tmp.replace(runtime)
    shaded = target / SHADED_JACKSON_JAR_NAME
    if force or not shaded.exists():
        pyspark_jars = _site_dir("pyspark") / "jars"
        relocate_jars(
            [pyspark_jars / name for name in JACKSON_JARS], shaded, SHADED_JACKSON_PACKAGE
        )
    return [runtime, shaded]


def jar_paths() -> list[str]:
    """The jars to put on the driver classpath (empty when LAKEHOUSE_PACKAGES is used)."""
    if os.environ.get("LAKEHOUSE_PACKAGES"):
        return []
    if os.environ.get("LAKEHOUSE_JARS"):
        paths = [p.strip() for p in os.environ["LAKEHOUSE_JARS"].split(",") if p.strip()]
        missing = [p for p in paths if not Path(p).exists()]
        if missing:
            raise LakehouseConfigError(f"LAKEHOUSE_JARS names missing files: {missing}")
        return paths
    paths = [jars_dir() / ICEBERG_JAR_NAME, jars_dir() / SHADED_JACKSON_JAR_NAME]
    if not all(p.exists() for p in paths):
        paths = provision_jars()
    return [str(p) for p in paths]


def spark_conf(include_jars: bool = True) -> dict[str, str]:
    """Every Spark setting the lakehouse needs, as one flat dict."""
    lake = lakehouse_dir()
    metastore_url = f"jdbc:derby:;databaseName={metastore_dir()};create=true"
    conf = {
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "spark.sql.catalog.spark_catalog": "org.apache.iceberg.spark.SparkSessionCatalog",
        "spark.sql.catalog.spark_catalog.type": "hive",
        # Iceberg's table cache (30 s) served a long-lived session (the Thrift server) a seed
        # table as it was before its `create or replace`: a load during the write re-cached the
        # old metadata, and nothing invalidates it on commit (apache/iceberg#10493). Each query
        # reads the current metadata instead; it also keeps JVMs sharing a metastore in step.
        "spark.sql.catalog.spark_catalog.cache-enabled": "false",
        "spark.sql.catalogImplementation": "hive",
        "spark.sql.warehouse.dir": str(warehouse_dir()),
        "spark.hadoop.javax.jdo.option.ConnectionURL": metastore_url,
        "spark.hadoop.hive.metastore.warehouse.dir": str(warehouse_dir()),
        "spark.hadoop.datanucleus.schema.autoCreateAll": "true",
        "spark.hadoop.hive.metastore.schema.verification": "false",
        # Embedded Derby has no HIVE_LOCKS table: Iceberg's Hive lock fails on commit.
        "spark.hadoop.iceberg.engine.hive.lock-enabled": "false",
        # Iceberg copies each new schema into the metastore's column list, which Hive refuses
        # when a column changes to an incompatible type in the same position (a seed re-created
        # with new columns). The table's real schema is Iceberg's own; Hive's copy is
        # informational, and its refusal failed the commit with CommitStateUnknownException.
        "spark.hadoop.hive.metastore.disallow.incompatible.col.type.changes": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.driver.extraJavaOptions": driver_java_options(),
        "spark.local.dir": str(lake / "tmp"),
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.legacy.createHiveTableByDefault": "false",
    }
    conf.update(sizing_conf())
    if os.environ.get("LAKEHOUSE_PACKAGES"):
        conf["spark.jars.packages"] = os.environ["LAKEHOUSE_PACKAGES"]
    elif include_jars:
        paths = jar_paths()
        # --jars is not enough in Thrift sessions (NoClassDefFoundError PathIdentifier):
        # the jars must be on the driver's own classpath.
        conf["spark.driver.extraClassPath"] = os.pathsep.join(paths)
        conf["spark.executor.extraClassPath"] = os.pathsep.join(paths)
    return conf


# HotSpot's C1 compiler alone, in a code cache large enough for Spark's generated code (C1
# alone gets 48 MiB, which Spark fills). For a JVM that lives a minute or two on small data on
# few cores, C2's compiling costs more CPU than its faster code gives back; on large days C2's
# code repays it. The test suite's JVMs use it too (tests/conftest.py). The measurements, and
# those behind SHORT_RUN_MAX_ROWS: docs/performance.md, "Sizing Spark".
SHORT_RUN_JIT_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=256m")
# The largest day (rows) a pipeline run counts as small: the largest measured size that gained.
SHORT_RUN_MAX_ROWS = 100_000


def driver_java_options() -> str:
    """The driver JVM's options the lakehouse needs (:func:`spark_conf`): Derby's home in the
    lakehouse, and UTC."""
    # Spark splits these options like a shell: a folder with a space needs the quotes.
    return f"-Dderby.system.home={shlex.quote(str(lakehouse_dir()))} -Duser.timezone=UTC"


def short_run_conf() -> dict[str, str]:
    """:func:`driver_java_options` plus :data:`SHORT_RUN_JIT_OPTIONS`, for a session started
    for a short run on small data (applies when it starts the JVM)."""
    options = " ".join([driver_java_options(), *SHORT_RUN_JIT_OPTIONS])
    return {"spark.driver.extraJavaOptions": options}


def physical_memory_bytes() -> int | None:
    """This machine's memory, or None where the OS does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def sizing_conf() -> dict[str, str]:
    """Spark sized for this machine; each value overridable by an environment variable.

    In local mode the driver JVM is the only executor, so its heap is all the memory Spark
    has: a quarter of the machine's memory, between 1 and 8 GiB (``LAKEHOUSE_DRIVER_MEMORY``,
    e.g. ``12g``). Shuffles start at two partitions per core, at least 4
    (``LAKEHOUSE_SHUFFLE_PARTITIONS``), and adaptive execution coalesces or splits them by
    their real size. On a cluster, size executors instead (see docs/performance.md, "Sizing Spark").
    """
    cores = os.cpu_count() or 2
    memory = physical_memory_bytes() or 4 * 1024**3
    memory_gib = max(1, min(8, memory // 4 // 1024**3))
    return {
        "spark.driver.memory": os.environ.get("LAKEHOUSE_DRIVER_MEMORY") or f"{memory_gib}g",
        "spark.sql.shuffle.partitions": os.environ.get("LAKEHOUSE_SHUFFLE_PARTITIONS")
        or str(max(4, 2 * cores)),
        "spark.sql.adaptive.enabled": "true",
        "spark.sql.adaptive.coalescePartitions.enabled": "true",
        "spark.sql.adaptive.skewJoin.enabled": "true",
        # HotSpot does not JIT-compile a method of more than 8,000 bytes of bytecode
        # (-XX:+DontCompileHugeMethods), and Spark's default limit for a whole-stage codegen
        # method is 64 KiB: a wide projection (a seed's 16 checked casts) then runs
        # interpreted (what that costs: docs/performance.md, "Sizing Spark"). At 8,000, as
        # Spark's documentation of the setting advises on HotSpot, such a stage falls back to
        # per-expression code instead.
        "spark.sql.codegen.hugeMethodLimit": "8000",
    }


def spark_defaults_path() -> Path:
    """pyspark's own ``conf/spark-defaults.conf``: read by every spark-submit of this venv."""
    return _site_dir("pyspark") / "conf" / "spark-defaults.conf"


def write_spark_defaults(path: Path | None = None) -> Path:
    """Render :func:`spark_conf` into pyspark's spark-defaults.conf (only when it changed).

    This is how the ``local`` dbt target (and ``dbt`` run by hand) gets the lakehouse
    configuration without flags: dbt-spark's session method starts Spark through pyspark's
    spark-submit, which reads this file, as does the Thrift server launcher.

    ``path`` writes the same text elsewhere instead, e.g. a ``spark-defaults.conf`` in a
    folder that ``SPARK_CONF_DIR`` names (:mod:`python_helpers.tooling.private_metastore`).
    """
    prepare_dirs()
    lines = [
        "# Written by `python -m python_helpers.runtime.lakehouse --write-defaults` (make setup).",
        "# Edit python_helpers/runtime/lakehouse.py instead; this file is regenerated.",
    ]
    lines += [f"{key} {value}" for key, value in sorted(spark_conf().items())]
    text = "\n".join(lines) + "\n"
    if path is None:
        path = spark_defaults_path()
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return path


def prepare_dirs() -> None:
    """The lakehouse's folders, created if missing; :class:`LakehouseConfigError` naming
    ``LAKEHOUSE_DIR`` when one cannot be (a file in the way, no permission): a traceback
    before."""
    for path in (lakehouse_dir(), warehouse_dir(), lakehouse_dir() / "tmp"):
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LakehouseConfigError(
                f"the lakehouse folder {lakehouse_dir()} (LAKEHOUSE_DIR, default .lakehouse) "
                f"cannot be used: creating {path} failed ({exc.strerror}). Set LAKEHOUSE_DIR "
                "to a folder this user can write (created if missing)."
            ) from exc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m python_helpers.runtime.lakehouse",
        description="Provision and print the local lakehouse's Spark configuration.",
    )
    parser.add_argument(
        "--provision",
        action="store_true",
        help="copy the Iceberg runtime jar and build the relocated Jackson "
        "jar under $LAKEHOUSE_JAR_CACHE (.cache/jars) if missing",
    )
    parser.add_argument(
        "--force", action="store_true", help="with --provision: rebuild the jars even if present"
    )
    parser.add_argument(
        "--write-defaults",
        action="store_true",
        help="render the configuration into pyspark's conf/spark-defaults.conf "
        "so that dbt's local target and spark-submit use it",
    )
    parser.add_argument("--json", action="store_true", help="print the Spark configuration as JSON")
    args = parser.parse_args(argv)
    try:
        if args.provision:
            for path in provision_jars(force=args.force):
                print(f"ok  {path}")
        if args.write_defaults:
            print(f"ok  {write_spark_defaults()}")
        if args.json:
            print(json.dumps(spark_conf(), indent=2, sort_keys=True))
    except LakehouseConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
