"""`dbt seed` through the project's seed materialization: exact values, types, atomic failures.

Each test seeds a scratch project on its own schema, with both loaders: Spark's CSV reader
(`spark_csv`, the default) and dbt's row batches (`sql_inserts`). Expected rows are stated in
tests/seed_cases.py from dbt's rules, not read back from a previous run.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from python_helpers.runtime.dbt_invoke import DbtStep
from python_helpers.runtime.lakehouse import PROJECT_ROOT
from python_helpers.tooling.scratch import ScratchProject
from tests.seed_cases import (
    AWKWARD_COLUMN_TYPES,
    AWKWARD_HEADER,
    awkward_rows,
    seed_properties,
    write_csv,
)
from tests.subprocess_helpers import logged_since, results, wait_for

METHODS = ("spark_csv", "sql_inserts")


def _rows(spark: SparkSession, table: str, order_by: str = "id") -> list[tuple]:
    return [tuple(row) for row in spark.sql(f"select * from {table} order by {order_by}").collect()]


def _types(spark: SparkSession, table: str) -> dict[str, str]:
    return {field.name: field.dataType.simpleString() for field in spark.table(table).schema}


def _iceberg_state(spark: SparkSession, table: str) -> tuple[list[tuple], list[tuple]]:
    """The table's rows and its Iceberg snapshot history (ids, operations, summaries)."""
    snapshots = spark.sql(
        f"select snapshot_id, parent_id, operation, summary from {table}.snapshots "
        "order by committed_at"
    ).collect()
    rows = spark.sql(f"select * from {table}").collect()
    return sorted(tuple(str(v) for v in row) for row in rows), [tuple(s) for s in snapshots]


def _assert_seed_failed(step: DbtStep, *parts: str) -> None:
    """The step's one seed failed, with a message holding every part."""
    result = step.result.results[0]
    assert str(result.status) == "error"
    for part in parts:
        assert part in result.message, (part, result.message)


def _write_awkward(project: ScratchProject, method: str, name: str = "awkward") -> list[tuple]:
    cells, expected = awkward_rows()
    write_csv(project.root / "seeds" / f"{name}.csv", AWKWARD_HEADER, cells)
    project.write(
        f"seeds/{name}.yml",
        seed_properties(name, AWKWARD_COLUMN_TYPES, seed_load_method=method),
    )
    return expected


def _seed(
    project: ScratchProject,
    name: str,
    header: tuple[str, ...],
    rows: list[list[str]],
    column_types: dict[str, str],
    **config: str,
) -> str:
    """``seeds/<name>.csv`` of ``header`` and ``rows``, and its properties file (``column_types``
    and seed ``config``); returns the seed's table."""
    write_csv(project.root / "seeds" / f"{name}.csv", header, rows)
    project.write(f"seeds/{name}.yml", seed_properties(name, column_types, **config))
    return project.table(name)


@pytest.mark.parametrize("method", METHODS)
def test_awkward_values_round_trip(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    expected = _write_awkward(dbt_project, method)
    step = dbt_project.dbt("seed")
    assert step.result.results[0].message == f"CREATE {len(expected)}"
    table = dbt_project.table("awkward")
    assert _types(spark, table) == {
        "id": "int",
        "name": "string",
        "amount": "double",
        "changed_at": "timestamp",
        "business_date": "date",
    }
    assert _rows(spark, table) == expected
    # The second load of the same file replaces the rows: same values, no duplicates.
    step = dbt_project.dbt("seed")
    assert step.result.results[0].message == f"INSERT {len(expected)}"
    assert _rows(spark, table) == expected


def test_both_loaders_give_the_same_table(dbt_project: ScratchProject, spark: SparkSession) -> None:
    for method in METHODS:
        _write_awkward(dbt_project, method, name=f"awkward_{method}")
    # dbt's row batches hold 3 rows here (10,000 by default), so that several make the seed.
    dbt_project.write(
        "macros/batch_size.sql",
        "{% macro spark__get_batch_size() %}{{ return(3) }}{% endmacro %}\n",
    )
    dbt_project.dbt("seed")
    log = (dbt_project.root / "logs" / "dbt.log").read_text()
    assert re.search(r"temporary view awkward_sql_inserts__seed_\w+_3 as", log)
    tables = [dbt_project.table(f"awkward_{method}") for method in METHODS]
    assert _types(spark, tables[0]) == _types(spark, tables[1])
    assert _rows(spark, tables[0]) == _rows(spark, tables[1])


UNTYPED_HEADER = (
    "id",
    "ratio",
    "day",
    "seen_at",
    "seen_iso",
    "flag",
    "code",
    "mixed",
    "empty",
    "label",
    "whole",
    "tiny",
    "year0",
)
UNTYPED_CELLS = [
    line.split(",")
    for line in (
        "1,1.5,2024-01-05,2024-01-05 10:00:00,2024-01-05T10:00:00,true,007,1,,x,2.0,1e-3,"
        "0000-01-01",
        "2,2,2024-1-6,2024-01-06 11:30:15,2024-01-06T11:30:15.5,False,12,x,null, y ,100.00,2.50,"
        "2024-01-01",
        " 3 ,-0.25,,,,,,,,,1.5e1,,",
    )
]


@pytest.mark.parametrize("method", METHODS)
def test_columns_without_types_are_typed_as_dbt_does(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    """dbt types an unpinned column with agate's first type that reads every non-NULL cell
    (number, date, datetime, ISO datetime, boolean, text; all NULL: integer), mapped by
    dbt-spark (a number that is not whole: double, else bigint; 2.0 is whole)."""
    write_csv(dbt_project.root / "seeds" / "untyped.csv", UNTYPED_HEADER, UNTYPED_CELLS)
    dbt_project.write("seeds/untyped.yml", seed_properties("untyped", {}, seed_load_method=method))
    dbt_project.dbt("seed")
    table = dbt_project.table("untyped")
    assert _types(spark, table) == {
        "id": "bigint",
        "ratio": "double",
        "day": "date",
        "seen_at": "timestamp",
        "seen_iso": "timestamp",
        "flag": "boolean",
        "code": "bigint",  # dbt reads '007' as a number: pin column_types to keep the zeros
        "mixed": "string",
        "empty": "bigint",
        "label": "string",
        "whole": "bigint",  # 2.0, 100.00 and 1.5e1 are whole numbers to agate
        "tiny": "double",
        "year0": "string",  # no date to Python (agate) nor to PySpark, which cannot read it
    }
    day1, day2 = dt.date(2024, 1, 5), dt.date(2024, 1, 6)
    seen1, seen2 = dt.datetime(2024, 1, 5, 10), dt.datetime(2024, 1, 6, 11, 30, 15)
    iso2 = seen2.replace(microsecond=500000)
    assert _rows(spark, table) == [
        (1, 1.5, day1, seen1, seen1, True, 7, "1", None, "x", 2, 0.001, "0000-01-01"),
        (2, 2.0, day2, seen2, iso2, False, 12, "x", None, " y ", 100, 2.5, "2024-01-01"),
        (3, -0.25, None, None, None, None, None, None, None, None, 15, None, None),
    ]


@pytest.mark.parametrize("method", METHODS)
def test_infinities_nan_and_exponents_are_typed_as_dbt_does(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    """agate reads `inf`, `-INFINITY` and `-NaN` as numbers without places (its Decimal, which
    MaxPrecision skips), and counts an exponent's places on the exact Decimal: `1e-400` and
    `1.00000000000000001e0` are not whole (a double of either is), `1500.00e-2`, `150e-1`
    and `-.5e1` are. So a column of `NaN` and whole numbers is `bigint`, which cannot hold
    the NaN: the seed fails (stock dbt loads NULL) and writes nothing."""
    table = _seed(
        dbt_project,
        "special",
        ("id", "ratio", "tiny_exp", "precise", "whole_exp", "half_exp"),
        [
            ["1", "1.5", "1e-400", "1.00000000000000001e0", "1500.00e-2", "150e-2"],
            ["2", "inf", "3", "2", "150e-1", "1"],
            ["3", "-INFINITY", "", "", "0.0e-7", "1"],
            ["4", "-NaN", "", "", "-.5e1", "1"],
        ],
        {},
        seed_load_method=method,
    )
    _seed(
        dbt_project,
        "nan_count",
        ("id", "n"),
        [["1", "2"], ["2", "NaN"]],
        {},
        seed_load_method=method,
    )
    step = dbt_project.dbt("seed", check=False)
    results = {r.node.name: r for r in step.result.results}
    assert str(results["special"].status) == "success", results["special"].message
    assert _types(spark, table) == {
        "id": "bigint",
        "ratio": "double",
        "tiny_exp": "double",
        "precise": "double",
        "whole_exp": "bigint",
        "half_exp": "double",
    }
    rows = _rows(spark, table)
    assert [row[:2] for row in rows[:3]] == [(1, 1.5), (2, math.inf), (3, -math.inf)]
    assert rows[3][0] == 4 and math.isnan(rows[3][1])
    assert [row[2:] for row in rows] == [
        (0.0, 1.0, 15, 1.5),
        (3.0, 2.0, 15, 1.0),
        (None, None, 0, 1.0),
        (None, None, -5, 1.0),
    ]
    assert str(results["nan_count"].status) == "error"
    assert "column 'n' (bigint): the value 'NaN' is not a valid bigint" in (
        results["nan_count"].message
    )
    tables = {r.tableName for r in spark.sql(f"show tables in {dbt_project.schema}").collect()}
    assert "nan_count" not in tables


@pytest.mark.parametrize("method", METHODS)
def test_numbers_beyond_28_whole_digits_make_a_double_column_as_in_dbt(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    """agate counts a column's decimal places within Python's 28-digit decimal context: a
    whole number of more than 28 digits (1E28 and beyond) gives a count that is not 0, and
    stock dbt-spark makes the column `double`, where a `bigint` could not hold the value."""
    table = _seed(
        dbt_project,
        "huge",
        ("id", "big", "exp", "mixed"),
        [["1", "12345678901234567890123456789", "1e308", "1"], ["2", "", "-1E30", "1e28"]],
        {"id": "int"},
        seed_load_method=method,
    )
    dbt_project.dbt("seed")
    assert _types(spark, table) == {
        "id": "int",
        "big": "double",
        "exp": "double",
        "mixed": "double",
    }
    assert _rows(spark, table) == [(1, 1.2345678901234568e28, 1e308, 1.0), (2, None, -1e30, 1e28)]


@pytest.mark.parametrize("method", METHODS)
def test_iso_timestamps_to_the_minute_with_a_zone_are_timestamps(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    """dbt reads `2024-01-05T10:00Z` as a timestamp, Spark's cast only with the seconds
    (`...T10:00:00Z`) or without the zone: an unpinned column of such cells is a timestamp
    column, each the instant it names (the session's time zone is UTC)."""
    table = _seed(
        dbt_project,
        "minutes",
        ("id", "at"),
        [
            ["1", "2024-01-05T10:00Z"],
            ["2", "2024-01-05T10:00+02:00"],
            ["3", " 2024-01-06T11:30 "],
            ["4", "2024-01-06T23:15-0130"],
            ["5", ""],
        ],
        {"id": "int"},
        seed_load_method=method,
    )
    dbt_project.dbt("seed")
    assert _types(spark, table) == {"id": "int", "at": "timestamp"}
    assert _rows(spark, table) == [
        (1, dt.datetime(2024, 1, 5, 10, 0)),
        (2, dt.datetime(2024, 1, 5, 8, 0)),
        (3, dt.datetime(2024, 1, 6, 11, 30)),
        (4, dt.datetime(2024, 1, 7, 0, 45)),
        (5, None),
    ]


@pytest.mark.parametrize("method", METHODS)
def test_pinned_timestamps_take_the_iso_forms_inference_takes(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    """A column pinned to the type dbt would infer loads what the unpinned column loads: a
    `timestamp` takes `...T10:00Z` as the instant it names; a `timestamp_ntz` keeps its wall
    time, the zone dropped, as Spark's cast of `...T10:00:00Z` does."""
    table = _seed(
        dbt_project,
        "pinned_minutes",
        ("id", "at", "wall", "local"),
        [
            ["1", "2024-01-05T10:00Z", "2024-01-05T10:00Z", "2024-01-05T10:00Z"],
            ["2", "2024-01-05T10:00+02:00", "2024-01-05T10:00+02:00", "2024-01-05T10:00+02"],
            ["3", "2024-01-06 11:30:00", "2024-01-06T11:30", "2024-01-06T23:15-0130"],
            ["4", " 2024-01-05T10:00Z\t", "\x0b2024-01-05T10:00+02:00 ", ""],
            ["5", "", "null", " NULL "],
        ],
        {"id": "int", "at": " TIMESTAMP ", "wall": "Timestamp_NTZ", "local": "timestamp_ltz"},
        seed_load_method=method,
    )
    dbt_project.dbt("seed")
    assert _types(spark, table) == {
        "id": "int",
        "at": "timestamp",
        "wall": "timestamp_ntz",
        "local": "timestamp",
    }
    assert _rows(spark, table) == [
        (1, *[dt.datetime(2024, 1, 5, 10, 0)] * 3),
        (
            2,
            dt.datetime(2024, 1, 5, 8, 0),
            dt.datetime(2024, 1, 5, 10, 0),
            dt.datetime(2024, 1, 5, 8, 0),
        ),
        (
            3,
            dt.datetime(2024, 1, 6, 11, 30),
            dt.datetime(2024, 1, 6, 11, 30),
            dt.datetime(2024, 1, 7, 0, 45),
        ),
        (4, dt.datetime(2024, 1, 5, 10, 0), dt.datetime(2024, 1, 5, 10, 0), None),
        (5, None, None, None),
    ]


@pytest.mark.parametrize("method", METHODS)
def test_every_spelling_of_a_text_type_keeps_dbts_null_rule(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    """`character(n)` is Spark's `char(n)` (a string column): an empty, blank or `null` cell
    is NULL in it as in any text column, whichever loader reads the file."""
    table = _seed(
        dbt_project,
        "spellings",
        ("id", "a", "b", "c"),
        [["1", "abc", "de", "f"], ["2", "", "  ", " NULL "], ["3", "null", "", "Null"]],
        {"id": "int", "a": "character(5)", "b": "CHAR(4)", "c": "Varchar (3)"},
        seed_load_method=method,
    )
    dbt_project.dbt("seed")
    assert _types(spark, table) == {"id": "int", "a": "string", "b": "string", "c": "string"}
    assert _rows(spark, table) == [
        (1, "abc", "de", "f"),
        (2, None, None, None),
        (3, None, None, None),
    ]


def _day1(project: ScratchProject, method: str) -> str:
    write_csv(
        project.root / "seeds" / "daily.csv",
        ("id", "name", "amount"),
        [["1", "a", "1.5"], ["2", "b", "2.5"]],
    )
    project.write(
        "seeds/daily.yml",
        seed_properties("daily", {"id": "int", "amount": "double"}, seed_load_method=method),
    )
    project.dbt("seed")
    return project.table("daily")


@pytest.mark.parametrize("method", METHODS)
def test_bad_value_fails_and_leaves_yesterdays_table(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    table = _day1(dbt_project, method)
    before = _iceberg_state(spark, table)
    assert before[0] == [("1", "a", "1.5"), ("2", "b", "2.5")]

    write_csv(
        dbt_project.root / "seeds" / "daily.csv",
        ("id", "name", "amount"),
        [["1", "a", "1.5"], ["2", "b", "2.5"], ["3", "c", "abc"]],
    )
    for args in (("seed",), ("seed", "--full-refresh")):
        _assert_seed_failed(
            dbt_project.dbt(*args, check=False),
            "Seed 'daily'",
            "daily.csv",
            "column 'amount' (double)",
            "value 'abc'",
            "first column id is '3'",
            "column_types",
            "unchanged",
        )
        assert _iceberg_state(spark, table) == before


def _tables(spark: SparkSession, schema: str) -> list[str]:
    """The schema's tables and views (not the session's temporary views, which `show tables`
    lists too and which end with the session: a failed seed may leave its view over the file
    in a long-lived session such as this one, never in the catalog)."""
    rows = spark.sql(f"show tables in {schema}").collect()
    return sorted(row.tableName for row in rows if not row.isTemporary)


@pytest.mark.parametrize("method", METHODS)
def test_failed_seed_leaves_no_staging_table(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    """dbt's row batches used to go through a staging table named after the run, in the
    session's current schema, which a failed (or killed) seed left there for good: they are
    temporary views now."""
    table = _day1(dbt_project, method)
    before = _iceberg_state(spark, table)
    assert _tables(spark, dbt_project.schema) == ["daily"]
    # dbt-spark puts its temporary relations in the session's current schema.
    current = spark.catalog.currentDatabase()
    elsewhere = _tables(spark, current)
    write_csv(
        dbt_project.root / "seeds" / "daily.csv",
        ("id", "name", "amount"),
        [["1", "a", "1.5"], ["3", "c", "abc"]],
    )
    _assert_seed_failed(dbt_project.dbt("seed", check=False), "value 'abc'")
    assert _iceberg_state(spark, table) == before
    assert _tables(spark, dbt_project.schema) == ["daily"]
    assert _tables(spark, current) == elsewhere


@pytest.mark.parametrize("method", METHODS)
def test_column_types_naming_no_column_warn(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    """A column_types name that is not in the header (here: other case, misspelt) is ignored,
    as in stock dbt, but not silently; where warnings are errors the seed fails and writes
    nothing."""
    table = _day1(dbt_project, method)
    before = _iceberg_state(spark, table)
    write_csv(
        dbt_project.root / "seeds" / "daily.csv",
        ("id", "name", "amount", "code"),
        [["1", "a", "1.5", "007"], ["2", "b", "2.5", "010"]],
    )
    dbt_project.write(
        "seeds/daily.yml",
        seed_properties(
            "daily",
            {"id": "int", "amout": "decimal(10,2)", "Code": "string"},
            seed_load_method=method,
        ),
    )
    log = dbt_project.root / "logs" / "dbt.log"
    offset = log.stat().st_size
    # Warnings of macros as errors (the scratch project's unused config paths warn too).
    _assert_seed_failed(
        dbt_project.dbt(
            "seed", "--warn-error-options", '{"error": ["JinjaLogWarning"]}', check=False
        ),
        "Seed 'daily' (seeds/daily.csv): column_types names amout, Code,",
        "(its columns: id, name, amount, code)",
        "those entries are ignored",
        "case included",
    )
    assert _iceberg_state(spark, table) == before

    dbt_project.dbt("seed")
    assert logged_since(log, offset, "column_types names amout, Code, which the file's header")
    # The entries were ignored: dbt's inference types both columns (code '007' reads as 7).
    assert _types(spark, table) == {
        "id": "int",
        "name": "string",
        "amount": "double",
        "code": "bigint",
    }
    assert _rows(spark, table) == [(1, "a", 1.5, 7), (2, "b", 2.5, 10)]


@pytest.mark.parametrize("method", METHODS)
def test_column_types_that_name_no_loadable_type_fail_naming_them(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    """A length on a type that takes none, a misspelt type, a decimal beyond Spark's precision,
    a type no text casts to and an entry with no type fail the seed before anything is
    written, each entry named with what is wrong; Spark's spellings of the same types, in any
    case and spacing, load."""
    table = _day1(dbt_project, method)
    before = _iceberg_state(spark, table)
    header = ("id", "name", "amount", "code", "tags", "span")
    write_csv(
        dbt_project.root / "seeds" / "daily.csv",
        header,
        [["1", "a", "1.5", "7", "x", "p"], ["2", "b", "2.25", "10", "y", "q"]],
    )
    bad = {
        "id": "int(11)",
        "name": "VarChar( 8 )",
        "amount": "dubble",
        "code": "decimal(40,2)",
        "tags": "array<int>",
        "span": "",
    }
    dbt_project.write("seeds/daily.yml", seed_properties("daily", bad, seed_load_method=method))
    for args in (("seed",), ("seed", "--full-refresh")):
        _assert_seed_failed(
            dbt_project.dbt(*args, check=False),
            "Seed 'daily' (seeds/daily.csv): column_types gives 'id': 'int(11)' (int takes no"
            " length or other argument); 'amount': 'dubble' (not a Spark SQL type); 'code':"
            " 'decimal(40,2)' (a decimal's precision is 1 to 38); 'tags': 'array<int>' (Spark"
            " casts no text to an array, map or struct",
            "'span': nothing (no type). Write a type",
            "Nothing was written; the seed table is unchanged.",
        )
        assert _iceberg_state(spark, table) == before

    good = {
        "id": "Integer",
        "name": "VarChar( 8 )",
        "amount": "DECIMAL( 10 , 2 )",
        "code": "dec(5)",
        "tags": "String",
        "span": "CHAR(1)",
    }
    dbt_project.write("seeds/daily.yml", seed_properties("daily", good, seed_load_method=method))
    dbt_project.dbt("seed")
    types = _types(spark, table)
    assert (types["id"], types["amount"], types["code"]) == ("int", "decimal(10,2)", "decimal(5,0)")
    assert _rows(spark, table) == [
        (1, "a", Decimal("1.50"), Decimal("7"), "x", "p"),
        (2, "b", Decimal("2.25"), Decimal("10"), "y", "q"),
    ]


def test_malformed_file_fails_and_leaves_yesterdays_table(
    dbt_project: ScratchProject, spark: SparkSession
) -> None:
    table = _day1(dbt_project, "spark_csv")
    before = _iceberg_state(spark, table)
    # A record with more cells than the header (an unquoted comma), then one with fewer, in
    # a file read line by line and in one read whole (it has a `"`).
    for text, record in [
        ("id,name,amount\n1,a,1.5\n2,b,c,2.5\n", "2,b,c,2.5"),
        ('id,name,amount\n1,"a",1.5\n2,b\n', "2,b"),
    ]:
        (dbt_project.root / "seeds" / "daily.csv").write_text(text)
        step = dbt_project.dbt("seed", check=False)
        _assert_seed_failed(
            step,
            f"Seed 'daily' (seeds/daily.csv): the record '{record}' does not have the header's "
            "3 cells (id, name, amount)",
            "Nothing was written; the seed table is unchanged.",
        )
        # dbt's own error, the message on top: met first by the type inference of the
        # unpinned column `name`, it was dbt's "Unhandled error", the message deep in a trace.
        message = str(step.result.results[0].message)
        assert message.startswith("Runtime Error in seed daily"), message[:300]
        assert message.index("Seed 'daily'") < 600, message[:600]
        assert _iceberg_state(spark, table) == before


def test_a_file_read_whole_skips_blank_lines_and_takes_its_line_ends_from_the_header(
    dbt_project: ScratchProject, spark: SparkSession
) -> None:
    """A file with a `"` is read whole (quoted cells may span lines): a line of blanks is
    skipped there too, as in a file read line by line; rows ending in CRLF after a header
    ending in LF keep no CR; a header ending in CRLF before rows ending in LF fails, saying
    why, and leaves the table as it was."""
    path = dbt_project.root / "seeds" / "mixed.csv"
    dbt_project.write("seeds/mixed.yml", seed_properties("mixed", {"id": "int"}))
    path.write_bytes(b'id,name\n1,"a\r\nb"\r\n   \r\n2,b\r\n3,c\n \t\n4,"d"\r\n')
    step = dbt_project.dbt("seed")
    assert step.result.results[0].message == "CREATE 4"
    table = dbt_project.table("mixed")
    assert _rows(spark, table) == [(1, "a\r\nb"), (2, "b"), (3, "c"), (4, "d")]

    before = _iceberg_state(spark, table)
    path.write_bytes(b'id,name\r\n1,"a"\n2,b\n3,c\n')
    step = dbt_project.dbt("seed", check=False)
    _assert_seed_failed(
        step,
        "Seed 'mixed' (seeds/mixed.csv): the record '",
        "Its lines end otherwise than the header line",
        "Nothing was written; the seed table is unchanged.",
    )
    assert _iceberg_state(spark, table) == before


# dbt's own reader (agate, sql_inserts) warns that the empty file names no columns.
@pytest.mark.filterwarnings("ignore::RuntimeWarning:agate")
@pytest.mark.parametrize("method", METHODS)
def test_file_without_header_fails_and_leaves_yesterdays_table(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    """An emptied file (or one of blank lines, or a byte-order mark alone, as an empty
    "CSV UTF-8" export holds) has no columns: a clear error, nothing written, no temporary
    view left behind in the session."""
    table = _day1(dbt_project, method)
    before = _iceberg_state(spark, table)
    for text in ("", "\n\n", "\ufeff", "\ufeff\n\n"):
        (dbt_project.root / "seeds" / "daily.csv").write_text(text)
        step = dbt_project.dbt("seed", check=False)
        message = step.result.results[0].message
        assert str(step.result.results[0].status) == "error"
        assert "Seed 'daily' (seeds/daily.csv): the file has no header row" in message, message
        assert "unchanged" in message
        assert _iceberg_state(spark, table) == before
        # The run's view over the file (named after its invocation id) is gone.
        run_suffix = step.invocation_id.replace("-", "_")
        views = [row.viewName for row in spark.sql("show views").collect()]
        assert not [name for name in views if name.endswith(run_suffix)], views


def test_header_names_differing_only_in_case_fail_the_row_batches(
    dbt_project: ScratchProject, spark: SparkSession
) -> None:
    """dbt's reader (agate, sql_inserts) keeps `name` and `Name` apart; to Spark they are one
    column. The seed fails naming both, and yesterday's table stays as it was. (Spark's CSV
    reader renames them itself: test_column_names_are_the_ones_sparks_reader_gives.)"""
    table = _day1(dbt_project, "sql_inserts")
    before = _iceberg_state(spark, table)
    (dbt_project.root / "seeds" / "daily.csv").write_text("id,name,Name,amount\n3,c,C,3.5\n")
    step = dbt_project.dbt("seed", check=False)
    _assert_seed_failed(
        step,
        "Seed 'daily' (seeds/daily.csv): the header names columns that differ only in case",
        "('name' and 'Name')",
        "Nothing was written; the seed table is unchanged.",
    )
    assert _iceberg_state(spark, table) == before


def test_bad_load_method_fails_before_anything_is_written(
    dbt_project: ScratchProject, spark: SparkSession
) -> None:
    table = _day1(dbt_project, "spark_csv")
    before = _iceberg_state(spark, table)
    dbt_project.write(
        "seeds/daily.yml",
        seed_properties("daily", {"id": "int"}, seed_load_method="fastest"),
    )
    step = dbt_project.dbt("seed", check=False)
    message = step.result.results[0].message
    assert "seed_load_method must be one of spark_csv, sql_inserts, got 'fastest'" in message
    assert _iceberg_state(spark, table) == before


def test_new_columns_and_types_replace_the_table_keeping_its_history(
    dbt_project: ScratchProject, spark: SparkSession
) -> None:
    """Like stock dbt-spark, each seed re-creates the table from its file (a new column, a
    dropped one, a new type), but in one commit on the same Iceberg table."""
    table = _day1(dbt_project, "spark_csv")
    day1_snapshots = _iceberg_state(spark, table)[1]
    write_csv(
        dbt_project.root / "seeds" / "daily.csv",
        ("id", "amount", "region"),
        [["1", "3", "north"], ["5", "4", "south"]],
    )
    dbt_project.write("seeds/daily.yml", seed_properties("daily", {"amount": "decimal(10,2)"}))
    dbt_project.dbt("seed")
    assert _types(spark, table) == {"id": "bigint", "amount": "decimal(10,2)", "region": "string"}
    assert _rows(spark, table) == [(1, 3, "north"), (5, 4, "south")]
    day2_snapshots = _iceberg_state(spark, table)[1]
    assert day2_snapshots[: len(day1_snapshots)] == day1_snapshots
    assert len(day2_snapshots) == len(day1_snapshots) + 1


def test_seeds_in_other_formats_keep_their_table_on_failure(
    dbt_project: ScratchProject, spark: SparkSession
) -> None:
    """A parquet seed is dropped and created (Spark replaces no parquet table in one
    commit): a bad value dropped it first, under a message saying the table was unchanged.
    The checks now run before the drop. An Iceberg seed switched to parquet was dropped, and
    its folder, which Iceberg's drop leaves, failed the create: the table was lost. That
    switch is refused, writing nothing; the other way round works."""
    table = dbt_project.table("daily")
    header = ("id", "name", "amount")
    day1 = [["1", "a", "1.5"], ["2", "b", "2.5"]]

    def seed(rows: list[list[str]], file_format: str, check: bool = True) -> DbtStep:
        write_csv(dbt_project.root / "seeds" / "daily.csv", header, rows)
        dbt_project.write(
            "seeds/daily.yml",
            seed_properties("daily", {"id": "int", "amount": "double"}, file_format=file_format),
        )
        return dbt_project.dbt("seed", check=check)

    seed(day1, "parquet")
    loaded = [(1, "a", 1.5), (2, "b", 2.5)]
    assert _rows(spark, table) == loaded
    bad = [*day1, ["3", "c", "abc"]]
    failed = seed(bad, "parquet", check=False)
    _assert_seed_failed(failed, "value 'abc'", "unchanged")
    # dbt's error for the seed, as for a failing load, not its "Unhandled error".
    assert str(failed.result.results[0].message).startswith("Runtime Error in seed daily")
    assert _rows(spark, table) == loaded

    # What Spark refuses only as it creates the table failed after the drop, the table lost:
    # a header name with a comma (the Hive metastore holds none), a partition column the file
    # lacks. Refused before the drop now.
    write_csv(dbt_project.root / "seeds" / "daily.csv", ("id", "na,me", "amount"), day1)
    failed = dbt_project.dbt("seed", check=False)
    _assert_seed_failed(failed, "contains commas")
    assert _rows(spark, table) == loaded
    write_csv(dbt_project.root / "seeds" / "daily.csv", header, day1)
    dbt_project.write(
        "seeds/daily.yml",
        seed_properties(
            "daily", {"id": "int", "amount": "double"}, file_format="parquet",
            partition_by="[region]",
        ),
    )  # fmt: skip
    _assert_seed_failed(dbt_project.dbt("seed", check=False), "region")
    assert _rows(spark, table) == loaded
    # The definition's trial table is gone, after a failure as after a success.
    probe = f"{table}__scd2_seed_probe"
    assert not spark.catalog.tableExists(probe)
    seed(day1, "parquet")
    assert _rows(spark, table) == loaded and not spark.catalog.tableExists(probe)

    # parquet to iceberg: the checks, then the drop and the create.
    _assert_seed_failed(seed(bad, "iceberg", check=False), "value 'abc'", "unchanged")
    assert _rows(spark, table) == loaded
    seed([["1", "a", "1.5"], ["4", "d", "4.5"]], "iceberg")
    state = _iceberg_state(spark, table)
    assert state[0] == [("1", "a", "1.5"), ("4", "d", "4.5")]

    # iceberg to parquet: refused.
    _assert_seed_failed(
        seed(day1, "parquet", check=False),
        "Seed 'daily'",
        "is an Iceberg table, and the seed's file_format is now 'parquet'",
        "Nothing was written",
        "purge",
    )
    assert _iceberg_state(spark, table) == state


def test_a_parquet_seed_at_a_location_of_its_own_and_a_capitalised_format(
    dbt_project: ScratchProject, spark: SparkSession, tmp_path: Path
) -> None:
    """A parquet seed with location_root: its drop left its files, where Spark creates no table
    as a select, so the second run dropped the table and failed, and so did every later one.
    Its files are overwritten; a bad value or other columns leave it as it was. A seed whose
    file_format is `Iceberg` (Spark reads the name in any case) was refused on its second
    run as a switch of format."""
    table = dbt_project.table("daily")
    header = ("id", "name", "amount")

    def seed(rows: list[list[str]], check: bool = True, columns=header, **config: str) -> DbtStep:
        write_csv(dbt_project.root / "seeds" / "daily.csv", columns, rows)
        dbt_project.write(
            "seeds/daily.yml", seed_properties("daily", {"id": "int", "amount": "double"}, **config)
        )
        return dbt_project.dbt("seed", check=check)

    located = {"file_format": "parquet", "location_root": str(tmp_path / "seeds_at")}
    seed([["1", "a", "1.5"], ["2", "b", "2.5"]], **located)
    step = seed([["3", "c", "3.5"]], **located)
    assert [r.message for r in step.result.results] == ["INSERT 1"]
    assert _rows(spark, table) == [(3, "c", 3.5)]
    _assert_seed_failed(seed([["4", "d", "abc"]], False, **located), "value 'abc'", "unchanged")
    wider = (*header, "region")
    _assert_seed_failed(
        seed([["4", "d", "4.5", "north"]], False, wider, **located),
        "(location_root), with the columns id int, name string, amount double",
        "Nothing was written",
    )
    # A column whose type the file changes (name inferred as bigint): its values would be
    # cast to the table's type, or fail after the overwrite had deleted the files.
    _assert_seed_failed(
        seed([["4", "5", "4.5"]], False, **located),
        "name string",
        "the file gives id int, name bigint, amount double",
        "Pin the types in column_types",
    )
    assert _rows(spark, table) == [(3, "c", 3.5)]
    assert spark.sql(f"describe formatted {table}").where("col_name = 'Provider'").first()[1] == (
        "parquet"
    )

    # Partitioned, in a session whose inserts overwrite partitions dynamically (as dbt-spark's
    # insert_overwrite models leave it): the region the file no longer has goes too.
    parted = dbt_project.table("parted")
    mode = "spark.sql.sources.partitionOverwriteMode"
    for day in ([["1", "north"], ["2", "south"]], [["3", "north"]]):
        write_csv(dbt_project.root / "seeds" / "parted.csv", ("id", "region"), day)
        dbt_project.write(
            "seeds/parted.yml",
            seed_properties("parted", {}, partition_by="region", **located),
        )
        spark.conf.set(mode, "dynamic")
        try:
            dbt_project.dbt("seed", "--select", "parted")
            assert spark.conf.get(mode) == "dynamic"  # put back
        finally:
            spark.conf.set(mode, "static")
    assert _rows(spark, parted) == [(3, "north")]

    capitalised = dbt_project.table("cased")
    for day in (["1", "a", "1.5"], ["2", "b", "2.5"]):
        write_csv(dbt_project.root / "seeds" / "cased.csv", header, [day])
        dbt_project.write("seeds/cased.yml", seed_properties("cased", {}, file_format="Iceberg"))
        dbt_project.dbt("seed", "--select", "cased")
    assert _rows(spark, capitalised) == [(2, "b", 2.5)]
    assert len(_iceberg_state(spark, capitalised)[1]) == 2  # replaced in one commit, twice


@pytest.mark.parametrize("method", METHODS)
def test_empty_seed_and_full_refresh(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    dbt_project.write_seed("only_header", "id,name", [])
    dbt_project.write(
        "seeds/only_header.yml", seed_properties("only_header", {}, seed_load_method=method)
    )
    dbt_project.dbt("seed", "--full-refresh")
    table = dbt_project.table("only_header")
    assert _types(spark, table) == {"id": "bigint", "name": "bigint"}
    assert _rows(spark, table) == []


@pytest.mark.slow
def test_killed_seed_leaves_yesterdays_table(tmp_path: Path) -> None:
    """A `dbt seed` killed (SIGKILL, Python and JVM) while it writes the table: the table keeps
    yesterday's rows and Iceberg snapshots; the next seed loads today's file."""
    lake, project = tmp_path / "lakehouse", tmp_path / "project"
    env = {**os.environ, "LAKEHOUSE_DIR": str(lake), "PYTHONPATH": str(PROJECT_ROOT)}
    driver = [sys.executable, "-m", "tests.seed_driver", "--project", str(project)]

    # One process does day 1 and then day 2's seed, which the test kills once dbt.log, past
    # day 1's part, shows the table being written.
    output, log = tmp_path / "setup.out", project / "logs" / "dbt.log"
    with output.open("w") as out:
        process = subprocess.Popen(
            [*driver, "setup"],
            env=env,
            cwd=PROJECT_ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for(lambda: bool(results(output.read_text())), process, "day 1", output, 600)
        (day1,) = results(output.read_text())

        def writing() -> bool:
            return logged_since(log, day1["log_offset"], "create or replace table")

        wait_for(writing, process, "day 2's seed wrote (make the file larger)", output, 300)
        time.sleep(1.0)  # inside the write of the table
        os.killpg(process.pid, signal.SIGKILL)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
    assert process.returncode == -signal.SIGKILL

    verify = subprocess.run(
        [*driver, "verify"], env=env, capture_output=True, text=True, timeout=600, cwd=PROJECT_ROOT
    )
    assert verify.returncode == 0, verify.stderr[-3000:]
    assert "RESULT after_kill rows=1000 snapshots=1" in verify.stdout, verify.stdout
    assert "RESULT after_rerun rows=300000 snapshots=2" in verify.stdout, verify.stdout


def test_show_samples_the_loaded_table(dbt_project: ScratchProject) -> None:
    """`dbt seed --show` prints a sample read back from the table (the file is never read
    into Python on the fast path); without --show no rows are fetched."""
    dbt_project.write_seed("shown", "id,name", ["1,O'Brien", '2,"a, b"', "3,"])
    shown = dbt_project.dbt("seed", "--show").result.results[0].agate_table
    assert sorted(tuple(row) for row in shown.rows) == [(1, "O'Brien"), (2, "a, b"), (3, None)]
    quiet = dbt_project.dbt("seed").result.results[0].agate_table
    assert len(quiet.rows) == 0
    # dbt show --select loads the seed too (dbt's SeedRunner) and previews up to --limit rows.
    preview = dbt_project.dbt("show", "--select", "shown", "--limit", "2").result.results[0]
    assert len(preview.agate_table.rows) == 2
    assert {tuple(row) for row in preview.agate_table.rows} < {
        (1, "O'Brien"),
        (2, "a, b"),
        (3, None),
    }


@pytest.mark.parametrize("method", METHODS)
def test_delimiter_and_windows_line_endings(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    """A `;`-delimited file saved with CRLF line endings: the delimiter inside quotes is text,
    and a line break inside a quoted cell reads as `\\n`, as Python's csv module (dbt) reads it
    with universal newlines."""
    text = 'id;name;amount\r\n1;"a;b";1,5\r\n2;"two\r\nlines";\r\n3;plain;"2.25"\r\n'
    (dbt_project.root / "seeds" / "semicolons.csv").write_bytes(text.encode())
    dbt_project.write(
        "seeds/semicolons.yml",
        seed_properties(
            "semicolons",
            {"id": "int", "amount": "string"},
            seed_load_method=method,
            delimiter='";"',
        ),
    )
    dbt_project.dbt("seed")
    assert _rows(spark, dbt_project.table("semicolons")) == [
        (1, "a;b", "1,5"),
        (2, "two\nlines", None),
        (3, "plain", "2.25"),
    ]


@pytest.mark.parametrize("method", METHODS)
def test_a_backslash_delimiter(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    """A seed `delimiter` of one backslash, which Python's csv module (dbt) reads, and Spark's
    CSV reader refuses as the start of an escape unless it is doubled."""
    text = 'id\\name\\amount\n1\\a,b\\1.5\n2\\"x\\y"\\2.5\n'
    (dbt_project.root / "seeds" / "backslashes.csv").write_text(text)
    dbt_project.write(
        "seeds/backslashes.yml",
        seed_properties("backslashes", {"id": "int"}, seed_load_method=method, delimiter="'\\'"),
    )
    dbt_project.dbt("seed")
    assert _rows(spark, dbt_project.table("backslashes")) == [(1, "a,b", 1.5), (2, "x\\y", 2.5)]


def test_blank_lines_are_skipped_and_not_counted(
    dbt_project: ScratchProject, spark: SparkSession
) -> None:
    """Without a `"` in the file, the seed's result counts the records from its scan of the
    file's lines: blank and whitespace-only lines (skipped by the CSV reader; stock dbt loads
    each as a row of NULLs) count as nothing, with LF, CRLF and CR line ends. In a file of one
    column read whole (it has a `"`), a line of spaces is that column's blank cell, a row with
    NULL, as in stock dbt; an empty line is skipped there too."""
    text = "id,name\n1,a\n\n2,b\r\n   \r\n\t\r3,c\n\n"
    (dbt_project.root / "seeds" / "gappy.csv").write_bytes(text.encode())
    dbt_project.write("seeds/gappy.yml", seed_properties("gappy", {"id": "int"}))
    step = dbt_project.dbt("seed")
    assert step.result.results[0].message == "CREATE 3"
    assert _rows(spark, dbt_project.table("gappy")) == [(1, "a"), (2, "b"), (3, "c")]
    (dbt_project.root / "seeds" / "single.csv").write_bytes(b'name\n"a"\n\n   \nb\n')
    dbt_project.dbt("seed", "--select", "single")
    assert _rows(spark, dbt_project.table("single"), "name nulls first") == [
        (None,),
        ("a",),
        ("b",),
    ]


@pytest.mark.parametrize(
    "header",
    [
        "id,name,amount",
        "id,Id,amount",
        "id,,amount",
        "\ufeffid,name,amount",
        "id, name,amount",
        'id,"na,me","x"',
        'id,"",name',
        "id,a,a",
        "id,a`b,amount",
    ],
    ids=[
        "plain",
        "same-name-other-case",
        "empty-name",
        "byte-order-mark",
        "spaced-name",
        "quoted-names",
        "quoted-empty-name",
        "repeated-name",
        "backtick",
    ],
)
def test_column_names_are_the_ones_sparks_reader_gives(
    dbt_project: ScratchProject, spark: SparkSession, header: str
) -> None:
    """The header, read by the seed's scan (plain names) or by Spark's CSV reader (anything
    else), gives the columns Spark's own reader gives the same file."""
    path = dbt_project.root / "seeds" / "headed.csv"
    path.write_text(f"{header}\n1,2,3\n4,5,6\n", encoding="utf-8")
    dbt_project.dbt("seed")
    expected = spark.read.option("header", True).csv(path.as_uri()).columns
    table = dbt_project.table("headed")
    assert spark.table(table).columns == expected
    assert spark.sql(f"select count(*) from {table}").first()[0] == 2


def test_headers_spark_cannot_take_fail_naming_the_column(
    dbt_project: ScratchProject, spark: SparkSession
) -> None:
    """`id,a,a,a1`: Spark's reader names the repeated `a`s `a1` and `a2`, and the load failed
    with COLUMN_ALREADY_EXISTS naming `a1`, a name the file has once. `${env:HOME}`: Spark
    substitutes it in the statement's text, and the column was named after the home folder
    (with either loader: the row batches send the names in their SQL too). Each seed fails,
    saying why, and writes nothing."""
    dbt_project.write_seed("renamed", "id,a,a,a1", ["1,2,3,4"])
    dbt_project.write_seed("substituted", "id,${env:HOME}", ["1,2"])
    dbt_project.write_seed("substituted_rows", "id,${env:HOME}", ["1,2"])
    dbt_project.write(
        "seeds/substituted_rows.yml",
        seed_properties("substituted_rows", {}, seed_load_method="sql_inserts"),
    )
    step = dbt_project.dbt("seed", check=False)
    messages = {r.node.name: (str(r.status), r.message) for r in step.result.results}
    assert messages["renamed"][0] == "error"
    assert "the header's column name 'a1' is there twice" in messages["renamed"][1]
    assert ": id, a1, a2, a1. Rename the column" in messages["renamed"][1]
    for name in ("substituted", "substituted_rows"):
        assert messages[name][0] == "error"
        assert "the header's column name '${env:HOME}' contains ${" in messages[name][1]
        assert ": id, ${env:HOME}. Rename the column" in messages[name][1]
    tables = {r.tableName for r in spark.sql(f"show tables in {dbt_project.schema}").collect()}
    assert not {"renamed", "substituted", "substituted_rows"} & tables


def test_seeds_of_one_alias_and_in_glob_folders_load_their_own_file(
    spark: SparkSession, tmp_path: Path
) -> None:
    """Seeds that load side by side (dbt's 4 threads) each read their own file:
    - `x_rates` and `y_rates`, both aliased `rates`, in two schemas: each read its file
      through a temporary view named after the seed's identifier, so the two shared one view
      and loaded each other's rows;
    - the project sits in a folder named `g*[1]`: Spark reads `* ? [ ] { }` in a path as a
      glob, so the seed's path also matched the same file in a sibling folder `gold1`, and
      the path of a seed in a folder named `[br]` matched nothing."""
    root = tmp_path / "g*[1]"
    project = ScratchProject(root, "seed_one_alias", spark)
    other = tmp_path / "gold1" / "seeds" / "x"
    other.mkdir(parents=True)
    (other / "x_rates.csv").write_text("region,rate\nOTHER,99\n")
    for name, rows in (
        ("x/x_rates", [f"x,{n}" for n in range(5)]),
        ("y/y_rates", [f"y,{n}" for n in range(3)]),
        ("[br]/bracketed", ["br,1"]),
    ):
        project.write(f"seeds/{name}.csv", "\n".join(["region,rate", *rows]) + "\n")
    project.write(
        "seeds/properties.yml",
        """
        version: 2
        seeds:
          - name: x_rates
            config: {alias: rates, schema: x}
          - name: y_rates
            config: {alias: rates, schema: y}
        """,
    )
    step = project.dbt("seed")
    assert {r.node.name: r.message for r in step.result.results} == {
        "x_rates": "CREATE 5",
        "y_rates": "CREATE 3",
        "bracketed": "CREATE 1",
    }
    assert _rows(spark, "seed_one_alias_x.rates", "rate") == [("x", n) for n in range(5)]
    assert _rows(spark, "seed_one_alias_y.rates", "rate") == [("y", n) for n in range(3)]
    assert _rows(spark, "seed_one_alias.bracketed", "rate") == [("br", 1)]


def test_a_project_moved_with_its_saved_parse_loads_the_seed_from_its_new_folder(
    spark: SparkSession, tmp_path: Path
) -> None:
    """A project copied with its target/ folder (an image built with it, a cached checkout),
    the old folder then gone: dbt's saved parse keeps each seed's old root, and the seed read
    the old folder's file (here: PATH_NOT_FOUND). It reads the file of the project dbt runs."""
    old = ScratchProject(tmp_path / "old", "seed_moved_project", spark)
    old.write("seeds/regions.csv", "region,rate\nnorth,1\n")
    assert [r.message for r in old.dbt("seed").result.results] == ["CREATE 1"]
    assert (old.root / "target" / "partial_parse.msgpack").exists()
    shutil.copytree(old.root, tmp_path / "new")
    shutil.rmtree(old.root)
    new = ScratchProject(tmp_path / "new", "seed_moved_project", spark)
    # The file unchanged (dbt parses a changed one again, with its new root).
    assert [r.message for r in new.dbt("seed").result.results] == ["INSERT 1"]
    assert _rows(spark, "seed_moved_project.regions", "rate") == [("north", 1)]
    new.write("seeds/regions.csv", "region,rate\nsouth,2\neast,3\n")
    assert [r.message for r in new.dbt("seed").result.results] == ["INSERT 2"]
    assert _rows(spark, "seed_moved_project.regions", "rate") == [("south", 2), ("east", 3)]


def test_a_relative_project_dir_loads_the_seed_from_the_working_directory(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`dbt seed --project-dir .`, as typed in the project's folder: dbt keeps the relative
    root (`root_path` '.', kept by partial parsing for later runs too), and Spark read
    `file://./seeds/...` as a host named '.' and failed. The file is read from the shell's
    working directory; without one (no PWD), the seed fails saying what to do."""
    from python_helpers.runtime.dbt_invoke import run_dbt

    project = ScratchProject(tmp_path / "here", "seed_relative_dir", spark)
    project.write("seeds/regions.csv", "region,rate\nnorth,1\nsouth,2\n")
    # The project's folder is not the JVM's: a path Spark resolved against its own working
    # directory (where pytest started) would find no file.
    monkeypatch.chdir(project.root)
    monkeypatch.setenv("PWD", str(project.root))
    monkeypatch.setenv("DBT_SCHEMA", project.schema)
    step = run_dbt(["seed", "--no-partial-parse"], project_dir=Path("."))
    assert [r.message for r in step.result.results] == ["CREATE 2"]
    assert _rows(spark, "seed_relative_dir.regions", "rate") == [("north", 1), ("south", 2)]
    # Partial parsing keeps the relative root; the next run, changed file, loads it too.
    project.write("seeds/regions.csv", "region,rate\neast,3\n")
    step = run_dbt(["seed"], project_dir=Path("."))
    assert [r.message for r in step.result.results] == ["INSERT 1"]
    assert _rows(spark, "seed_relative_dir.regions", "rate") == [("east", 3)]
    # No working directory to read it from: a clear failure, the table as it was.
    monkeypatch.delenv("PWD")
    project.write("seeds/regions.csv", "region,rate\nwest,4\n")
    step = run_dbt(["seed"], project_dir=Path("."), check=False)
    _assert_seed_failed(step, "relative path '.'", "absolute --project-dir", "unchanged")
    assert _rows(spark, "seed_relative_dir.regions", "rate") == [("east", 3)]


@pytest.mark.parametrize("method", METHODS)
def test_a_pinned_date_takes_a_time_but_not_other_text_after_it(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    """Spark's cast to a date reads the date at the text's start and ignores what follows a
    blank or a T, so `2024-01-05 not a date` loaded as 2024-01-05 without a word. A pinned
    date keeps the date of a cell with a time or an offset (docs/seeds.md); other text after
    it fails the seed, naming the value, and leaves the table as it was."""
    header = "id,d"
    good = [
        "1,2024-01-05",
        "2,2024-01-05 10:00:00",
        "3,2024-01-05T23:30:00+02:00",
        "4,2024-01-05T10:00Z",
        "5,2024",
        "6, 2024-1-5 ",
        "7,",
    ]
    dbt_project.write_seed("dates", header, good)
    dbt_project.write(
        "seeds/dates.yml", seed_properties("dates", {"d": "date"}, seed_load_method=method)
    )
    dbt_project.dbt("seed")
    day = dt.date(2024, 1, 5)
    loaded = [(1, day), (2, day), (3, day), (4, day), (5, dt.date(2024, 1, 1)), (6, day), (7, None)]
    assert _rows(spark, dbt_project.table("dates")) == loaded
    for value in ("2024-01-05 not a date", "2024-01-05T99", "2024-1-5T", "2024-01-05 24:00"):
        dbt_project.write_seed("dates", header, [f"1,{value}"])
        step = dbt_project.dbt("seed", check=False)
        _assert_seed_failed(step, f"the value '{value}' is not a valid date", "unchanged")
        assert _rows(spark, dbt_project.table("dates")) == loaded
    # A row whose first cell has no value is said so (it was quoted as 'null').
    dbt_project.write_seed("dates", header, [",2024-01-05 junk"])
    step = dbt_project.dbt("seed", check=False)
    no_value = "(no value: an empty, blank or null cell)"
    _assert_seed_failed(step, f"in the row whose first column id is '{no_value}'")
    assert _rows(spark, dbt_project.table("dates")) == loaded


@pytest.mark.parametrize("method", METHODS)
def test_whole_numbers_with_zero_fractions_load_into_integer_types(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    """Stock dbt-spark casts a pinned int column's text: `2.0` loads as 2, `.0` as 0. An
    integer type takes a whole number written with zero fractions; `1.5`, a lone `.` (which
    that cast makes 0) and an exponent still fail. The message quotes up to 200 characters
    of the value."""
    dbt_project.write_seed(
        "wholes",
        "id,n,m",
        ["1,2.0,-3.", "2, 7 ,+5.00", "3,,0", "4,.0,-.00", "5,+.0,0.", "6,\t.0,-.0\x7f"],
    )
    dbt_project.write(
        "seeds/wholes.yml",
        seed_properties(
            "wholes", {"id": "int", "n": "int", "m": "bigint"}, seed_load_method=method
        ),
    )
    dbt_project.dbt("seed")
    loaded = [(1, 2, -3), (2, 7, 5), (3, None, 0), (4, 0, 0), (5, 0, 0), (6, 0, 0)]
    assert _rows(spark, dbt_project.table("wholes")) == loaded
    for value in ("1.5", ".", "+.", "-.", "1e2"):
        dbt_project.write_seed("wholes", "id,n,m", [f"1,{value},0"])
        step = dbt_project.dbt("seed", check=False)
        _assert_seed_failed(step, f"the value '{value}' is not a valid int")
        assert _rows(spark, dbt_project.table("wholes")) == loaded
    dbt_project.write_seed("wholes", "id,n,m", [f"1,{'9' * 300},0"])
    step = dbt_project.dbt("seed", check=False)
    _assert_seed_failed(
        step, f"the value '{'9' * 200}...' is not a valid int (malformed, or beyond"
    )
    assert "9" * 201 not in step.result.results[0].message
    assert _rows(spark, dbt_project.table("wholes")) == loaded


@pytest.mark.parametrize("method", METHODS)
def test_whole_numbers_with_zero_fractions_and_control_blanks_load_into_integer_types(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    """Spark's cast, as stock dbt-spark runs it, skips the code points up to U+0020 and U+007F
    around a number (a tab, a vertical tab, U+001C, DEL), not spaces alone: stock dbt-spark
    loads a pinned int's 2.0 after a tab as 2, and so does this seed."""
    table = _seed(
        dbt_project,
        "wholes",
        ("id", "n", "m"),
        [
            ["1", "\t2.0", "3.0\x0b"],
            ["2", "\x1c-4.", "5.00\t"],
            ["3", " 6.0 ", "\x017"],
            ["4", "8.0\x7f", "\x7f9."],
        ],
        {"id": "int", "n": "int", "m": "bigint"},
        seed_load_method=method,
    )
    dbt_project.dbt("seed")
    assert _rows(spark, table) == [(1, 2, 3), (2, -4, 5), (3, 6, 7), (4, 8, 9)]


def test_bytes_that_are_not_utf8_fail_and_leave_yesterdays_table(
    dbt_project: ScratchProject, spark: SparkSession
) -> None:
    """Spark's CSV reader puts U+FFFD for bytes that are not UTF-8 and says nothing; dbt's own
    reader fails on such a file. Files over 1 MiB, which dbt's parser does not read. Every
    text type is checked: `code` is a `character(5)`, Spark's other spelling of `char(5)`."""
    padding = [f"{n},{n:>1000},ab" for n in range(2, 1_100)]
    path = dbt_project.write_seed("latin", "id,name,code", ["1,Jose,ab", *padding])
    dbt_project.write(
        "seeds/latin.yml", seed_properties("latin", {"id": "int", "code": "character(5)"})
    )
    dbt_project.dbt("seed")
    table = dbt_project.table("latin")
    before = _iceberg_state(spark, table)
    good = path.read_bytes()
    for bad, cells in (
        (b"1,Jos\xe9,ab", "'Jos\ufffd', 'ab'"),
        (b"1,Jose,a\xe9", "'Jose', 'a\ufffd'"),
    ):
        path.write_bytes(good.replace(b"1,Jose,ab", bad))
        step = dbt_project.dbt("seed", check=False)
        _assert_seed_failed(
            step,
            "the row whose first column id is '1' holds U+FFFD",
            f"in its text cells {cells}. Save the file as UTF-8",
        )
        assert _iceberg_state(spark, table) == before
    # A header cell of such bytes fails the same way, before any Spark job reads the rows.
    path.write_bytes(path.read_bytes().replace(b"id,name", b"id,n\xe4me", 1))
    step = dbt_project.dbt("seed", check=False)
    _assert_seed_failed(step, "the header's column name 'n\ufffdme' holds U+FFFD")
    assert _iceberg_state(spark, table) == before


def test_a_file_spark_reads_otherwise_than_dbt_fails_and_leaves_yesterdays_table(
    dbt_project: ScratchProject, spark: SparkSession
) -> None:
    """A server or cluster on another machine reads its own copy of the project at the path
    dbt sees, if it has one: the seed compares the file Spark reads with dbt's hash of it
    (files up to 1 MiB) instead of loading that copy. Stood in for here by a file changed after
    dbt's parse, which dbt is told not to look for (`--no-partial-parse-file-diff`, as a
    deployment that hands dbt its file changes runs it)."""
    # dbt hashes the file's text stripped by Python's str.strip, which takes more than
    # Spark's trim off its ends (here the last cell's end) and leaves a byte-order mark: such
    # a file loads unhindered, the cell whole.
    text = "\ufeffid,name\n1,a\n2,b\t\u3000\x1c\u2029"
    path = dbt_project.root / "seeds" / "copies.csv"
    path.write_text(text, encoding="utf-8")
    dbt_project.write("seeds/copies.yml", seed_properties("copies", {"id": "int"}))
    dbt_project.dbt("seed")
    table = dbt_project.table("copies")
    assert _rows(spark, table) == [(1, "a"), (2, "b\t\u3000\x1c\u2029")]
    before = _iceberg_state(spark, table)

    path.write_text(text.replace("1,a", "1,z"), encoding="utf-8")
    step = dbt_project.dbt("seed", "--no-partial-parse-file-diff", check=False)
    _assert_seed_failed(
        step,
        "Seed 'copies' (seeds/copies.csv): Spark read another file at",
        f"{path} than the one dbt read there",
        "seed_load_method: sql_inserts",
        "unchanged",
    )
    assert _iceberg_state(spark, table) == before
    # Parsed again, dbt's hash is the file's: it loads.
    dbt_project.dbt("seed")
    assert _rows(spark, table) == [(1, "z"), (2, "b\t\u3000\x1c\u2029")]


@pytest.mark.parametrize("method", METHODS)
def test_a_unicode_line_separator_is_not_a_blank(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    """Java's `$` matches before a last U+0085, U+2028 or U+2029: a pinned int's `5.0` followed
    by one loaded as 5 (stock dbt-spark's cast gives NULL: it fails here, as `7\u2028` does),
    and a line of U+0085 alone was skipped as blank, the seed counting it as a row."""
    _seed(
        dbt_project,
        "seps",
        ("id", "n"),
        [["1", "5.0\u0085"]],
        {"n": "int"},
        seed_load_method=method,
    )
    _assert_seed_failed(
        dbt_project.dbt("seed", check=False), "the value '5.0\u0085' is not a valid int"
    )
    if method == "spark_csv":
        (dbt_project.root / "seeds" / "seps.csv").write_text("id,n\n1,5\n\u0085\n2,6\n")
        _assert_seed_failed(
            dbt_project.dbt("seed", check=False),
            "the record '\u0085' does not have the header's 2 cells",
        )


@pytest.mark.parametrize("method", METHODS)
def test_a_file_named_as_hadoop_hides_it(
    dbt_project: ScratchProject, spark: SparkSession, method: str
) -> None:
    """Spark's listing skips a file whose name starts with `_`: with Spark's reader such a
    seed fails saying so (it failed as another file than dbt's), dbt's row batches load it."""
    _seed(dbt_project, "_lookup", ("id", "v"), [["1", "a"]], {"id": "int"}, seed_load_method=method)
    step = dbt_project.dbt("seed", check=False)
    if method == "spark_csv":
        _assert_seed_failed(
            step,
            "Spark skips a file whose name starts with '.', or with '_' and has no '='",
            "seed_load_method: sql_inserts",
            "unchanged",
        )
    else:
        assert _rows(spark, dbt_project.table("_lookup")) == [(1, "a")]
