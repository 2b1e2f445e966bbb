"""The project's snapshots on the generator's default data: 10000 10000 5 10 0.2 0.4 0.4."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from python_helpers.generator import GeneratorSpec, generate_day
from python_helpers.generator.output import write_tables
from python_helpers.tooling.scratch import ScratchProject

SNAPSHOTS = ("cdc_check_snapshot", "cdc_timestamp_snapshot")


@pytest.fixture(scope="module")
def two_days(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("generated") / "project"
    project = ScratchProject(root, "generated_default", spark, include=("models", "snapshots"))
    spark.sql(f"create schema if not exists {project.schema}")
    spec = GeneratorSpec(10000, 10000, 5, 10, 0.2, 0.4, 0.4)
    runs = []
    for day in (1, 2):
        write_tables(generate_day(spark, spec, day), project.schema)
        runs.append(project.dbt("snapshot").invocation_id)
    return project, runs


def _count(spark: SparkSession, sql: str) -> int:
    return int(spark.sql(sql).first()[0])


@pytest.mark.parametrize("snapshot", SNAPSHOTS)
def test_day_two_changes_and_process_ids(two_days, snapshot: str) -> None:
    project, (run1, run2) = two_days
    spark = project.spark
    table = project.table(snapshot)
    keys = "key_1, key_2, key_3, key_4, key_5"
    spark.sql(
        f"""
        create or replace temporary view v as
        with closed as (
            select {keys} from {table} where audit_update_process_id = '{run2}'
        ),
        inserted as (
            select {keys} from {table} where audit_insert_process_id = '{run2}'
        )
        select
            (select count(*) from closed left anti join inserted using ({keys})) as deleted,
            (select count(*) from closed left semi join inserted using ({keys})) as updated,
            (select count(*) from inserted left anti join closed using ({keys})) as new,
            (select count(*) from {table}
             where dbt_valid_to is null and audit_insert_process_id = '{run1}') as untouched,
            (select count(*) from {table}) as versions
        """
    )
    row = spark.table("v").first().asDict()
    # Day 1: 10000 versions. Day 2: 2000 closed as deleted, 4000 closed and re-inserted as
    # updated, 4000 untouched, 2000 inserted: 10000 + 4000 + 2000 versions in all.
    assert row == {
        "deleted": 2000,
        "updated": 4000,
        "new": 2000,
        "untouched": 4000,
        "versions": 16000,
    }
    # Every version closed on day 2 was closed by run 2, at one processing time, and was
    # inserted by run 1; every version inserted on day 2 carries run 2; nothing else moved.
    closed = spark.sql(
        f"select audit_insert_process_id as ins, audit_update_process_id as upd, "
        f"count(*) as n, count(distinct audit_update_ts) as ts "
        f"from {table} where dbt_valid_to is not null group by 1, 2"
    ).collect()
    assert [tuple(r) for r in closed] == [(run1, run2, 6000, 1)]
    opened = spark.sql(
        f"select audit_insert_process_id as ins, count(*) as n from {table} "
        f"where dbt_valid_to is null group by 1 order by 2"
    ).collect()
    assert sorted(tuple(r) for r in opened) == sorted([(run1, 4000), (run2, 6000)])
    assert (
        _count(
            spark,
            f"select count(*) from {table} where audit_update_process_id is null "
            f"and dbt_valid_to is not null",
        )
        == 0
    )


def test_generic_tests_pass_on_generated_snapshots(two_days) -> None:
    project, _ = two_days
    step = project.dbt("test", "--select", "resource_type:snapshot")
    statuses = {r.node.name: str(r.status).lower() for r in step.result.results}
    assert len(statuses) == 8  # 4 scd2 tests x 2 snapshots
    assert set(statuses.values()) == {"pass"}, statuses
