"""Throw-away copies of this dbt project (configuration and macros, own seeds and snapshots).

Used by the tests and the smoke demo: each copy writes to its own schema, so runs never see
each other's tables, and nothing is written into the project's own folders. The SparkSession
a copy runs on comes from the runtime's factory,
:func:`python_helpers.runtime.session.lakehouse_session`.
"""

from __future__ import annotations

import os
import shutil
import textwrap
from collections.abc import Iterable
from pathlib import Path

import yaml
from pyspark.sql import SparkSession

from python_helpers.runtime.dbt_invoke import DbtStep, run_dbt
from python_helpers.runtime.lakehouse import PROJECT_ROOT

PROJECT_FILES = ("dbt_project.yml", "profiles.yml", ".dbtignore")
PROJECT_DIRS = ("macros",)


class ScratchProject:
    """A copy of this project's dbt configuration and macros in ``root``, on schema ``schema``.

    ``include`` names more project folders to copy as they are, e.g. ``("models", "snapshots")``
    to run the project's own snapshots and models against the scratch schema; with
    ``snapshots``, the generated seeds they ref() start as placeholders (header only), replaced
    by a generated day, by :meth:`write_seed`, or stood in for by tables the generator writes.
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
        if "snapshots" in include:
            from python_helpers.generator.output import write_seed_placeholders
            from python_helpers.pipeline.placeholders import demo_spec

            write_seed_placeholders(self.generated_seeds, demo_spec())

    @property
    def generated_seeds(self) -> Path:
        from python_helpers.generator.output import DEFAULT_SEEDS_DIR

        return self.root / DEFAULT_SEEDS_DIR

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
        return path

    def write_seed(self, name: str, header: str, rows: list[str]) -> Path:
        """``seeds/<name>.csv``, or the generated seed of that name when there is one."""
        generated = self.generated_seeds / f"{name}.csv"
        path = generated if generated.exists() else self.root / "seeds" / f"{name}.csv"
        return self.write(str(path.relative_to(self.root)), "\n".join([header, *rows]) + "\n")

    def source_over_files(
        self,
        source: str,
        table: str,
        ddl: str,
        file_format: str,
        folder: Path,
        catalog: str | None = None,
    ) -> Path:
        """The table ``<schema>.<table>`` (columns ``ddl``) over the files of ``folder``
        (``using <file_format>``), and ``models/<source>.yml``, a dbt source named ``source``
        over it, for ``{{ source(source, table) }}``; with ``catalog``, the source's schema
        names it (``<catalog>.<schema>``), as a source in another catalog does."""
        self.spark.sql(f"create schema if not exists {self.schema}")
        self.spark.sql(
            f"create table {self.table(table)} ({ddl}) using {file_format} location '{folder}'"
        )
        schema = f"{catalog}.{self.schema}" if catalog else self.schema
        properties = {
            "version": 2,
            "sources": [{"name": source, "schema": schema, "tables": [{"name": table}]}],
        }
        return self.write(f"models/{source}.yml", yaml.safe_dump(properties))

    def dbt(self, *args: str, check: bool = True) -> DbtStep:
        os.environ["DBT_SCHEMA"] = self.schema
        return run_dbt(args, project_dir=self.root, check=check)

    def table(self, name: str) -> str:
        return f"{self.schema}.{name}"
