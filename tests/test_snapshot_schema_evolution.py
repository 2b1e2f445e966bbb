"""History that stays right when the source changes shape (issue 11).

Each test runs source, snapshot, change, snapshot on real dbt + Spark + Iceberg, with the
expected versions stated for every step. Sources are Iceberg tables written by Spark, so that
each day's column types are exactly the ones stated.
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import date, datetime
from decimal import Decimal

import pytest
import yaml

from python_helpers.runtime.dbt_invoke import DbtStep, DbtStepError
from python_helpers.tooling.scratch import ScratchProject
from tests.snapshot_helpers import (
    HIGH_END,
    assert_closed,
    assert_open,
    compiled_code,
    day,
    history,
    snapshot_failure,
    write_snapshot,
)
from tests.test_reliability import (
    SCD2_TESTS,
    all_rows,
    assert_generic_tests_pass,
    iceberg_commits,
    write_source,
    write_table_snapshot,
)

T = datetime.fromisoformat
D = Decimal
UNKNOWN_RUN = "unknown: closed before the audit columns"  # docs/snapshot-metadata.md
WITH_REGION = "id int, name string, amount int, updated_at timestamp, region string"
WITHOUT_REGION = "id int, name string, amount int, updated_at timestamp"

CONFIGS = {
    "check-invalidate": "strategy='check', check_cols='all', hard_deletes='invalidate'",
    "check-new_record": "strategy='check', check_cols='all', hard_deletes='new_record'",
    "check-ignore": "strategy='check', check_cols='all', hard_deletes='ignore'",
    "timestamp-invalidate": (
        "strategy='timestamp', updated_at='updated_at', hard_deletes='invalidate'"
    ),
    "timestamp-new_record": (
        "strategy='timestamp', updated_at='updated_at', hard_deletes='new_record'"
    ),
}


def _columns(project: ScratchProject, table: str = "snap") -> dict[str, str]:
    return {
        f.name: f.dataType.simpleString() for f in project.spark.table(project.table(table)).schema
    }


def _versions(project: ScratchProject, *fields: str) -> list[tuple]:
    rows = history(project, "snap")
    return [
        (*(r[f] for f in fields), r["dbt_valid_to"] is None, r.get("dbt_is_deleted")) for r in rows
    ]


# --- a column removed from the source ----------------------------------------------------


@pytest.mark.parametrize("config", list(CONFIGS.values()), ids=list(CONFIGS))
def test_removed_column_stays_and_new_versions_carry_null(
    dbt_project: ScratchProject, config: str
) -> None:
    write_table_snapshot(dbt_project, f"unique_key='id', {config}")
    new_record = "new_record" in config
    live = "False" if new_record else None

    # Day 1: three keys, each with a region.
    write_source(
        dbt_project,
        [
            (1, "a", 10, T("2024-01-01"), "eu"),
            (2, "b", 20, T("2024-01-01"), "us"),
            (3, "c", 30, T("2024-01-01"), "eu"),
        ],
        WITH_REGION,
    )
    run1 = dbt_project.dbt("snapshot")

    # Day 2: the source has lost `region`; 1 updated, 2 unchanged, 3 deleted, 4 new.
    write_source(
        dbt_project,
        [
            (1, "a", 11, T("2024-01-02")),
            (2, "b", 20, T("2024-01-01")),
            (4, "d", 40, T("2024-01-02")),
        ],
        WITHOUT_REGION,
    )
    run2 = dbt_project.dbt("snapshot")
    assert "region" in _columns(dbt_project)
    expected = [
        (1, 10, "eu", False, live),
        (1, 11, None, True, live),  # new version: NULL in the removed column
        (2, 20, "us", True, live),  # removing a column alone makes no new version
    ]
    if "ignore" in config:
        expected.append((3, 30, "eu", True, live))  # deletes ignored
    else:
        expected.append((3, 30, "eu", False, live))
        if new_record:
            # The deletion record keeps the deleted version's values, region included.
            expected.append((3, 30, "eu", True, "True"))
    expected.append((4, 40, None, True, live))
    rows = history(dbt_project, "snap")
    assert _versions(dbt_project, "id", "amount", "region") == expected
    assert_closed(rows[0], run1.invocation_id, run2.invocation_id)
    assert_open(rows[1], run2.invocation_id)
    assert_open(rows[2], run1.invocation_id)

    # Day 3: still without region, 2 updated: the runs go on.
    write_source(
        dbt_project,
        [
            (1, "a", 11, T("2024-01-02")),
            (2, "b", 21, T("2024-01-03")),
            (4, "d", 40, T("2024-01-02")),
        ],
        WITHOUT_REGION,
    )
    run3 = dbt_project.dbt("snapshot")
    twos = [r for r in history(dbt_project, "snap") if r["id"] == 2]
    assert [(r["amount"], r["region"], r["dbt_valid_to"] is None) for r in twos] == [
        (20, "us", False),
        (21, None, True),
    ]
    assert_closed(twos[0], run1.invocation_id, run3.invocation_id)
    assert_open(twos[1], run3.invocation_id)
    assert_generic_tests_pass(dbt_project)


def test_check_cols_naming_a_removed_column_fails_clearly(dbt_project: ScratchProject) -> None:
    write_table_snapshot(
        dbt_project,
        "unique_key='id', strategy='check', check_cols=['amount', 'region'], "
        "hard_deletes='invalidate'",
    )
    write_source(dbt_project, [(1, "a", 10, T("2024-01-01"), "eu")], WITH_REGION)
    dbt_project.dbt("snapshot")
    before, commits = all_rows(dbt_project), iceberg_commits(dbt_project)

    write_source(dbt_project, [(1, "a", 11, T("2024-01-02"))], WITHOUT_REGION)
    with pytest.raises(DbtStepError) as failure:
        dbt_project.dbt("snapshot")
    message = str(failure.value)
    assert "check_cols names region" in message
    assert "does not return" in message
    assert all_rows(dbt_project) == before
    assert iceberg_commits(dbt_project) == commits


@pytest.mark.parametrize(
    ("config", "renamed", "expected"),
    [
        ("unique_key='id', strategy='check', check_cols='all'", "id", "unique_key names id"),
        (
            "unique_key=['id', 'name'], strategy='check', check_cols='all'",
            "name",
            "unique_key names name",
        ),
        (
            "unique_key='id', strategy='timestamp', updated_at='updated_at'",
            "updated_at",
            "updated_at names updated_at",
        ),
    ],
)
def test_a_key_or_updated_at_column_the_source_lost_fails_clearly(
    dbt_project: ScratchProject, config: str, renamed: str, expected: str
) -> None:
    """A source whose key or updated_at column was renamed: the run fails naming the setting
    and the column (Spark's UNRESOLVED_COLUMN named neither), and writes nothing."""
    write_table_snapshot(dbt_project, config + ", hard_deletes='invalidate'")
    write_source(dbt_project, [(1, "a", 10, T("2024-01-01"))], WITHOUT_REGION)
    dbt_project.dbt("snapshot")
    before, commits = all_rows(dbt_project), iceberg_commits(dbt_project)

    dbt_project.spark.sql(
        f"alter table {dbt_project.table('src')} rename column {renamed} to {renamed}_new"
    )
    with pytest.raises(DbtStepError) as failure:
        dbt_project.dbt("snapshot")
    message = str(failure.value)
    assert f"{expected}, which the snapshot's query does not return" in message
    assert f"{renamed}_new" in message  # the query's columns, to choose from
    assert all_rows(dbt_project) == before
    assert iceberg_commits(dbt_project) == commits


def test_a_key_renamed_in_the_config_and_the_source_fails_clearly_and_the_advice_works(
    dbt_project: ScratchProject,
) -> None:
    """unique_key and the source's key column both renamed (id to cust_id), the table still
    keyed by id: the run fails naming the setting, the table's columns and the rename to do
    (Spark's UNRESOLVED_COLUMN and its query plan came from the delete guard), and writes
    nothing. After the advised rename, the history goes on under the new name."""
    write_table_snapshot(dbt_project, "unique_key='id', " + CONFIGS["check-invalidate"])
    write_source(
        dbt_project, [(1, "a", 10, T("2024-01-01")), (2, "b", 20, T("2024-01-01"))], WITHOUT_REGION
    )
    run1 = dbt_project.dbt("snapshot")
    before, commits = all_rows(dbt_project), iceberg_commits(dbt_project)

    renamed = WITHOUT_REGION.replace("id int", "cust_id int")
    write_table_snapshot(dbt_project, "unique_key='cust_id', " + CONFIGS["check-invalidate"])
    write_source(
        dbt_project, [(1, "a", 10, T("2024-01-01")), (2, "b", 21, T("2024-01-01"))], renamed
    )
    message = snapshot_failure(dbt_project)
    assert "unique_key names cust_id, which the table" in message
    assert "(its columns: id, name, amount, updated_at, dbt_scd_id" in message
    assert "rename column <old name> to `cust_id`" in message
    assert "UNRESOLVED_COLUMN" not in message
    assert all_rows(dbt_project) == before
    assert iceberg_commits(dbt_project) == commits

    # The advice: rename the table's column. Then key 2's change is a new version of key 2.
    dbt_project.spark.sql(f"alter table {dbt_project.table('snap')} rename column id to cust_id")
    _assert_key_2_changed(dbt_project, "cust_id", run1, dbt_project.dbt("snapshot"))


def _assert_key_2_changed(project: ScratchProject, key: str, run1: DbtStep, run2: DbtStep) -> None:
    """Run 1 opened keys 1 (amount 10) and 2 (20); run 2 changed key 2's amount to 21."""
    rows = history(project, "snap", order_by=f"{key}, amount")
    assert [(r[key], r["amount"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, 10, True),
        (2, 20, False),
        (2, 21, True),
    ]
    assert_open(rows[0], run1.invocation_id)
    assert_closed(rows[1], run1.invocation_id, run2.invocation_id)
    assert_open(rows[2], run2.invocation_id)


# --- a new column, and a run that fails after the source checks --------------------------

CHECK = "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'"
GUARDED = """
select *,
    cast(case when amount < 0 then raise_error('negative amount in the extract') end as string)
        as amount_check
from {{ target.schema }}.src
"""


def _write_guarded_snapshot(project: ScratchProject) -> None:
    write_table_snapshot(project, CHECK)  # its generic tests; the select is replaced below
    project.write(
        "snapshots/snap.sql",
        "{% snapshot snap %}\n{{ config(" + CHECK + ") }}\n" + GUARDED + "{% endsnapshot %}\n",
    )


def test_failed_run_with_a_new_column_adds_nothing(dbt_project: ScratchProject) -> None:
    _write_guarded_snapshot(dbt_project)
    write_source(
        dbt_project,
        [(1, "a", 10, T("2024-01-01")), (2, "b", 20, T("2024-01-01"))],
        WITHOUT_REGION,
    )
    run1 = dbt_project.dbt("snapshot")
    before, commits = all_rows(dbt_project), iceberg_commits(dbt_project)
    columns_before = _columns(dbt_project)

    # Day 2 brings `region` and a value that fails the run once its rows are written.
    write_source(
        dbt_project,
        [(1, "a", 11, T("2024-01-02"), "eu"), (2, "b", -1, T("2024-01-02"), "us")],
        WITH_REGION,
    )
    with pytest.raises(DbtStepError) as failure:
        dbt_project.dbt("snapshot")
    assert "negative amount in the extract" in str(failure.value)
    # Nothing changed: no column, no row, no Iceberg commit.
    assert _columns(dbt_project) == columns_before
    assert "region" not in columns_before
    assert all_rows(dbt_project) == before
    assert iceberg_commits(dbt_project) == commits

    # The extract fixed: the column arrives with the day's versions, in one commit.
    write_source(
        dbt_project,
        [(1, "a", 11, T("2024-01-02"), "eu"), (2, "b", 20, T("2024-01-01"), "us")],
        WITH_REGION,
    )
    run3 = dbt_project.dbt("snapshot")
    assert iceberg_commits(dbt_project) == commits + 1
    rows = history(dbt_project, "snap")
    # dbt's check strategy with check_cols='all': a run that brings a column counts every
    # row as changed (dbt's rule, kept).
    assert [(r["id"], r["amount"], r["region"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, 10, None, False),
        (1, 11, "eu", True),
        (2, 20, None, False),
        (2, 20, "us", True),
    ]
    assert_closed(rows[0], run1.invocation_id, run3.invocation_id)
    assert_open(rows[1], run3.invocation_id)
    # The layout survives the rewrite: open versions still in a partition of their own.
    partitions = {
        r[0]
        for r in dbt_project.spark.sql(
            f"select partition.audit_update_process_id from {dbt_project.table('snap')}.partitions"
        ).collect()
    }
    assert partitions == {None, run3.invocation_id}


# --- types that change -------------------------------------------------------------------


def test_widened_and_incompatible_types(dbt_project: ScratchProject) -> None:
    write_table_snapshot(
        dbt_project,
        "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'",
    )
    ddl = "id int, amount {amount}, price {price}, rate {rate}"
    # Day 1: int, float, decimal(5,2).
    write_source(
        dbt_project,
        [(1, 10, 1.5, D("1.25")), (2, 20, 2.5, D("2.50"))],
        ddl.format(amount="int", price="float", rate="decimal(5,2)"),
    )
    run1 = dbt_project.dbt("snapshot")
    assert {k: _columns(dbt_project)[k] for k in ("amount", "price", "rate")} == {
        "amount": "int",
        "price": "float",
        "rate": "decimal(5,2)",
    }

    # Day 2: bigint, double, decimal(12,2); id 2 gets values only the wider types hold.
    write_source(
        dbt_project,
        [(1, 10, 1.5, D("1.25")), (2, 3_000_000_000, 2.123456789, D("1234567890.12"))],
        ddl.format(amount="bigint", price="double", rate="decimal(12,2)"),
    )
    run2 = dbt_project.dbt("snapshot")
    assert {k: _columns(dbt_project)[k] for k in ("amount", "price", "rate")} == {
        "amount": "bigint",
        "price": "double",
        "rate": "decimal(12,2)",
    }
    rows = history(dbt_project, "snap")
    assert [(r["id"], r["amount"], str(r["rate"]), r["dbt_valid_to"] is None) for r in rows] == [
        (1, 10, "1.25", True),
        (2, 20, "2.50", False),
        (2, 3_000_000_000, "1234567890.12", True),
    ]
    assert rows[2]["price"] == pytest.approx(2.123456789, abs=1e-12)
    assert_open(rows[0], run1.invocation_id)
    assert_closed(rows[1], run1.invocation_id, run2.invocation_id)

    # Day 3: the source narrows again (int, float): values fit, the table keeps its types.
    write_source(
        dbt_project,
        [(1, 11, 1.5, D("1.25")), (2, 3, 2.5, D("2.50"))],
        ddl.format(amount="int", price="float", rate="decimal(5,2)"),
    )
    dbt_project.dbt("snapshot")
    assert _columns(dbt_project)["amount"] == "bigint"
    assert sorted(
        (r["id"], r["amount"]) for r in history(dbt_project, "snap") if r["dbt_valid_to"] is None
    ) == [(1, 11), (2, 3)]

    # Day 4: amount becomes a string: no in-place change can hold it. Clear error, nothing
    # written.
    before, commits, types = (
        all_rows(dbt_project),
        iceberg_commits(dbt_project),
        _columns(dbt_project),
    )
    write_source(
        dbt_project,
        [(1, "eleven", 1.5, D("1.25")), (2, "3", 2.5, D("2.50"))],
        ddl.format(amount="string", price="float", rate="decimal(5,2)"),
    )
    with pytest.raises(DbtStepError) as failure:
        dbt_project.dbt("snapshot")
    message = str(failure.value)
    assert "amount is bigint in the snapshot table but string in the snapshot's query" in message
    assert "Nothing was written" in message
    assert "fractions" not in message
    assert all_rows(dbt_project) == before
    assert iceberg_commits(dbt_project) == commits
    assert _columns(dbt_project) == types

    # Day 5: amount gets fractions (double, which Iceberg cannot make of a bigint in place):
    # the run rewrites the table with amount double, its values cast (every one lies within
    # 2^53, where a double holds integers exactly). id 1 changes (11 to 11.5); id 2's 3.0 is
    # its open 3, no change.
    write_source(
        dbt_project,
        [(1, 11.5, 1.5, D("1.25")), (2, 3.0, 2.5, D("2.50"))],
        ddl.format(amount="double", price="float", rate="decimal(5,2)"),
    )
    run5 = dbt_project.dbt("snapshot")
    assert {k: _columns(dbt_project)[k] for k in ("amount", "price", "rate")} == {
        "amount": "double",
        "price": "double",
        "rate": "decimal(12,2)",
    }
    rows = history(dbt_project, "snap")
    assert [(r["id"], r["amount"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, 10.0, False),
        (1, 11.0, False),
        (1, 11.5, True),
        (2, 20.0, False),
        (2, 3_000_000_000.0, False),
        (2, 3.0, True),
    ]
    assert_closed(rows[1], rows[1]["audit_insert_process_id"], run5.invocation_id)
    assert_open(rows[2], run5.invocation_id)
    assert rows[5]["audit_update_process_id"] is None
    assert_generic_tests_pass(dbt_project)


@pytest.mark.parametrize(
    ("integer_type", "source_type"), [("bigint", "double"), ("int", "double"), ("int", "float")]
)
def test_an_integer_column_whose_source_gets_fractions_follows_it(
    dbt_project: ScratchProject, integer_type: str, source_type: str
) -> None:
    """A seed column of whole numbers on its first day, which dbt types bigint, and with
    fractions on a later one (double): the history follows, its column rewritten as the
    source's type in the run's one commit (Iceberg changes no integer to a float in place),
    where every value the table holds lies within the bound up to which that type holds
    every integer (2^53, 2^24 for a float). Whole numbers on the next day are cast back into
    it. A value of the table beyond the bound, or a key column, fails the run, which writes
    nothing, with advice that keeps the fractions."""
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'",
        select="select id, cast(amount as {{ var('amount_type', 'bigint') }}) as amount, "
        "qty from {{ ref('src') }}",
    )
    dbt_project.write(
        "snapshots/snap.yml",
        yaml.safe_dump(
            {"version": 2, "snapshots": [{"name": "snap", "data_tests": list(SCD2_TESTS)}]}
        ),
    )

    def run(rows: list[str], amount_type: str = integer_type):
        dbt_project.write_seed("src", "id,amount,qty", rows)
        dbt_project.dbt("seed", "--full-refresh")
        return dbt_project.dbt("snapshot", "--vars", f"{{amount_type: {amount_type}}}")

    # Day 1: whole numbers: amount bigint (or int).
    run1 = run(["1,10,5", "2,20,6", "3,30,7"])
    assert _columns(dbt_project)["amount"] == integer_type
    # Day 2: id 1's amount has a fraction, id 2's and id 3's are their day 1 values as
    # doubles: one new version, for id 1.
    run2 = run(["1,12.5,5", "2,20.0,6", "3,30,7"], source_type)
    assert _columns(dbt_project)["amount"] == source_type
    rows = history(dbt_project, "snap")
    assert [(r["id"], r["amount"], r["qty"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, 10.0, 5, False),
        (1, 12.5, 5, True),
        (2, 20.0, 6, True),
        (3, 30.0, 7, True),
    ]
    assert_closed(rows[0], run1.invocation_id, run2.invocation_id)
    assert_open(rows[1], run2.invocation_id)
    assert_open(rows[2], run1.invocation_id)
    # Day 3: whole numbers again (bigint or int), cast into the column: id 1 changes (12.5 to 12),
    # id 3's qty changes; id 2 is unchanged.
    run3 = run(["1,12,5", "2,20,6", "3,30,8"])
    assert _columns(dbt_project)["amount"] == source_type
    rows = history(dbt_project, "snap")
    assert [(r["id"], r["amount"], r["qty"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, 10.0, 5, False),
        (1, 12.5, 5, False),
        (1, 12.0, 5, True),
        (2, 20.0, 6, True),
        (3, 30.0, 7, False),
        (3, 30.0, 8, True),
    ]
    assert_closed(rows[1], run2.invocation_id, run3.invocation_id)
    assert_open(rows[2], run3.invocation_id)
    assert_generic_tests_pass(dbt_project)


def test_an_integer_column_that_cannot_follow_fractions_fails_and_writes_nothing(
    dbt_project: ScratchProject,
) -> None:
    """The cases where an integer column does not become the source's double: a value of the
    table beyond 2^53 (a double would round it: 2^53 + 1 becomes 2^53); a key column (keys
    are matched by their text, where 12 and 12.0 differ); a column a unique_key expression
    names (its text would change: every key would look deleted and new); a column partition_by
    names (Iceberg buckets no double). Each fails, names the column and why, and advises how
    to keep the fractions; nothing is written to any snapshot table."""
    check = "strategy='check', check_cols='all', hard_deletes='invalidate'"
    snapshots = {
        "snap": f"unique_key='code', {check}",
        "snap_expression": f"unique_key=\"concat_ws('-', code, grp)\", {check}",
        "snap_partitioned": f"unique_key='code', partition_by=['bucket(2, grp)'], {check}",
    }
    for name, config in snapshots.items():
        write_snapshot(dbt_project, name, config)
    day(dbt_project, "code,amount,grp", ["1,9007199254740993,1", "2,20,2"])
    states = {
        name: (all_rows(dbt_project, name), iceberg_commits(dbt_project, name))
        for name in snapshots
    }
    assert {name: _columns(dbt_project, name)["grp"] for name in snapshots} == dict.fromkeys(
        snapshots, "bigint"
    )

    def fails(rows: list[str], name: str, *expected: str) -> None:
        dbt_project.write_seed("src", "code,amount,grp", rows)
        dbt_project.dbt("seed", "--full-refresh")
        message = snapshot_failure(dbt_project, "--select", name)
        assert all(text in message for text in expected), message
        assert "Nothing was written" in message
        for each in snapshots:
            assert (all_rows(dbt_project, each), iceberg_commits(dbt_project, each)) == states[
                each
            ], each
            assert _columns(dbt_project, each)["amount"] == "bigint"
            assert _columns(dbt_project, each)["grp"] == "bigint"

    fails(
        ["1,9007199254740993,1", "2,20.5,2"],
        "snap",
        "amount is bigint in the snapshot table but double in the snapshot's query, where 1 "
        "value(s) of the table lie beyond ±9007199254740992, past which a double stops holding "
        "every integer",
        "Casting amount back would drop the fractions of its new values",
    )
    fails(
        ["1.5,5,1", "2,20,2"],
        "snap",
        "code is bigint in the snapshot table but double in the snapshot's query, a key column, "
        "so it keeps its type",
    )
    fails(
        ["1,5,1.5", "2,20,2"],
        "snap_expression",
        "grp is bigint in the snapshot table but double in the snapshot's query, named in the "
        "unique_key concat_ws('-', code, grp), so it keeps its type",
    )
    fails(
        ["1,5,1.5", "2,20,2"],
        "snap_partitioned",
        "grp is bigint in the snapshot table but double in the snapshot's query, named in the "
        "partition_by bucket(2, grp), so it keeps its type",
    )


def test_whole_numbers_into_a_double_column_are_cast_where_exact(
    dbt_project: ScratchProject,
) -> None:
    """A seed column without a pinned type is double on a day with fractions and bigint on a
    day of whole numbers (dbt's type inference). The snapshot table keeps double and takes the
    whole numbers cast, as stock dbt-spark's MERGE does, since a double holds them exactly; a
    bigint beyond 2^53, where a double holds integers no more exactly (2^53 + 1 becomes 2^53),
    fails the run, counted, and writes nothing."""
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'",
    )
    run1 = day(dbt_project, "id,amount", ["1,1.5", "2,2.5", "3,7.0"])
    assert _columns(dbt_project)["amount"] == "double"

    # Day 2: whole numbers only, so the seed is bigint: 1 and 2 change, 3 keeps 7.
    run2 = day(dbt_project, "id,amount", ["1,2", "2,3", "3,7"])
    assert dict(dbt_project.spark.table(dbt_project.table("src")).dtypes)["amount"] == "bigint"
    assert _columns(dbt_project)["amount"] == "double"
    rows = history(dbt_project, "snap")
    assert [(r["id"], r["amount"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, 1.5, False),
        (1, 2.0, True),
        (2, 2.5, False),
        (2, 3.0, True),
        (3, 7.0, True),
    ]
    assert_closed(rows[0], run1.invocation_id, run2.invocation_id)
    assert_open(rows[1], run2.invocation_id)
    assert_open(rows[4], run1.invocation_id)

    # Day 3: 2^53 + 1, which a double rounds to 2^53.
    before, commits = all_rows(dbt_project), iceberg_commits(dbt_project)
    dbt_project.write_seed("src", "id,amount", ["1,2", "2,9007199254740993", "3,7"])
    dbt_project.dbt("seed", "--full-refresh")
    message = snapshot_failure(dbt_project)
    assert (
        "amount is double in the snapshot table but bigint in the snapshot's query, where 1 "
        "value(s) lie beyond ±9007199254740992, past which a double stops holding every "
        "integer" in message
    ), message
    assert "Nothing was written" in message
    assert all_rows(dbt_project) == before
    assert iceberg_commits(dbt_project) == commits


@pytest.mark.parametrize("strategy", ["check", "timestamp"])
def test_text_column_whose_source_turns_into_another_type_fails(
    dbt_project: ScratchProject, strategy: str
) -> None:
    """String columns whose source becomes a number, a boolean or a date fail, naming both
    types of each, and write nothing. The staging rows' union with the table's made such a
    column look like a string, and the check strategy compared 'a' with 1 as
    cast('a' as bigint) = NULL: the run passed and kept 'a' open beside a source holding 1.
    Cast back in the select, the same change makes new versions."""
    config = (
        "strategy='check', check_cols='all'"
        if strategy == "check"
        else "strategy='timestamp', updated_at='updated_at'"
    )
    write_table_snapshot(dbt_project, f"unique_key='id', {config}, hard_deletes='invalidate'")
    ddl = "id int, n {}, b {}, d {}, updated_at timestamp"
    day1, day2 = T("2024-01-01 00:00:00"), T("2024-01-02 00:00:00")
    # Day 1: every code is text.
    write_source(
        dbt_project,
        [(1, "a", "a", "a", day1), (2, "b", "b", "b", day1)],
        ddl.format("string", "string", "string"),
    )
    dbt_project.dbt("snapshot")
    before, commits = all_rows(dbt_project), iceberg_commits(dbt_project)

    # Day 2: the source's codes are a number, a boolean and a date: the run fails, nothing
    # written.
    day = date(2024, 1, 1)
    changed = [(1, 1, True, day, day2), (2, 2, False, day, day2)]
    write_source(dbt_project, changed, ddl.format("bigint", "boolean", "date"))
    message = snapshot_failure(dbt_project)
    for column, new_type in (("n", "bigint"), ("b", "boolean"), ("d", "date")):
        assert (
            f"{column} is string in the snapshot table but {new_type} in the snapshot's query"
            in message
        ), message
    assert "Nothing was written" in message, message
    assert all_rows(dbt_project) == before
    assert iceberg_commits(dbt_project) == commits

    # The remedy the message gives: cast back to the table's type in the select.
    dbt_project.write(
        "snapshots/snap.sql",
        f"""
        {{% snapshot snap %}}
        {{{{ config(unique_key='id', {config}, hard_deletes='invalidate') }}}}
        select id, cast(n as string) as n, cast(b as string) as b, cast(d as string) as d,
            updated_at
        from {{{{ target.schema }}}}.src
        {{% endsnapshot %}}
        """,
    )
    dbt_project.dbt("snapshot")
    assert [
        (r["id"], r["n"], r["b"], r["d"], r["dbt_valid_to"] is None)
        for r in history(dbt_project, "snap")
    ] == [
        (1, "a", "a", "a", False),
        (1, "1", "true", "2024-01-01", True),
        (2, "b", "b", "b", False),
        (2, "2", "false", "2024-01-01", True),
    ]


@pytest.mark.parametrize("config", ["check-invalidate", "timestamp-new_record"])
def test_a_column_of_nulls_of_another_type_is_no_type_change(
    dbt_project: ScratchProject, config: str
) -> None:
    """Source columns that hold only NULLs, typed otherwise than the table's (a seed of an
    extract whose column came empty: dbt types it bigint) change nothing in the table: their
    NULLs go into the table's columns, as new versions of the keys whose values were set. Over
    a date, boolean or timestamp column the run failed with Spark's DATATYPE_MISMATCH (the
    check strategy's test, a deletion record's values): the NULLs are now read as the
    table's type. Day 2 also deletes id 3."""
    write_table_snapshot(dbt_project, "unique_key='id', " + CONFIGS[config])
    ddl = "id int, s {}, d {}, b {}, t {}, updated_at timestamp"
    values = ("a", date(2024, 1, 5), True, T("2024-01-05 06:00:00"))
    day1, day2 = T("2024-01-01 00:00:00"), T("2024-01-02 00:00:00")
    nulls = (None,) * 4
    write_source(
        dbt_project,
        [(1, *values, day1), (2, *nulls, day1), (3, *values, day1)],
        ddl.format("string", "date", "boolean", "timestamp"),
    )
    dbt_project.dbt("snapshot")
    # Day 2: every such column is bigint and NULL on every row; id 1's values were set, id 2's
    # were NULL.
    write_source(dbt_project, [(1, *nulls, day2), (2, *nulls, day2)], ddl.format(*["bigint"] * 4))
    dbt_project.dbt("snapshot")
    columns = _columns(dbt_project)
    assert [columns[c] for c in "sdbt"] == ["string", "date", "boolean", "timestamp"]
    deletion_record = [(3, values, True, True)] if "new_record" in config else []
    assert [
        (
            r["id"],
            tuple(r[c] for c in "sdbt"),
            r["dbt_valid_to"] is None,
            r.get("dbt_is_deleted") == "True",
        )
        for r in history(dbt_project, "snap")
    ] == [
        (1, values, False, False),
        (1, nulls, True, False),
        (2, nulls, False, False),  # updated_at moved, which both strategies see
        (2, nulls, True, False),
        (3, values, False, False),
        *deletion_record,
    ]
    assert_generic_tests_pass(dbt_project)


def test_a_table_without_versions_takes_the_types_of_a_later_source(
    dbt_project: ScratchProject,
) -> None:
    """A first run on an empty extract (its seed types every column bigint) builds a table
    with no version; the next source's real types are no type change there: the table is
    built again from the query, as a first run builds it, in one commit. It failed every
    later run, advising to cast the values back to bigint."""
    write_table_snapshot(dbt_project, "unique_key='id', " + CONFIGS["check-invalidate"])
    ddl = "id int, name {}, d {}, updated_at timestamp"
    write_source(dbt_project, [], ddl.format("bigint", "bigint"))
    dbt_project.dbt("snapshot")
    assert all_rows(dbt_project) == []
    commits = iceberg_commits(dbt_project)

    day2 = T("2024-01-02 00:00:00")
    rows = [(1, "Alice", date(2024, 1, 2), day2), (2, "Bob", date(2024, 1, 2), day2)]
    write_source(dbt_project, rows, ddl.format("string", "date"))
    run2 = dbt_project.dbt("snapshot").invocation_id
    columns = _columns(dbt_project)
    assert (columns["name"], columns["d"]) == ("string", "date")
    assert iceberg_commits(dbt_project) == commits + 1  # replaced, its history kept
    # Day 3: Alice renamed, through the MERGE.
    write_source(dbt_project, [(1, "Alicia", *rows[0][2:]), rows[1]], ddl.format("string", "date"))
    run3 = dbt_project.dbt("snapshot").invocation_id
    assert [
        (r["id"], r["name"], r["audit_insert_process_id"], r["audit_update_process_id"])
        for r in history(dbt_project, "snap")
    ] == [
        (1, "Alice", run2, run3),
        (1, "Alicia", run3, None),
        (2, "Bob", run2, None),
    ]
    assert (
        dbt_project.spark.sql(
            f"select partition from {dbt_project.table('snap')}.partitions"
        ).count()
        == 2
    )  # the open-partition layout: open and closed by run 3


def test_a_column_without_values_that_gets_another_type_fails_and_the_advice_works(
    dbt_project: ScratchProject,
) -> None:
    """A column empty on the first day (a seed types it bigint) holds no value in any version;
    when values of another type come, the run fails, writing nothing, as for any type change,
    but the message no longer leaves only the cast back to bigint (which would lose them): it
    gives the statements that retype the column by hand, losing nothing, and they work."""
    write_table_snapshot(dbt_project, "unique_key='id', " + CONFIGS["check-invalidate"])
    ddl = "id int, name string, note {}, updated_at timestamp"
    day1 = T("2024-01-01 00:00:00")
    write_source(
        dbt_project, [(1, "Alice", None, day1), (2, "Bob", None, day1)], ddl.format("bigint")
    )
    run1 = dbt_project.dbt("snapshot").invocation_id
    before = (all_rows(dbt_project), iceberg_commits(dbt_project))

    day2 = T("2024-01-02 00:00:00")
    rows = [(1, "Alice", "vip", day2), (2, "Bob", None, day1)]
    write_source(dbt_project, rows, ddl.format("string"))
    message = snapshot_failure(dbt_project)
    assert "note is bigint in the snapshot table but string in the snapshot's query" in message
    assert "Nothing was written" in message
    table = dbt_project.table("snap")
    assert f"But note hold(s) no value in any version of {table}" in message, message
    assert (all_rows(dbt_project), iceberg_commits(dbt_project)) == before

    statements = re.search(r"it held only NULLs\): (.*)\. Then run again", message).group(1)
    assert statements.split("; ") == [
        f"alter table {table} drop column `note`",
        f"alter table {table} add columns (`note` string)",
        f"alter table {table} alter column `note` after `name`",
    ]
    for statement in statements.split("; "):
        dbt_project.spark.sql(statement)
    run2 = dbt_project.dbt("snapshot").invocation_id
    assert list(_columns(dbt_project).items())[:4] == [
        ("id", "int"),
        ("name", "string"),
        ("note", "string"),
        ("updated_at", "timestamp"),
    ]
    assert [
        (r["id"], r["note"], r["audit_insert_process_id"], r["audit_update_process_id"])
        for r in history(dbt_project, "snap")
    ] == [
        (1, None, run1, run2),  # closed: its note went from NULL to vip
        (1, "vip", run2, None),
        (2, None, run1, None),  # unchanged
    ]
    assert_generic_tests_pass(dbt_project)


# --- upper-case meta column names --------------------------------------------------------


def _open_marks(project: ScratchProject) -> list[tuple]:
    """(id, dbt_valid_to, effective_end_ts) of the open partition's versions, as text."""
    rows = project.spark.sql(
        f"select id, cast(dbt_valid_to as string), cast(effective_end_ts as string) "
        f"from {project.table('snap')} where audit_update_process_id is null order by id"
    ).collect()
    return [tuple(r) for r in rows]


def test_changed_open_version_marks_fail_and_write_nothing(dbt_project: ScratchProject) -> None:
    """dbt_valid_to_current, scd2_high_end_ts and scd2_audit_column_names are not stored in the
    table: changed after it was built, a run used to mix two markings. A changed
    dbt_valid_to_current matched no open version, so every key was opened a second time and
    deleted keys stayed open; a changed high end gave new open versions another effective end;
    renamed audit columns were added as new, NULL in the history. Each now fails before
    anything is written (the same dbt_valid_to_current in a session of another time zone is
    another instant: the message says so); setting dbt_valid_to_current where there was none is
    dbt's documented upgrade (old open versions keep NULL) and is allowed; and the update each
    message proposes moves the table to the new marks, after which the run goes through."""
    vtc_9999 = CHECK + ", dbt_valid_to_current=\"to_timestamp('9999-12-31')\""
    vtc_2999 = CHECK + ", dbt_valid_to_current=\"to_timestamp('2999-12-31')\""
    day = T("2024-01-01")
    write_table_snapshot(dbt_project, CHECK)
    write_source(dbt_project, [(1, "a", 10, day), (2, "b", 20, day), (3, "c", 30, day)])
    dbt_project.dbt("snapshot")
    # Day 2 sets dbt_valid_to_current: allowed, the day-1 versions still open keep NULL.
    write_table_snapshot(dbt_project, vtc_9999)
    write_source(dbt_project, [(1, "a", 11, day), (2, "b", 20, day)])  # 1 updated, 3 deleted
    dbt_project.dbt("snapshot")
    assert _versions(dbt_project, "id", "amount") == [
        (1, 10, False, None),
        (1, 11, False, None),  # open, dbt_valid_to 9999-12-31 (not NULL: see below)
        (2, 20, True, None),
        (3, 30, False, None),
    ]
    assert _open_marks(dbt_project) == [
        (1, "9999-12-31 00:00:00", "9999-12-31 23:59:59"),
        (2, None, "9999-12-31 23:59:59"),
    ]

    write_source(dbt_project, [(1, "a", 12, day), (2, "b", 20, day), (4, "d", 40, day)])
    before, commits = all_rows(dbt_project), iceberg_commits(dbt_project)
    write_table_snapshot(dbt_project, vtc_2999)
    moved_valid_to = snapshot_failure(dbt_project)
    assert "open versions with dbt_valid_to = 9999-12-31 00:00:00" in moved_valid_to
    assert "dbt_valid_to_current is to_timestamp('2999-12-31')" in moved_valid_to
    # The same setting in a session of another zone names another instant: the message says so.
    write_table_snapshot(dbt_project, vtc_9999)
    zone = dbt_project.spark.conf.get("spark.sql.session.timeZone")
    try:
        dbt_project.spark.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")
        zone_moved = snapshot_failure(dbt_project)
    finally:
        dbt_project.spark.conf.set("spark.sql.session.timeZone", zone)
    assert "If the setting did not change, the session's time zone (Asia/Tokyo) did" in zone_moved
    write_table_snapshot(dbt_project, vtc_2999)
    write_table_snapshot(dbt_project, CHECK)
    assert "dbt_valid_to_current is not set (NULL) now" in snapshot_failure(dbt_project)
    write_table_snapshot(dbt_project, vtc_9999)
    high_end = snapshot_failure(dbt_project, "--vars", "{scd2_high_end_ts: '2999-12-31'}")
    assert "effective_end_ts = 9999-12-31 23:59:59, but scd2_high_end_ts is 2999" in high_end
    renamed = snapshot_failure(
        dbt_project, "--vars", "{scd2_audit_column_names: {insert_process_id: inserted_by}}"
    )
    assert "has the audit columns audit_update_process_id" in renamed
    assert "but not inserted_by" in renamed
    all_renamed = {
        "insert_process_id": "a1",
        "update_process_id": "a2",
        "insert_ts": "a3",
        "update_ts": "a4",
        "effective_start_ts": "a5",
        "effective_end_ts": "a6",
    }
    renamed = snapshot_failure(dbt_project, "--vars", str({"scd2_audit_column_names": all_renamed}))
    assert "has none of the audit columns" in renamed
    assert "partitioned by audit_update_process_id" in renamed
    assert all_rows(dbt_project) == before
    assert iceberg_commits(dbt_project) == commits

    # The updates the messages propose, then the run with both new marks.
    for message in (moved_valid_to, high_end):
        (update,) = re.findall(r"(update \S+ set .*)\.$", message.strip(), re.MULTILINE)
        dbt_project.spark.sql(update)
    write_table_snapshot(dbt_project, vtc_2999)
    new_high_end = ("--vars", "{scd2_high_end_ts: '2999-12-31'}")
    dbt_project.dbt("snapshot", *new_high_end)
    assert _versions(dbt_project, "id", "amount") == [
        (1, 10, False, None),
        (1, 11, False, None),
        (1, 12, False, None),
        (2, 20, True, None),
        (3, 30, False, None),
        (4, 40, False, None),
    ]
    assert _open_marks(dbt_project) == [
        (1, "2999-12-31 00:00:00", "2999-12-31 00:00:00"),
        (2, None, "2999-12-31 00:00:00"),
        (4, "2999-12-31 00:00:00", "2999-12-31 00:00:00"),
    ]
    assert_generic_tests_pass(dbt_project, *new_high_end)


def test_a_closed_version_that_lost_its_closing_run_is_named_as_such(
    dbt_project: ScratchProject,
) -> None:
    """A closed version whose audit_update_process_id was lost (by hand, a tool) sits in the
    open partition with a closed version's marks. The run used to blame a changed
    dbt_valid_to_current and propose an update that reopened the deleted key; it now names
    the damage, writes nothing, and gives the query that lists the version; rolled back, the
    table takes the day again as before."""
    write_table_snapshot(dbt_project, CHECK)
    day = T("2024-01-01")
    write_source(dbt_project, [(1, "a", 10, day), (2, "b", 20, day), (3, "c", 30, day)])
    dbt_project.dbt("snapshot")
    write_source(dbt_project, [(1, "a", 11, day), (2, "b", 20, day)])  # 1 updated, 3 deleted
    dbt_project.dbt("snapshot")
    spark, table = dbt_project.spark, dbt_project.table("snap")
    good = spark.sql(
        f"select snapshot_id from {table}.snapshots order by committed_at desc limit 1"
    ).first()[0]
    before = all_rows(dbt_project)
    spark.sql(f"update {table} set audit_update_process_id = null where id = 3")
    damaged, commits = all_rows(dbt_project), iceberg_commits(dbt_project)

    message = snapshot_failure(dbt_project)
    assert "has 1 closed version(s) in its open partition" in message, message
    assert "dbt_valid_to_current" not in message, message
    assert "Nothing was written" in message, message
    assert all_rows(dbt_project) == damaged
    assert iceberg_commits(dbt_project) == commits
    (listing,) = re.findall(r"List them \((select \* from .*?)\) and restore", message)
    assert [r.id for r in spark.sql(listing).collect()] == [3]

    spark.sql(f"call spark_catalog.system.rollback_to_snapshot('{table}', {good})")
    assert all_rows(dbt_project) == before
    dbt_project.dbt("snapshot")
    assert all_rows(dbt_project) == before

    # Both settings changed, where the old dbt_valid_to_current was the old high end: every
    # open version then looks closed at that instant, yet all end alike: a changed setting.
    same_end = CHECK + ", dbt_valid_to_current=\"to_timestamp('9999-12-31 23:59:59Z')\""
    write_table_snapshot(dbt_project, same_end, name="same_end")
    dbt_project.dbt("snapshot", "--select", "same_end")
    write_table_snapshot(dbt_project, CHECK, name="same_end")
    changed = snapshot_failure(
        dbt_project, "--select", "same_end", "--vars", "{scd2_high_end_ts: '2999-12-31'}"
    )
    assert "dbt_valid_to_current is not set (NULL) now" in changed, changed


def test_upper_case_meta_column_names(dbt_project: ScratchProject) -> None:
    write_table_snapshot(
        dbt_project,
        "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate', "
        "snapshot_meta_column_names={'dbt_valid_to': 'TEST_VALID_TO', "
        "'dbt_valid_from': 'Test_Valid_From', 'dbt_scd_id': 'TEST_SCD_ID', "
        "'dbt_updated_at': 'TEST_UPDATED_AT'}",
    )
    spark = dbt_project.spark

    def versions() -> list[tuple]:
        return [
            (r.id, r.amount, r.TEST_VALID_TO is None, r.audit_insert_process_id)
            for r in spark.sql(
                f"select * from {dbt_project.table('snap')} order by id, test_valid_from"
            ).collect()
        ]

    write_source(dbt_project, [(1, "a", 10, T("2024-01-01")), (2, "b", 20, T("2024-01-01"))])
    run1 = dbt_project.dbt("snapshot")
    names = list(_columns(dbt_project))
    assert {"TEST_VALID_TO", "Test_Valid_From", "TEST_SCD_ID", "TEST_UPDATED_AT"} <= set(names)
    assert not {"dbt_valid_to", "test_valid_to"} & set(names)

    write_source(dbt_project, [(1, "a", 11, T("2024-01-02")), (3, "c", 30, T("2024-01-02"))])
    run2 = dbt_project.dbt("snapshot")
    write_source(dbt_project, [(1, "a", 12, T("2024-01-03")), (3, "c", 30, T("2024-01-02"))])
    run3 = dbt_project.dbt("snapshot")
    assert list(_columns(dbt_project)) == names  # no column added twice, none in lower case
    assert versions() == [
        (1, 10, False, run1.invocation_id),
        (1, 11, False, run2.invocation_id),
        (1, 12, True, run3.invocation_id),
        (2, 20, False, run1.invocation_id),
        (3, 30, True, run2.invocation_id),
    ]


def test_meta_column_name_clashing_with_a_source_column_fails_clearly(
    dbt_project: ScratchProject,
) -> None:
    write_table_snapshot(
        dbt_project,
        "unique_key='id', strategy='timestamp', updated_at='updated_at', "
        "snapshot_meta_column_names={'dbt_updated_at': 'UPDATED_AT'}",
    )
    write_source(dbt_project, [(1, "a", 10, T("2024-01-01"))])
    with pytest.raises(DbtStepError) as failure:
        dbt_project.dbt("snapshot")
    message = str(failure.value)
    assert "columns the snapshot adds or the columns its staging uses: UPDATED_AT" in message
    assert not dbt_project.spark.catalog.tableExists(dbt_project.table("snap"))


def _stock_project(
    dbt_project: ScratchProject, tmp_path_factory: pytest.TempPathFactory, config: str
) -> ScratchProject:
    """A second project on ``dbt_project``'s schema whose snapshot ``snap`` (over ``src``,
    with ``config``) runs stock dbt-spark's macros: this project's snapshot macros removed."""
    stock = ScratchProject(
        tmp_path_factory.mktemp("stock_built"), dbt_project.schema, dbt_project.spark
    )
    shutil.rmtree(stock.root / "macros" / "snapshots")
    stock.write(
        "snapshots/snap.sql",
        "{% snapshot snap %}\n{{ config(" + config + ") }}\n"
        "select * from {{ target.schema }}.src\n{% endsnapshot %}\n",
    )
    write_table_snapshot(dbt_project, config)
    return stock


def test_table_built_by_stock_dbt_gets_the_metadata_columns(
    dbt_project: ScratchProject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A snapshot table built by stock dbt-spark (no metadata columns, unpartitioned): the
    first run with these macros adds the columns, lays the table out and records its own
    versions' metadata, in one commit."""
    stock = _stock_project(dbt_project, tmp_path_factory, CHECK)
    write_source(dbt_project, [(1, "a", 10, T("2024-01-01")), (2, "b", 20, T("2024-01-01"))])
    stock.dbt("snapshot")
    write_source(dbt_project, [(1, "a", 10, T("2024-01-01")), (2, "b", 21, T("2024-01-01"))])
    stock.dbt("snapshot")  # closes (2, 20)
    assert "audit_insert_process_id" not in _columns(dbt_project)
    commits = iceberg_commits(dbt_project)

    write_source(dbt_project, [(1, "a", 11, T("2024-01-02")), (2, "b", 21, T("2024-01-01"))])
    run3 = dbt_project.dbt("snapshot")
    assert iceberg_commits(dbt_project) == commits + 1
    rows = history(dbt_project, "snap")
    assert [(r["id"], r["amount"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, 10, False),
        (1, 11, True),
        (2, 20, False),
        (2, 21, True),
    ]
    # The version this run closed carries the closing metadata; the one it opened, the
    # opening metadata. Versions the stock runs wrote have no insert metadata (NULL), but
    # their effective range, from dbt's columns: scd2_as_of reads it. The one a stock run
    # closed leaves the open partition, closed by an unknown run.
    assert rows[0]["audit_update_process_id"] == run3.invocation_id
    assert rows[0]["effective_end_ts"] == rows[0]["dbt_valid_to"]
    assert rows[0]["audit_insert_process_id"] is None
    assert_open(rows[1], run3.invocation_id)
    for stock_version in (rows[0], rows[2], rows[3]):
        assert stock_version["audit_insert_process_id"] is None
        assert stock_version["effective_start_ts"] == stock_version["dbt_valid_from"]
    assert rows[2]["audit_update_process_id"] == UNKNOWN_RUN
    assert rows[2]["audit_update_ts"] is None
    assert rows[2]["effective_end_ts"] == rows[2]["dbt_valid_to"]
    assert rows[3]["effective_end_text"] == HIGH_END
    partitions = {
        r[0]
        for r in dbt_project.spark.sql(
            f"select partition.audit_update_process_id from {dbt_project.table('snap')}.partitions"
        ).collect()
    }
    assert partitions == {None, run3.invocation_id, UNKNOWN_RUN}

    # The change feed: the stock runs are unknown (no inserting run, the unknown closing run);
    # the update one of them made (2: 20 to 21) is an update, not a delete and an insert.
    step = dbt_project.dbt("compile", "--inline", "{{ scd2_change_feed(ref('snap')) }}")
    feed = dbt_project.spark.sql(compiled_code(step)).collect()
    assert sorted(
        ((r.id, r.amount, r._change_type, r._process_id) for r in feed),
        key=lambda r: (r[0], r[1], r[2]),
    ) == [
        (1, 10, "insert", None),
        (1, 10, "update_preimage", run3.invocation_id),
        (1, 11, "update_postimage", run3.invocation_id),
        (2, 20, "insert", None),
        (2, 20, "update_preimage", UNKNOWN_RUN),
        (2, 21, "update_postimage", None),
    ]


@pytest.mark.parametrize(
    "config",
    [
        "unique_key='id', strategy='timestamp', updated_at='updated_at', hard_deletes='invalidate'",
        "unique_key='id', strategy='check', check_cols=['amount'], updated_at='updated_at', "
        "hard_deletes='invalidate'",
    ],
    ids=["timestamp", "check-with-updated_at"],
)
def test_keys_back_over_versions_stock_dbt_closed(
    dbt_project: ScratchProject, tmp_path_factory: pytest.TempPathFactory, config: str
) -> None:
    """Keys that come back over versions stock dbt closed, after the upgrade run. Those
    versions stayed in the open partition, so the rule for keys that come back did not see
    them: the key back with its old updated_at got the closed version's dbt_scd_id, and the
    MERGE matched that version and dropped the row (the key vanished from the current state).
    Run 2 (stock) deletes key 1 and updates key 2; run 3 (upgrade) updates key 3; run 4 brings
    key 1 back as it was, and key 2 with its old row."""
    stock = _stock_project(dbt_project, tmp_path_factory, config)
    day1, day2, day3 = T("2024-01-01"), T("2024-01-02"), T("2024-01-03")
    write_source(dbt_project, [(1, "a", 10, day1), (2, "b", 20, day1), (3, "c", 30, day1)])
    stock.dbt("snapshot")
    write_source(dbt_project, [(2, "b", 21, day2), (3, "c", 30, day1)])
    stock.dbt("snapshot")
    write_source(dbt_project, [(2, "b", 21, day2), (3, "c", 31, day3)])
    run3 = dbt_project.dbt("snapshot")
    write_source(dbt_project, [(1, "a", 10, day1), (2, "b", 20, day1), (3, "c", 31, day3)])
    run4 = dbt_project.dbt("snapshot")

    rows = history(dbt_project, "snap")
    # Key 2 back with an older updated_at: no change for the timestamp strategy (dbt's rule:
    # updated_at must grow); a change of values for check, opened when run 4 saw it.
    back_2 = "check" in config
    assert [(r["id"], r["amount"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, 10, False),
        (1, 10, True),
        (2, 20, False),
        *([(2, 21, False), (2, 20, True)] if back_2 else [(2, 21, True)]),
        (3, 30, False),
        (3, 31, True),
    ]
    by_key: dict[int, list[dict]] = {}
    for row in rows:
        by_key.setdefault(row["id"], []).append(row)
    assert by_key[1][0]["audit_update_process_id"] == UNKNOWN_RUN
    assert_open(by_key[1][1], run4.invocation_id)
    # The key back starts when run 4 saw it, after its deleted version ended, with an id of
    # its own.
    assert by_key[1][1]["dbt_valid_from"] > by_key[1][0]["dbt_valid_to"]
    assert by_key[1][1]["dbt_scd_id"] != by_key[1][0]["dbt_scd_id"]
    stock_closed_by = [(by_key[3][0], run3.invocation_id)]
    if back_2:
        stock_closed_by.append((by_key[2][1], run4.invocation_id))
        assert_open(by_key[2][2], run4.invocation_id)
        assert by_key[2][2]["dbt_valid_from"] == by_key[2][1]["dbt_valid_to"]
        assert by_key[2][2]["dbt_scd_id"] != by_key[2][0]["dbt_scd_id"]
    for version, closed_by in stock_closed_by:  # written by stock dbt, closed by ours
        assert version["audit_insert_process_id"] is None
        assert version["audit_update_process_id"] == closed_by
        assert version["effective_end_ts"] == version["dbt_valid_to"]
    assert_open(by_key[3][1], run3.invocation_id)


def test_hard_deletes_switched_from_new_record_to_invalidate(dbt_project: ScratchProject) -> None:
    """dbt_is_deleted stays in the table; versions inserted without new_record carry NULL."""
    write_table_snapshot(
        dbt_project,
        "unique_key='id', strategy='check', check_cols='all', hard_deletes='new_record'",
    )
    write_source(dbt_project, [(1, "a", 10, T("2024-01-01")), (2, "b", 20, T("2024-01-01"))])
    dbt_project.dbt("snapshot")
    write_source(dbt_project, [(1, "a", 10, T("2024-01-01"))])  # 2 deleted: a deletion record
    dbt_project.dbt("snapshot")

    write_table_snapshot(dbt_project, CHECK)  # hard_deletes='invalidate' from now on
    write_source(dbt_project, [(1, "a", 11, T("2024-01-03"))])
    run3 = dbt_project.dbt("snapshot")
    rows = history(dbt_project, "snap")
    assert [
        (r["id"], r["amount"], r["dbt_is_deleted"], r["dbt_valid_to"] is None) for r in rows
    ] == [
        (1, 10, "False", False),
        (1, 11, None, True),  # inserted under invalidate: NULL in dbt_is_deleted
        (2, 20, "False", False),
        (2, 20, "True", False),  # the open deletion record, closed as deleted by run 3
    ]
    assert_open(rows[1], run3.invocation_id)
    assert rows[3]["audit_update_process_id"] == run3.invocation_id


def test_deletion_records_are_no_deletes_for_the_guard_after_a_switch_to_invalidate(
    dbt_project: ScratchProject,
) -> None:
    """Keys 3 and 4 were deleted under new_record (two open deletion records). Under
    invalidate, a day that deletes key 2 closes 1 of the 2 live keys (50%, the default
    limit): the guard counted the records as live versions going (3 of 4, 75%) and stopped
    the run, asking whether the extract was truncated."""
    new_record = "unique_key='id', strategy='check', check_cols='all', hard_deletes='new_record'"
    write_table_snapshot(dbt_project, new_record)
    day1 = [(i, c, 10 * i, T("2024-01-01")) for i, c in ((1, "a"), (2, "b"), (3, "c"), (4, "d"))]
    write_source(dbt_project, day1)
    dbt_project.dbt("snapshot")
    write_source(dbt_project, day1[:2])  # 3 and 4 deleted: 2 of 4, at the limit
    run2 = dbt_project.dbt("snapshot")

    write_table_snapshot(dbt_project, CHECK)  # hard_deletes='invalidate' from now on
    write_source(dbt_project, [day1[0], (5, "e", 50, T("2024-01-03"))])  # 2 deleted, 5 new
    run3 = dbt_project.dbt("snapshot")
    rows = history(dbt_project, "snap")
    assert [(r["id"], r["dbt_is_deleted"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, "False", True),
        (2, "False", False),  # deleted by run 3
        (3, "False", False),
        (3, "True", False),  # the deletion records, closed by run 3
        (4, "False", False),
        (4, "True", False),
        (5, None, True),
    ]
    assert rows[1]["audit_update_process_id"] == run3.invocation_id
    assert_closed(rows[3], run2.invocation_id, run3.invocation_id)
    assert_closed(rows[5], run2.invocation_id, run3.invocation_id)
    assert_open(rows[6], run3.invocation_id)


def test_widened_key_column(dbt_project: ScratchProject) -> None:
    """The key itself widens (int to bigint): the same keys, no delete (the mass-delete guard
    compares them across the two types), one update."""
    write_table_snapshot(dbt_project, CHECK)
    write_source(
        dbt_project,
        [
            (1, "a", 10, T("2024-01-01")),
            (2, "b", 20, T("2024-01-01")),
            (3, "c", 30, T("2024-01-01")),
        ],
    )
    run1 = dbt_project.dbt("snapshot")
    write_source(
        dbt_project,
        [
            (1, "a", 10, T("2024-01-01")),
            (2, "b", 21, T("2024-01-02")),
            (3, "c", 30, T("2024-01-01")),
        ],
        "id bigint, name string, amount int, updated_at timestamp",
    )
    run2 = dbt_project.dbt("snapshot")
    assert _columns(dbt_project)["id"] == "bigint"
    rows = history(dbt_project, "snap")
    assert [(r["id"], r["amount"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, 10, True),
        (2, 20, False),
        (2, 21, True),
        (3, 30, True),
    ]
    assert_open(rows[0], run1.invocation_id)
    assert_closed(rows[1], run1.invocation_id, run2.invocation_id)
    assert_open(rows[2], run2.invocation_id)


def test_key_columns_narrowed_by_the_source(dbt_project: ScratchProject) -> None:
    """The source's key columns turn from double and decimal into int, the table keeps their
    types: the same keys, one update and one delete. The mass-delete guard hashed each side's
    key as its own text (`1` against `1.0` and `1.00`), counted all three open versions as
    deleted and stopped the run."""
    write_table_snapshot(
        dbt_project,
        "unique_key=['kd', 'km'], strategy='check', check_cols='all', hard_deletes='invalidate'",
    )
    write_source(
        dbt_project,
        [(float(k), D(f"{k}.00"), 10, T("2024-01-01")) for k in (1, 2, 3)],
        "kd double, km decimal(12,2), amount int, updated_at timestamp",
    )
    run1 = dbt_project.dbt("snapshot")
    write_source(
        dbt_project,
        [(1, 1, 10, T("2024-01-01")), (2, 2, 21, T("2024-01-02"))],
        "kd int, km int, amount int, updated_at timestamp",
    )
    run2 = dbt_project.dbt("snapshot")
    assert (_columns(dbt_project)["kd"], _columns(dbt_project)["km"]) == (
        "double",
        "decimal(12,2)",
    )
    rows = history(dbt_project, "snap", order_by="kd")
    assert [(r["kd"], r["km"], r["amount"], r["dbt_valid_to"] is None) for r in rows] == [
        (1.0, D("1.00"), 10, True),
        (2.0, D("2.00"), 10, False),
        (2.0, D("2.00"), 21, True),
        (3.0, D("3.00"), 10, False),
    ]
    assert_open(rows[0], run1.invocation_id)
    assert_closed(rows[1], run1.invocation_id, run2.invocation_id)
    assert_open(rows[2], run2.invocation_id)
    assert_closed(rows[3], run1.invocation_id, run2.invocation_id)


# --- a date updated_at -------------------------------------------------------------------

DATED = "id int, name string, updated_at date"
DATED_WITH_NOTE = "id int, name string, updated_at date, note string"


@pytest.mark.parametrize("hard_deletes", ["invalidate", "new_record"])
def test_date_updated_at_keeps_date_validity(dbt_project: ScratchProject, hard_deletes) -> None:
    """A timestamp snapshot on a date updated_at: dbt's columns are dates from the first run on
    and stay dates; the run's own times (a delete's close, a deletion record's start) go in as
    the run's date, as stock dbt-spark's MERGE casts them. The second run used to fail
    ("dbt_valid_from is date in the snapshot table but timestamp in the snapshot's query")."""
    write_table_snapshot(
        dbt_project,
        "unique_key='id', strategy='timestamp', updated_at='updated_at', "
        f"hard_deletes='{hard_deletes}'",
    )
    dated = {"dbt_valid_from": "date", "dbt_valid_to": "date", "dbt_updated_at": "date"}
    d = date.fromisoformat

    def versions() -> list[tuple]:
        return [
            (r["id"], r["name"], r["dbt_valid_from"], r["dbt_valid_to"], r.get("dbt_is_deleted"))
            for r in history(dbt_project, "snap")
        ]

    # Day 1: three keys.
    write_source(
        dbt_project,
        [(1, "a", d("2024-01-01")), (2, "b", d("2024-01-01")), (3, "c", d("2024-01-01"))],
        DATED,
    )
    run1 = dbt_project.dbt("snapshot")
    assert dated.items() <= _columns(dbt_project).items()
    live = "False" if hard_deletes == "new_record" else None

    # Day 2 (the MERGE): 1 updated, 2 unchanged, 3 deleted, 4 new.
    write_source(
        dbt_project,
        [(1, "a2", d("2024-01-02")), (2, "b", d("2024-01-01")), (4, "d", d("2024-01-02"))],
        DATED,
    )
    run2 = dbt_project.dbt("snapshot")
    assert dated.items() <= _columns(dbt_project).items()
    (run2_date,) = dbt_project.spark.sql(
        f"select to_date(audit_update_ts) from {dbt_project.table('snap')} where id = 3 "
        "and audit_update_process_id is not null"
    ).first()
    expected = [
        (1, "a", d("2024-01-01"), d("2024-01-02"), live),
        (1, "a2", d("2024-01-02"), None, live),
        (2, "b", d("2024-01-01"), None, live),
        (3, "c", d("2024-01-01"), run2_date, live),
    ]
    if hard_deletes == "new_record":
        expected.append((3, "c", run2_date, None, "True"))
    expected.append((4, "d", d("2024-01-02"), None, live))
    assert versions() == expected
    rows = history(dbt_project, "snap")
    assert (rows[0]["audit_insert_process_id"], rows[0]["audit_update_process_id"]) == (
        run1.invocation_id,
        run2.invocation_id,
    )

    # Day 3 (the rebuild: the source gains `note`): 1 updated again, the others as they were.
    write_source(
        dbt_project,
        [
            (1, "a3", d("2024-01-03"), "x"),
            (2, "b", d("2024-01-01"), "y"),
            (4, "d", d("2024-01-02"), "z"),
        ],
        DATED_WITH_NOTE,
    )
    run3 = dbt_project.dbt("snapshot")
    assert {**dated, "note": "string"}.items() <= _columns(dbt_project).items()
    expected[1] = (1, "a2", d("2024-01-02"), d("2024-01-03"), live)
    expected.insert(2, (1, "a3", d("2024-01-03"), None, live))
    assert versions() == expected
    rows = history(dbt_project, "snap")
    assert rows[1]["audit_update_process_id"] == rows[2]["audit_insert_process_id"]
    assert rows[2]["audit_insert_process_id"] == run3.invocation_id
    assert [r["note"] for r in rows if r["id"] == 1] == [None, None, "x"]
    assert_generic_tests_pass(dbt_project)

    # The legacy view keeps dbt_valid_to a date: open versions get the high end's UTC date,
    # also read under a zone east of UTC (where 9999-12-31 23:59:59 UTC is in the year 10000).
    dbt_project.write(
        "models/legacy.sql",
        "{{ config(materialized='view') }}\n{{ scd2_audit.scd2_legacy(ref('snap')) }}",
    )
    dbt_project.dbt("run", "--select", "legacy")
    zone = dbt_project.spark.conf.get("spark.sql.session.timeZone")
    dbt_project.spark.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")
    try:
        legacy = dbt_project.spark.table(dbt_project.table("legacy"))
        assert dict(legacy.dtypes)["dbt_valid_to"] == "date"
        ends = [
            (r.id, r.name, r.dbt_valid_to)
            for r in legacy.orderBy("id", "dbt_valid_from", "dbt_valid_to").collect()
        ]
    finally:
        dbt_project.spark.conf.set("spark.sql.session.timeZone", zone)
    high_end = d("9999-12-31")
    expected_ends = [(i, n, high_end if end is None else end) for i, n, _, end, _ in expected]
    assert ends == sorted(expected_ends, key=lambda e: (e[0], e[2]))


@pytest.mark.parametrize(
    ("updated_at_type", "valid_to_current", "refused"),
    [
        ("date", "to_timestamp('9999-12-31 23:59:59')", True),
        ("timestamp_ntz", "to_timestamp('9999-12-31 23:59:59')", True),
        ("timestamp_ntz", "to_timestamp_ntz('9999-12-31 23:59:59')", False),
        ("timestamp", "to_date('9999-12-31')", False),
    ],
)
def test_valid_to_current_of_another_type_than_updated_at(
    dbt_project: ScratchProject, updated_at_type: str, valid_to_current: str, refused: bool
) -> None:
    """dbt_valid_to_current beside a date or timestamp_ntz updated_at must be of its type: a
    timestamp built the table (a date dbt_valid_from, a timestamp dbt_valid_to) and failed
    every later run, on Spark's DATATYPE_MISMATCH or a type check blaming the source. Refused
    on the first run, before anything is written; a value of the same type (or a date beside
    a timestamp, which widens) runs day after day."""
    write_table_snapshot(
        dbt_project,
        "unique_key='id', strategy='timestamp', updated_at='u', hard_deletes='invalidate', "
        f'dbt_valid_to_current="{valid_to_current}"',
    )
    ddl = f"id int, name string, u {updated_at_type}"
    u1, u2 = (
        (date(2024, 1, 1), date(2024, 1, 2))
        if updated_at_type == "date"
        else (T("2024-01-01 00:00:00"), T("2024-01-02 00:00:00"))
    )
    write_source(dbt_project, [(1, "a", u1), (2, "b", u1)], ddl)
    if refused:
        with pytest.raises(DbtStepError) as failure:
            dbt_project.dbt("snapshot")
        message = str(failure.value)
        expected = f"updated_at (u), which dbt_valid_from holds, is of type {updated_at_type}"
        assert expected in message
        assert "Nothing was written" in message
        assert not dbt_project.spark.catalog.tableExists(dbt_project.table("snap"))
        return
    run1 = dbt_project.dbt("snapshot")
    write_source(dbt_project, [(1, "a2", u2), (3, "c", u2)], ddl)  # 1 updated, 2 gone, 3 new
    run2 = dbt_project.dbt("snapshot")
    rows = history(dbt_project, "snap")
    assert [(r["id"], r["name"], r["audit_update_process_id"]) for r in rows] == [
        (1, "a", run2.invocation_id),
        (1, "a2", None),
        (2, "b", run2.invocation_id),
        (3, "c", None),
    ]
    assert rows[1]["audit_insert_process_id"] == rows[3]["audit_insert_process_id"]
    assert rows[1]["audit_insert_process_id"] == run2.invocation_id
    assert rows[0]["audit_insert_process_id"] == run1.invocation_id
    assert rows[1]["dbt_valid_from"] == rows[0]["dbt_valid_to"] == u2
    dbt_project.dbt("test")


def test_updated_at_that_is_no_timestamp_or_date_fails_clearly(dbt_project: ScratchProject) -> None:
    """Text (or a number) as the timestamp strategy's updated_at fails before anything is
    written, on the first run and on a later one, saying how to convert it. A later run used to
    fail with Spark's DATA_DIFF_TYPES on `greatest`, and text orders '9:00' after '10:00'.
    updated_at given as a column's name (plain or quoted, in any case) or as an expression."""
    text = "id int, name string, updated_at string"
    write_source(dbt_project, [(1, "a", "2024-01-01 10:00:00")], text)
    for updated_at in ("`Updated_At`", "substr(updated_at, 1)", "updated_at"):
        write_table_snapshot(
            dbt_project,
            f'unique_key="id", strategy="timestamp", updated_at="{updated_at}",'
            ' hard_deletes="invalidate"',
        )
        with pytest.raises(DbtStepError) as first:
            dbt_project.dbt("snapshot")
        assert f"updated_at ({updated_at}) is of type string" in str(first.value)
        assert f"to_timestamp({updated_at})" in str(first.value)
        assert not dbt_project.spark.catalog.tableExists(dbt_project.table("snap"))

    # Day 1 with a timestamp; day 2's source turns it into epoch milliseconds.
    write_source(
        dbt_project,
        [(1, "a", T("2024-01-01 10:00:00"))],
        "id int, name string, updated_at timestamp",
    )
    dbt_project.dbt("snapshot")
    before, commits = all_rows(dbt_project), iceberg_commits(dbt_project)
    write_source(dbt_project, [(1, "a2", 1704189600000)], "id int, name string, updated_at bigint")
    with pytest.raises(DbtStepError) as later:
        dbt_project.dbt("snapshot")
    assert "is of type bigint" in str(later.value)
    assert "timestamp_millis(updated_at)" in str(later.value)
    assert "Nothing was written" in str(later.value)
    assert all_rows(dbt_project) == before
    assert iceberg_commits(dbt_project) == commits


def test_null_updated_at_fails_clearly(dbt_project: ScratchProject) -> None:
    """A source row without updated_at, where updated_at dates the versions, fails the run
    before anything is written, on the first run and on a later one. It used to give the key
    a version with a null dbt_valid_from on the first run, after which every change of the
    key was missed (dbt's `dbt_valid_from < updated_at` is null). A check snapshot without
    updated_at takes the same rows: there updated_at is only data."""
    write_table_snapshot(
        dbt_project,
        "unique_key='id', strategy='timestamp', updated_at='updated_at', hard_deletes='invalidate'",
    )
    write_table_snapshot(
        dbt_project, "unique_key='id', strategy='check', check_cols='all'", name="check_snap"
    )
    stamped = "id int, name string, updated_at timestamp"
    # Run 1: key 2 has no updated_at: nothing is created.
    write_source(dbt_project, [(1, "a", T("2024-01-01")), (2, "b", None)], stamped)
    with pytest.raises(DbtStepError) as first:
        dbt_project.dbt("snapshot", "--select", "snap")
    message = str(first.value)
    assert "1 row(s) with a null updated_at (updated_at), e.g. (id=2)" in message, message
    assert "coalesce(updated_at, created_at)" in message, message
    assert not dbt_project.spark.catalog.tableExists(dbt_project.table("snap"))
    dbt_project.dbt("snapshot", "--select", "check_snap")
    assert [(r["id"], r["name"]) for r in history(dbt_project, "check_snap")] == [
        (1, "a"),
        (2, "b"),
    ]

    # Run 2: both keys dated; then run 3, where key 1 loses its updated_at: nothing written.
    write_source(dbt_project, [(1, "a", T("2024-01-01")), (2, "b", T("2024-01-01"))], stamped)
    dbt_project.dbt("snapshot", "--select", "snap")
    before, commits = all_rows(dbt_project), iceberg_commits(dbt_project)
    write_source(dbt_project, [(1, "a2", None), (2, "b2", T("2024-01-02"))], stamped)
    with pytest.raises(DbtStepError) as later:
        dbt_project.dbt("snapshot", "--select", "snap")
    assert "null updated_at (updated_at), e.g. (id=1)" in str(later.value)
    assert "Nothing was written" in str(later.value)
    assert all_rows(dbt_project) == before
    assert iceberg_commits(dbt_project) == commits


def test_updated_at_at_or_after_the_high_end_fails_clearly(dbt_project: ScratchProject) -> None:
    """An updated_at at or after the high end of open versions (scd2_high_end_ts, and
    dbt_valid_to_current where set) would open a version that ends before it starts, which no
    as-of moment finds and scd2_contiguous_validity calls inverted: the run fails before
    anything is written, on a first run and on a later one, naming one key. A moment before
    the high end is taken as usual."""
    write_table_snapshot(
        dbt_project,
        "unique_key='id', strategy='timestamp', updated_at='updated_at', hard_deletes='invalidate'",
    )
    spark = dbt_project.spark
    spark.sql(f"create schema if not exists {dbt_project.schema}")

    def source(*rows: str) -> None:
        spark.sql(
            f"create or replace table {dbt_project.table('src')} using iceberg as "
            f"select * from values {', '.join(rows)} as t(id, name, updated_at)"
        )

    # Run 1: key 2 half a second after the high end (9999-12-31 23:59:59 UTC; the session
    # is UTC): nothing is created.
    source(
        "(1, 'a', timestamp'2024-01-01 00:00:00')",
        "(2, 'b', timestamp'9999-12-31 23:59:59.5')",
    )
    message = snapshot_failure(dbt_project, "--select", "snap")
    assert "1 row(s) whose updated_at (updated_at) is at or after the high end" in message
    assert "e.g. (id=2)" in message, message
    assert "Nothing was written" in message, message
    assert not spark.catalog.tableExists(dbt_project.table("snap"))

    # Run 2: a second before the high end is a moment like any other.
    source(
        "(1, 'a', timestamp'2024-01-01 00:00:00')",
        "(2, 'b', timestamp'9999-12-31 23:59:58')",
    )
    dbt_project.dbt("snapshot", "--select", "snap")
    assert [(r["id"], r["dbt_valid_from"]) for r in history(dbt_project, "snap")] == [
        (1, datetime(2024, 1, 1)),
        (2, datetime(9999, 12, 31, 23, 59, 58)),
    ]
    before, commits = all_rows(dbt_project), iceberg_commits(dbt_project)

    # Run 3: key 1 updated at exactly the high end: nothing written.
    source(
        "(1, 'a2', timestamp'9999-12-31 23:59:59')",
        "(2, 'b', timestamp'9999-12-31 23:59:58')",
    )
    message = snapshot_failure(dbt_project, "--select", "snap")
    assert "whose updated_at (updated_at) is at or after the high end" in message, message
    assert "e.g. (id=1)" in message, message
    assert all_rows(dbt_project) == before
    assert iceberg_commits(dbt_project) == commits

    # A date updated_at beside a dbt_valid_to_current of 2099-12-31: 2100-01-01 is after it.
    write_table_snapshot(
        dbt_project,
        "unique_key='id', strategy='timestamp', updated_at='updated_at', "
        "dbt_valid_to_current=\"to_date('2099-12-31')\"",
        name="dated",
    )
    source("(1, 'a', date'2024-01-01')", "(2, 'b', date'2100-01-01')")
    message = snapshot_failure(dbt_project, "--select", "dated")
    assert "or dbt_valid_to_current to_date('2099-12-31')), e.g. (id=2)" in message, message
    assert not spark.catalog.tableExists(dbt_project.table("dated"))

    # A timestamp_ntz updated_at is read as UTC whatever the session's zone, as the effective
    # range reads it: at the high end in Tokyo too, where Spark's own cast reads it as
    # 14:59:59 UTC.
    write_table_snapshot(
        dbt_project, "unique_key='id', strategy='timestamp', updated_at='updated_at'", name="ntz"
    )
    source(
        "(1, 'a', timestamp_ntz'2024-01-01 00:00:00')",
        "(2, 'b', timestamp_ntz'9999-12-31 23:59:59')",
    )
    zone = spark.conf.get("spark.sql.session.timeZone")
    try:
        spark.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")
        message = snapshot_failure(dbt_project, "--select", "ntz")
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)
    assert "at or after the high end of open versions" in message, message
    assert "e.g. (id=2)" in message, message


MAP_DDL = "id int, tags array<string>, attrs map<string, string>, note string"


def test_map_columns_compared_by_check_fail_clearly_and_a_comparable_form_works(
    dbt_project: ScratchProject,
) -> None:
    """A map column among the columns the check strategy compares: Spark cannot compare maps,
    so stock dbt built the table and failed every later run (INVALID_ORDERING_TYPE). The
    first run now fails, naming the column and the fix, and creates nothing. check_cols that
    leave the map out (it is kept, not compared), and the map in the form the message
    suggests, snapshot as usual: a changed entry opens a version, the same entries in another
    order do not."""
    write_source(
        dbt_project,
        [(1, ["a"], {"k": "v", "z": "1"}, "n1"), (2, ["b"], {"k": "w"}, "n2")],
        MAP_DDL,
    )
    write_table_snapshot(dbt_project, "unique_key='id', strategy='check', check_cols='all'")
    listed = "unique_key='id', strategy='check', check_cols=['tags', 'attrs']"
    write_table_snapshot(dbt_project, listed, name="listed")
    with pytest.raises(DbtStepError) as failure:
        dbt_project.dbt("snapshot")
    text = str(failure.value)
    for name in ("snap", "listed"):
        assert f"Snapshot '{name}': the check strategy compares attrs (map<string,string>)" in (
            text
        ), text
    assert "array_sort(map_entries(attrs)) as attrs" in text and "Nothing was written." in text
    for name in ("snap", "listed"):
        assert not dbt_project.spark.catalog.tableExists(dbt_project.table(name))

    (dbt_project.root / "snapshots" / "listed.sql").unlink()
    (dbt_project.root / "snapshots" / "listed.yml").unlink()
    write_table_snapshot(
        dbt_project, "unique_key='id', strategy='check', check_cols=['tags', 'note']", "without"
    )
    config = "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'"
    comparable = "array_sort(map_entries(attrs)) as attrs"
    select = f"select id, tags, {comparable}, note from {{{{ target.schema }}}}.src"
    write_snapshot(dbt_project, "snap", config, select=select)
    run1 = dbt_project.dbt("snapshot")
    # 1: the same entries in another order; 2: an entry's value changed.
    write_source(
        dbt_project,
        [(1, ["a"], {"z": "1", "k": "v"}, "n1"), (2, ["b"], {"k": "w2"}, "n2")],
        MAP_DDL,
    )
    run2 = dbt_project.dbt("snapshot")
    snap = history(dbt_project, "snap")
    assert [(r["id"], r["note"], r["dbt_valid_to"] is None) for r in snap] == [
        (1, "n1", True),
        (2, "n2", False),
        (2, "n2", True),
    ]
    assert [(e["key"], e["value"]) for e in snap[2]["attrs"]] == [("k", "w2")]
    assert_closed(snap[1], run1.invocation_id, run2.invocation_id)
    assert_open(snap[2], run2.invocation_id)
    without = history(dbt_project, "without")
    assert [(r["id"], r["note"], r["dbt_valid_to"] is None) for r in without] == [
        (1, "n1", True),
        (2, "n2", True),
    ]
    assert without[1]["attrs"] == {"k": "w"}  # the map is kept, not compared
    assert_generic_tests_pass(dbt_project)


STRUCT_DDL = "id int, address struct<street: string, city: string>"
GAINED_DDL = "id int, address struct<street: string, city: string, zip: string>"


def test_a_struct_that_gained_a_field_fails_clearly_and_the_advice_works(
    dbt_project: ScratchProject,
) -> None:
    """A struct column whose source gained a field (a new attribute of a nested source):
    Spark casts a struct only to one of as many fields, so the message's advice to cast the
    column back could not be followed. The run fails before anything is written, and the
    message shows the table's fields selected by name; the snapshot's select written so, the
    history goes on over the fields the table has."""
    config = "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'"
    # Day 1: two addresses.
    write_source(dbt_project, [(1, ("Rue A", "Lyon")), (2, ("Rue B", "Nantes"))], STRUCT_DDL)
    write_table_snapshot(dbt_project, config)
    run1 = dbt_project.dbt("snapshot")
    before, commits = all_rows(dbt_project), iceberg_commits(dbt_project)

    # Day 2: the struct gains zip, and key 2 moves to Rennes.
    write_source(
        dbt_project,
        [(1, ("Rue A", "Lyon", "69001")), (2, ("Rue B", "Rennes", "35000"))],
        GAINED_DDL,
    )
    message = snapshot_failure(dbt_project)
    assert re.search(r"address is struct<street:string,\s*city:string> in the snapshot", message)
    by_name = "named_struct('street', address.street, 'city', address.city) as address"
    assert by_name in message, message
    assert "Nothing was written" in message
    assert all_rows(dbt_project) == before
    assert iceberg_commits(dbt_project) == commits
    # A struct that lost a field and retyped another: the example puts each back.
    write_source(dbt_project, [(1, (69001, 7))], "id int, address struct<zip: int, city: int>")
    assert (
        "named_struct('street', cast(null as string), 'city', cast(address.city as string)) "
        "as address"
    ) in snapshot_failure(dbt_project)
    assert all_rows(dbt_project) == before

    # The advice followed: key 2's move is a new version, key 1 is unchanged.
    write_source(
        dbt_project,
        [(1, ("Rue A", "Lyon", "69001")), (2, ("Rue B", "Rennes", "35000"))],
        GAINED_DDL,
    )
    write_snapshot(
        dbt_project, "snap", config, select=f"select id, {by_name} from {{{{ target.schema }}}}.src"
    )
    run2 = dbt_project.dbt("snapshot")
    snap = history(dbt_project, "snap")
    assert [(r["id"], r["address"]["city"], r["dbt_valid_to"] is None) for r in snap] == [
        (1, "Lyon", True),
        (2, "Nantes", False),
        (2, "Rennes", True),
    ]
    assert_closed(snap[1], run1.invocation_id, run2.invocation_id)
    assert_open(snap[2], run2.invocation_id)
    assert_generic_tests_pass(dbt_project)


def _wide_struct(last: str, width: int = 30) -> str:
    """A struct of ``width`` fields f0.., the last ``last`` (more than Spark's 25 shown)."""
    fields = [f"'f{i}', {i}" for i in range(width - 1)]
    return "named_struct(" + ", ".join([*fields, f"'f{width - 1}', {last}"]) + ")"


def test_nested_small_integers_and_wide_structs_are_no_type_change(
    dbt_project: ScratchProject,
) -> None:
    """A struct or array field of a smallint or tinyint (a Parquet source's int16): Iceberg
    stores it as int, so the table describes `struct<zip:int>` where the query gives
    `struct<zip:smallint>`, and every run after the first failed as a type change. A struct
    of 30 fields (a JSON source's): Spark's `describe` shows 25 and "... 5 more fields",
    which hid a change of the last field's type and broke a new such column's rewrite."""
    config = "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'"
    write_source(dbt_project, [(1, 7501, "a"), (2, 6901, "b")], "id int, zip int, name string")
    select = (
        "select id, named_struct('zip', cast(zip as smallint), "
        "'codes', array(cast(id as tinyint)), 'inner', named_struct('n', cast(id as smallint))) "
        f"as addr, {_wide_struct('name')} as wide from {{{{ target.schema }}}}.src"
    )
    write_table_snapshot(dbt_project, config)  # the scd2 data tests' properties
    write_snapshot(dbt_project, "snap", config, select=select)
    run1 = dbt_project.dbt("snapshot")
    # Day 2, the same rows: nothing changes (the old code failed: "addr is
    # struct<zip:int,...> in the snapshot table but struct<zip:smallint,...>").
    dbt_project.dbt("snapshot")
    assert [
        (r["id"], r["addr"]["zip"], r["dbt_valid_to"] is None) for r in history(dbt_project, "snap")
    ] == [(1, 7501, True), (2, 6901, True)]

    # Day 3: key 2's name, the wide struct's 30th field, changes, and a second wide struct
    # column is added (check_cols='all': a new column gives every key a new version, as
    # with stock dbt); the run writes the table again, with `extra` NULL in the old versions.
    write_source(dbt_project, [(1, 7501, "a"), (2, 6901, "c")], "id int, zip int, name string")
    write_snapshot(
        dbt_project,
        "snap",
        config,
        select=select.replace(" from ", f", {_wide_struct('id')} as extra from "),
    )
    run3 = dbt_project.dbt("snapshot")
    snap = history(dbt_project, "snap")
    assert [
        (r["id"], r["wide"]["f29"], r["extra"] and r["extra"]["f29"], r["dbt_valid_to"] is None)
        for r in snap
    ] == [(1, "a", None, False), (1, "a", 1, True), (2, "b", None, False), (2, "c", 2, True)]
    assert {r["audit_update_process_id"] for r in snap if r["dbt_valid_to"]} == {run3.invocation_id}
    assert {r["audit_insert_process_id"] for r in snap if r["dbt_valid_to"]} == {run1.invocation_id}
    before, commits = all_rows(dbt_project), iceberg_commits(dbt_project)

    # Day 4: the wide struct's 30th field turns into a map, which the check strategy cannot
    # compare: refused by name before anything is written (it was hidden past the 25th field,
    # and Spark's INVALID_ORDERING_TYPE came from the MERGE).
    write_snapshot(
        dbt_project,
        "snap",
        config,
        select=select.replace(" from ", f", {_wide_struct('map(1, id)')} as extra from "),
    )
    message = snapshot_failure(dbt_project)
    assert "the check strategy compares extra (struct<" in message, message
    assert "f29:map<int,int>>" in message, message
    assert all_rows(dbt_project) == before
    assert iceberg_commits(dbt_project) == commits
    assert_generic_tests_pass(dbt_project)


def test_untyped_null_columns_fail_clearly(dbt_project: ScratchProject) -> None:
    """A select that adds `null as note` (Spark's void type; `array()` holds it too): Iceberg
    cannot store it, and the run failed with "Not a supported type: void", naming neither the
    snapshot nor the column. Now the run fails naming both columns and the cast that fixes
    it, and leaves the table as it was."""
    config = "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'"

    def write(columns: str) -> None:
        select = f"select {columns} from {{{{ target.schema }}}}.src"
        write_snapshot(dbt_project, "snap", config, select=select)

    write_source(dbt_project, [(1, "a", 10, T("2024-01-01"))], WITHOUT_REGION)
    write("id, name")
    dbt_project.dbt("snapshot")
    before, commits = all_rows(dbt_project), iceberg_commits(dbt_project)
    write_source(dbt_project, [(1, "a2", 10, T("2024-01-01"))], WITHOUT_REGION)
    write("id, name, null as note, array() as tags")
    with pytest.raises(DbtStepError) as failure:
        dbt_project.dbt("snapshot")
    text = str(failure.value)
    assert "Snapshot 'snap': its query returns note (void), tags (array<void>)" in text, text
    assert "cast(null as string) as note" in text and "Nothing was written." in text, text
    assert all_rows(dbt_project) == before and iceberg_commits(dbt_project) == commits
    write("id, name, cast(null as string) as note")
    dbt_project.dbt("snapshot")
    assert [(r["id"], r["name"], r["note"]) for r in history(dbt_project, "snap")] == [
        (1, "a", None),
        (1, "a2", None),
    ]


@pytest.mark.parametrize("check_cols", ["'all'", "['name']"], ids=["all", "listed"])
def test_column_names_in_another_case_are_the_same_columns(
    dbt_project: ScratchProject, check_cols: str
) -> None:
    """The table was built from columns ID, Name, amount; the source then returns id, name,
    AMOUNT (a view rewritten), and check_cols may name `name` for the table's `Name`. Spark
    resolves them as the same columns. dbt's check strategy matched them case-sensitively,
    saw new columns on every run, and closed and reopened every version each time."""
    write_table_snapshot(dbt_project, f"unique_key='id', strategy='check', check_cols={check_cols}")
    write_source(dbt_project, [(1, "a", 10), (2, "b", 20)], "ID int, Name string, amount int")
    run1 = dbt_project.dbt("snapshot")
    # 1 updated, 2 unchanged, 3 new; the columns' names in other cases.
    day2 = [(1, "a2", 10), (2, "b", 20), (3, "c", 30)]
    write_source(dbt_project, day2, "id int, name string, AMOUNT int")
    run2 = dbt_project.dbt("snapshot")
    rows = history(dbt_project, "snap")
    assert [(r["ID"], r["Name"], r["amount"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, "a", 10, False),
        (1, "a2", 10, True),
        (2, "b", 20, True),
        (3, "c", 30, True),
    ]
    assert_closed(rows[0], run1.invocation_id, run2.invocation_id)
    assert_open(rows[1], run2.invocation_id)
    assert_open(rows[2], run1.invocation_id)
    assert_open(rows[3], run2.invocation_id)
    # The same rows again, in a third casing: nothing changes.
    before = all_rows(dbt_project)
    write_source(dbt_project, day2, "Id int, NAME string, Amount int")
    dbt_project.dbt("snapshot")
    assert all_rows(dbt_project) == before
    columns = dbt_project.spark.table(dbt_project.table("snap")).columns
    assert columns[:3] == ["ID", "Name", "amount"]
    assert_generic_tests_pass(dbt_project)


# --- a unique_key narrowed on an existing table -------------------------------------------


def _properties(project: ScratchProject) -> dict[str, str]:
    rows = project.spark.sql(f"show tblproperties {project.table('snap')}").collect()
    return {row[0]: row[1] for row in rows}


@pytest.mark.parametrize("recorded", [True, False], ids=["recorded", "built-before"])
def test_a_narrowed_key_with_two_open_versions_fails_clearly(
    dbt_project: ScratchProject, recorded: bool
) -> None:
    """unique_key ['id', 'name'] narrowed to 'id' while id 1 has two open versions (names a
    and b): one source row of id 1 would meet both. The run fails naming the key, its count
    of open versions and both settings where the table records the old one, and writes
    nothing. A table built before the key was recorded (the property unset) is checked too."""
    narrow = "unique_key='id', " + CONFIGS["check-invalidate"]
    write_table_snapshot(dbt_project, "unique_key=['id', 'name'], " + CONFIGS["check-invalidate"])
    write_source(
        dbt_project,
        [
            (1, "a", 10, T("2024-01-01")),
            (1, "b", 20, T("2024-01-01")),
            (2, "c", 30, T("2024-01-01")),
        ],
        WITHOUT_REGION,
    )
    dbt_project.dbt("snapshot")
    assert json.loads(_properties(dbt_project)["scd2.unique_key"]) == ["id", "name"]
    if not recorded:
        dbt_project.spark.sql(
            f"alter table {dbt_project.table('snap')} unset tblproperties ('scd2.unique_key')"
        )
    before, commits = all_rows(dbt_project), iceberg_commits(dbt_project)

    write_table_snapshot(dbt_project, narrow)
    write_source(
        dbt_project, [(1, "a", 11, T("2024-01-01")), (2, "c", 30, T("2024-01-01"))], WITHOUT_REGION
    )
    message = snapshot_failure(dbt_project)
    assert "has 2 open versions of id = 1 under unique_key ['id']" in message
    if recorded:
        assert "(the table was built with unique_key ['id', 'name'])" in message
    assert "Nothing was written" in message
    assert "and id is not null group by all having count(*) > 1)." in message, message
    assert all_rows(dbt_project) == before
    assert iceberg_commits(dbt_project) == commits


def test_a_changed_key_whose_open_versions_stay_unique_goes_on(dbt_project: ScratchProject) -> None:
    """unique_key ['id', 'name'] narrowed to 'id' where each id has one open version: the run
    goes on under the new key (id 2's change closes its version), and the table records the
    new key, so that later runs need not count the open versions again."""
    write_table_snapshot(dbt_project, "unique_key=['id', 'name'], " + CONFIGS["check-invalidate"])
    write_source(
        dbt_project, [(1, "a", 10, T("2024-01-01")), (2, "b", 20, T("2024-01-01"))], WITHOUT_REGION
    )
    run1 = dbt_project.dbt("snapshot")

    write_table_snapshot(dbt_project, "unique_key=' ID ', " + CONFIGS["check-invalidate"])
    write_source(
        dbt_project, [(1, "a", 10, T("2024-01-01")), (2, "b", 21, T("2024-01-01"))], WITHOUT_REGION
    )
    _assert_key_2_changed(dbt_project, "id", run1, dbt_project.dbt("snapshot"))
    assert json.loads(_properties(dbt_project)["scd2.unique_key"]) == ["id"]


def test_a_changed_key_counts_no_null_keys(dbt_project: ScratchProject) -> None:
    """Two open versions whose key is NULL (only stock dbt lets such keys in) are no key
    dbt's join matches, so they do not fail a run under another key: it closes them as
    deleted (the source has no such row), keeps ids 1 to 3 open, and records the key."""
    write_table_snapshot(dbt_project, "unique_key=['id', 'name'], " + CONFIGS["check-invalidate"])
    rows = [(i, n, 10 * i, T("2024-01-01")) for i, n in [(1, "a"), (2, "b"), (3, "c")]]
    write_source(dbt_project, rows, WITHOUT_REGION)
    dbt_project.dbt("snapshot")
    table = dbt_project.table("snap")
    spark = dbt_project.spark
    spark.sql(f"alter table {table} unset tblproperties ('scd2.unique_key')")
    third = spark.table(table).where("id = 3")
    for name in ("x", "y"):
        nulled = third.selectExpr(
            *(
                {"id": "cast(null as int) as id", "name": f"'{name}' as name"}.get(
                    c, f"concat(dbt_scd_id, '{name}') as dbt_scd_id" if c == "dbt_scd_id" else c
                )
                for c in third.columns
            )
        )
        nulled.writeTo(table).append()

    write_table_snapshot(dbt_project, "unique_key='id', " + CONFIGS["check-invalidate"])
    run2 = dbt_project.dbt("snapshot")
    versions = [
        (r["id"], r["name"], r["audit_update_process_id"])
        for r in history(dbt_project, "snap", order_by="id, name")
    ]
    assert versions == [
        (None, "x", run2.invocation_id),
        (None, "y", run2.invocation_id),
        (1, "a", None),
        (2, "b", None),
        (3, "c", None),
    ]
    assert json.loads(_properties(dbt_project)["scd2.unique_key"]) == ["id"]
