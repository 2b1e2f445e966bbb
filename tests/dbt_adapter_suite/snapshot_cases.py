"""dbt Labs' adapter-agnostic snapshot tests (dbt-tests-adapter, `basic`), unchanged but for
the project settings these macros need (conftest.project_config). They count the versions
each strategy keeps (check_cols 'all', a column list, timestamp) over seeds that are
inserted into and updated between runs, so the metadata columns play no part in them.

dbt's other snapshot tests (`simple_snapshot`) build their fixtures with Postgres SQL (`::`
casts, `create table` without a format) and compare whole tables; dbt-spark itself runs them
only on Databricks.
"""

from __future__ import annotations

from typing import Any

import pytest
from dbt.tests.adapter.basic.test_snapshot_check_cols import BaseSnapshotCheckCols
from dbt.tests.adapter.basic.test_snapshot_timestamp import BaseSnapshotTimestamp
from dbt.tests.util import relation_from_name

from tests.dbt_adapter_suite.conftest import project_config


class OurMacros:
    """After dbt's test, before its clean-up drops the schema: the snapshots were built by
    this project's macros (every version has the inserting run's id)."""

    snapshot_names: tuple[str, ...] = ()

    @pytest.fixture(autouse=True)
    def clean_up(self, project: Any):
        yield
        for name in self.snapshot_names:
            relation = relation_from_name(project.adapter, name)
            missing = project.run_sql(
                f"select count(*) from {relation} where audit_insert_process_id is null",
                fetch="one",
            )
            assert missing[0] == 0, name
        with project.adapter.connection_named("__test"):
            schema = project.adapter.Relation.create(
                database=project.database, schema=project.test_schema
            )
            project.adapter.drop_schema(schema)


class TestSnapshotCheckCols(OurMacros, BaseSnapshotCheckCols):
    snapshot_names = ("cc_all_snapshot", "cc_date_snapshot", "cc_name_snapshot")

    @pytest.fixture(scope="class")
    def project_config_update(self) -> dict[str, Any]:
        return project_config()


class TestSnapshotTimestamp(OurMacros, BaseSnapshotTimestamp):
    snapshot_names = ("ts_snapshot",)

    @pytest.fixture(scope="class")
    def project_config_update(self) -> dict[str, Any]:
        return project_config()
