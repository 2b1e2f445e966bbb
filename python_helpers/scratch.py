"""Throw-away copies of this dbt project (configuration and macros, own seeds and snapshots).

Used by the tests and the smoke demo: each copy writes to its own schema, so runs never see
each other's tables, and nothing is written into the project's own folders.
"""

from __future__ import annotations

import os
import shutil
import textwrap
from collections.abc import Iterable
from pathlib import Path

from pyspark.sql import SparkSession

from python_helpers.dbt_invoke import DbtStep, run_dbt
from python_helpers.lakehouse import PROJECT_ROOT, prepare_dirs, spark_conf

PROJECT_FILES = ("dbt_project.yml", "profiles.yml")
PROJECT_DIRS = ("macros",)


def lakehouse_session(app_name: str, master: str | None = "local[2]") -> SparkSession:
    """The in-process SparkSession on the lakehouse; dbt's session target reuses it.

    ``master=None`` keeps the master chosen outside (spark-submit's ``--master``).
    """
    prepare_dirs()
    builder = SparkSession.builder.appName(app_name)
    if master is not None:
        builder = builder.master(master)
    for key, value in spark_conf().items():
        builder = builder.config(key, value)
    session = builder.enableHiveSupport().getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


class ScratchProject:
    """A copy of this project's dbt configuration and macros in ``root``, on schema ``schema``.

    ``include`` names more project folders to copy as they are, e.g. ``("models", "snapshots")``
    to run the project's own snapshots and models against the scratch schema.
    """

    def __init__(
        self, root: Path, schema: str, spark: SparkSession, include: Iterable[str] = ()
    ) -> None:
        self.root = root
        self.schema = schema
        self.spark = spark
        root.mkdir(parents=True, exist_ok=True)
        for name in PROJECT_FILES:
            shutil.copy(PROJECT_ROOT / name, root / name)
        for name in (*PROJECT_DIRS, *include):
            shutil.copytree(PROJECT_ROOT / name, root / name, dirs_exist_ok=True)
        for name in ("seeds", "snapshots", "models"):
            (root / name).mkdir(exist_ok=True)

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
        return path

    def write_seed(self, name: str, header: str, rows: list[str]) -> Path:
        return self.write(f"seeds/{name}.csv", "\n".join([header, *rows]) + "\n")

    def dbt(self, *args: str, check: bool = True) -> DbtStep:
        os.environ["DBT_SCHEMA"] = self.schema
        return run_dbt(args, project_dir=self.root, check=check)

    def table(self, name: str) -> str:
        return f"{self.schema}.{name}"
