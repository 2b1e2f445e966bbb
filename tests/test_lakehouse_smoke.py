"""The lakehouse foundation: seed, snapshot, change, snapshot on real Spark + Iceberg."""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from datetime import datetime
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from python_helpers.runtime.lakehouse import spark_conf
from python_helpers.runtime.session import use_utc_in_python
from python_helpers.tooling.scratch import ScratchProject

SNAPSHOT = """
    {% snapshot smoke_snapshot %}
    {{ config(unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate') }}
    select * from {{ ref('smoke_source') }}
    {% endsnapshot %}
"""


def _history(project: ScratchProject) -> list[tuple]:
    rows = project.spark.sql(
        f"select id, name, amount, dbt_valid_from, dbt_valid_to "
        f"from {project.table('smoke_snapshot')} order by id, dbt_valid_from"
    ).collect()
    return [tuple(r) for r in rows]


def test_seed_snapshot_change_snapshot_keeps_scd2_history(dbt_project: ScratchProject) -> None:
    # Day 1: three rows.
    dbt_project.write("snapshots/smoke.sql", SNAPSHOT)
    dbt_project.write_seed("smoke_source", "id,name,amount", ["1,a,10", "2,b,20", "3,c,30"])
    dbt_project.dbt("seed")
    dbt_project.dbt("snapshot")
    day1 = _history(dbt_project)
    assert [(i, n, a, to) for i, n, a, _, to in day1] == [
        (1, "a", 10, None),
        (2, "b", 20, None),
        (3, "c", 30, None),
    ]
    t1 = day1[0][3]
    assert all(r[3] == t1 for r in day1), "one run, one dbt_valid_from"

    # Day 2: id 1 updated, id 2 unchanged, id 3 deleted, id 4 added.
    dbt_project.write_seed("smoke_source", "id,name,amount", ["1,a,11", "2,b,20", "4,d,40"])
    dbt_project.dbt("seed")
    dbt_project.dbt("snapshot")
    day2 = _history(dbt_project)
    t2 = next(r[3] for r in day2 if r[0] == 4)
    assert t2 > t1
    assert day2 == [
        (1, "a", 10, t1, t2),  # old version closed by the update
        (1, "a", 11, t2, None),  # new version open
        (2, "b", 20, t1, None),  # unchanged: untouched
        (3, "c", 30, t1, t2),  # hard delete invalidated (hard_deletes: invalidate)
        (4, "d", 40, t2, None),  # new key
    ]


def test_snapshot_and_seed_are_iceberg_tables(dbt_project: ScratchProject) -> None:
    dbt_project.write("snapshots/smoke.sql", SNAPSHOT)
    dbt_project.write_seed("smoke_source", "id,name,amount", ["1,a,10"])
    dbt_project.dbt("seed")
    dbt_project.dbt("snapshot")
    for name in ("smoke_snapshot", "smoke_source"):
        ddl = dbt_project.spark.sql(f"show create table {dbt_project.table(name)}").first()[0]
        assert "USING iceberg" in ddl, ddl
        # Iceberg's own metadata tables exist only for Iceberg tables.
        snapshots = dbt_project.spark.sql(f"select * from {dbt_project.table(name)}.snapshots")
        assert snapshots.count() >= 1


def test_reseeding_purges_old_iceberg_files(dbt_project: ScratchProject) -> None:
    """Re-running `dbt seed --full-refresh` drops and re-creates: needs drop ... purge."""
    dbt_project.write_seed("smoke_source", "id,name,amount", ["1,a,10"])
    dbt_project.dbt("seed")
    dbt_project.write_seed("smoke_source", "id,name,amount", ["1,a,10", "2,b,20"])
    dbt_project.dbt("seed", "--full-refresh")
    count = dbt_project.spark.table(dbt_project.table("smoke_source")).count()
    assert count == 2


def test_tables_of_other_formats_are_re_created(dbt_project: ScratchProject) -> None:
    """A parquet `table` model (dbt-spark's file format where none is set) and the failures a
    `dbt test --store-failures` keeps: each run drops and re-creates its table, and Iceberg's
    session catalog left a plain drop's files behind, so the second run failed with
    LOCATION_ALREADY_EXISTS. Each run holds its own rows: the model 2, then 3; the test's
    failing rows (an amount below zero) 1, then 2."""
    dbt_project.write(
        "tests/amount_positive.sql", "select * from {{ ref('plain_table') }} where amount < 0"
    )
    table = dbt_project.table("plain_table")
    for rows in (["(1, 5)", "(2, -1)"], ["(1, 5)", "(2, -1)", "(3, -2)"]):
        dbt_project.write(
            "models/plain_table.sql",
            "{{ config(materialized='table', file_format='parquet') }}\n"
            f"select * from values {', '.join(rows)} as t(id, amount)",
        )
        dbt_project.dbt("run")
        assert "USING parquet" in dbt_project.spark.sql(f"show create table {table}").first()[0]
        assert dbt_project.spark.table(table).count() == len(rows)
        failing = dbt_project.dbt("test", "--store-failures", check=False)
        (result,) = failing.result.results
        assert str(result.status).lower() == "fail", result.message
        stored = dbt_project.spark.table(f"{dbt_project.schema}_dbt_test__audit.amount_positive")
        assert stored.count() == len(rows) - 1


def test_empty_seed_cells_load_as_null(dbt_project: ScratchProject) -> None:
    """dbt-labs/dbt-adapters#487: the session method used to load them as the string 'None'."""
    dbt_project.write_seed("nulls", "id,label,amount", ["1,,", "2,x,5", ",y,"])
    dbt_project.dbt("seed")
    rows = dbt_project.spark.sql(
        f"select id, label, amount from {dbt_project.table('nulls')} order by id nulls first"
    ).collect()
    assert [tuple(r) for r in rows] == [(None, "y", None), (1, None, None), (2, "x", 5)]


def test_a_lakehouse_folder_with_spaces_and_quotes_reaches_the_jvm_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spark splits spark.driver.extraJavaOptions like a shell; an unquoted folder with a
    space made the Thrift server fail with "Could not find or load main class space"."""
    lake = tmp_path / "my lake's folder"
    monkeypatch.setenv("LAKEHOUSE_DIR", str(lake))
    options = shlex.split(spark_conf(include_jars=False)["spark.driver.extraJavaOptions"])
    assert options == [f"-Dderby.system.home={lake}", "-Duser.timezone=UTC"]


def test_the_python_process_reads_the_high_end_whatever_its_zone(spark: SparkSession) -> None:
    """pyspark turns collected timestamps into datetimes of the Python process's zone: east
    of UTC the high end (9999-12-31 23:59:59 UTC) is in the year 10000, and the collect
    failed. The lakehouse session puts the process in UTC, as Spark's session and the JVM
    are, so every collect gives the UTC instant."""
    query = (
        "select timestamp'9999-12-31 23:59:59 UTC' as high_end,"
        " timestamp'2024-01-01 09:00:00 UTC' as t"
    )
    zone = os.environ.get("TZ")
    try:
        os.environ["TZ"] = "Europe/Paris"
        time.tzset()
        with pytest.raises(ValueError, match="year 10000 is out of range"):
            spark.sql(query).collect()
        use_utc_in_python()
        row = spark.sql(query).first()
        assert (row.high_end, row.t) == (
            datetime(9999, 12, 31, 23, 59, 59),
            datetime(2024, 1, 1, 9),
        )
    finally:
        if zone is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = zone
        time.tzset()


def test_make_clean_removes_what_the_lakehouse_wrote_and_nothing_else(tmp_path: Path) -> None:
    """LAKEHOUSE_DIR may be a folder of the user's: make clean removes the lakehouse's own
    folders there (docs/lakehouse.md) and the folder only once nothing else is left in it,
    where it removed the whole folder, the user's files with it."""
    from python_helpers.runtime.lakehouse import PROJECT_ROOT

    folder = tmp_path / "shared"
    for entry in ("warehouse/db/t", "metastore_db/seg0", "tmp/x", "landing/scd2"):
        (folder / entry).mkdir(parents=True)
    (folder / "derby.log").write_text("log\n")
    (folder / "notes.txt").write_text("precious\n")

    def clean() -> None:
        # Run from tmp_path: no venv there (no server to stop), and its own target/ and logs/.
        done = subprocess.run(
            ["make", "-s", "-f", str(PROJECT_ROOT / "Makefile"), "clean",
             f"LAKEHOUSE_DIR={folder}"],
            cwd=tmp_path, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr

    clean()
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    assert (folder / "notes.txt").read_text() == "precious\n"
    (folder / "notes.txt").unlink()
    (folder / "warehouse").mkdir()
    clean()
    assert not folder.exists()
