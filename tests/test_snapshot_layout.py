"""The open-partition layout: closed history left alone, and older tables upgraded in place."""

from __future__ import annotations

from datetime import datetime

from python_helpers.tooling.scratch import ScratchProject
from tests.snapshot_helpers import assert_closed, assert_open, history, write_snapshot

CONFIG = "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'"
DDL = "id int, name string, updated_at timestamp"
T = datetime(2024, 1, 1)


def _snapshot(project: ScratchProject) -> None:
    write_snapshot(project, "snap", CONFIG, select="select * from {{ target.schema }}.src")


def _source(project: ScratchProject, rows: list[tuple]) -> None:
    project.spark.sql(f"create schema if not exists {project.schema}")
    project.spark.createDataFrame(rows, DDL).writeTo(project.table("src")).using(
        "iceberg"
    ).createOrReplace()


def _partition_columns(project: ScratchProject) -> list[str]:
    rows = project.spark.sql(f"describe table {project.table('snap')}").collect()
    names = [r[0] for r in rows]
    if "# Partition Information" not in names:
        return []
    return [n for n in names[names.index("# Partition Information") + 1 :] if not n.startswith("#")]


def _snapshot_ids(project: ScratchProject) -> set[int]:
    table = project.table("snap")
    return {r.snapshot_id for r in project.spark.sql(f"select * from {table}.snapshots").collect()}


def _files(project: ScratchProject, closed_by: str) -> set[str]:
    return {
        r.file_path
        for r in project.spark.sql(
            f"select file_path from {project.table('snap')}.files "
            f"where partition.audit_update_process_id = '{closed_by}'"
        ).collect()
    }


def test_closed_history_is_neither_read_nor_rewritten(dbt_project: ScratchProject) -> None:
    _snapshot(dbt_project)
    _source(dbt_project, [(1, "a", T), (2, "b", T), (3, "c", T)])
    run1 = dbt_project.dbt("snapshot")
    assert _partition_columns(dbt_project) == ["audit_update_process_id"]

    # Day 2: 1 renamed, 2 deleted, 3 unchanged.
    _source(dbt_project, [(1, "a2", T), (3, "c", T)])
    run2 = dbt_project.dbt("snapshot")
    closed_by_run2 = _files(dbt_project, run2.invocation_id)
    assert closed_by_run2, "run 2's closed versions have a partition of their own"

    # Day 3: 1 renamed again, 3 deleted, 4 new. Run 2's closed versions stay in their files.
    _source(dbt_project, [(1, "a3", T), (4, "d", T)])
    run3 = dbt_project.dbt("snapshot")
    assert _files(dbt_project, run2.invocation_id) == closed_by_run2
    (summary,) = dbt_project.spark.sql(
        f"select summary from {dbt_project.table('snap')}.snapshots "
        "order by committed_at desc limit 1"
    ).first()
    # The merge touched the open partition and created run 3's: nothing else.
    assert summary["changed-partition-count"] == "2", summary

    rows = history(dbt_project, "snap")
    assert [(r["id"], r["name"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, "a", False),
        (1, "a2", False),
        (1, "a3", True),
        (2, "b", False),
        (3, "c", False),
        (4, "d", True),
    ]
    by_name = {r["name"]: r for r in rows}
    ids = run1.invocation_id, run2.invocation_id, run3.invocation_id
    assert_closed(by_name["a"], ids[0], ids[1])
    assert_closed(by_name["a2"], ids[1], ids[2])
    assert_closed(by_name["b"], ids[0], ids[1])
    assert_closed(by_name["c"], ids[0], ids[2])
    assert_open(by_name["a3"], ids[2])
    assert_open(by_name["d"], ids[2])


def test_table_built_before_the_layout_is_upgraded_in_place(dbt_project: ScratchProject) -> None:
    _snapshot(dbt_project)
    _source(dbt_project, [(1, "a", T), (2, "b", T), (3, "c", T)])
    run1 = dbt_project.dbt("snapshot")
    day2 = [(1, "a2", T), (3, "c", T)]
    _source(dbt_project, day2)
    run2 = dbt_project.dbt("snapshot")
    # The table as the previous version of these macros left it: unpartitioned.
    table = dbt_project.table("snap")
    dbt_project.spark.sql(f"create or replace table {table} using iceberg as select * from {table}")
    assert _partition_columns(dbt_project) == []
    before = history(dbt_project, "snap")
    snapshots_before = _snapshot_ids(dbt_project)

    # Day 3 (1 renamed, 4 new): the run upgrades the table, then snapshots as usual.
    _source(dbt_project, [(1, "a3", T), (3, "c", T), (4, "d", T)])
    run3 = dbt_project.dbt("snapshot")
    assert _partition_columns(dbt_project) == ["audit_update_process_id"]
    assert snapshots_before < _snapshot_ids(dbt_project), "the table's snapshot history is kept"
    rows = history(dbt_project, "snap")
    # Every version from before the upgrade is still there, unchanged but for a3's close.
    untouched = [r for r in before if r["name"] != "a2"]
    assert all(r in rows for r in untouched)
    assert [(r["id"], r["name"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, "a", False),
        (1, "a2", False),
        (1, "a3", True),
        (2, "b", False),
        (3, "c", True),
        (4, "d", True),
    ]
    by_name = {r["name"]: r for r in rows}
    assert_closed(by_name["a2"], run2.invocation_id, run3.invocation_id)
    assert_open(by_name["c"], run1.invocation_id)
    assert_open(by_name["d"], run3.invocation_id)


def test_partition_fields_added_by_hand_are_kept(dbt_project: ScratchProject) -> None:
    """A table with a partition transform of the user's (`bucket(4, id)` beside the audit
    column) keeps it: Spark's `describe` lists such fields under '# Partitioning', where the
    layout read only '# Partition Information', took the table for unpartitioned and re-created
    it partitioned by the audit column alone, on a run with no change too."""
    _snapshot(dbt_project)
    _source(dbt_project, [(1, "a", T), (2, "b", T)])
    run1 = dbt_project.dbt("snapshot")
    table = dbt_project.table("snap")
    dbt_project.spark.sql(f"alter table {table} add partition field bucket(4, id)")

    def fields() -> list[str]:
        rows = dbt_project.spark.sql(f"describe table {table}").collect()
        return [r[1] for r in rows if (r[0] or "").startswith("Part ")]

    assert fields() == ["audit_update_process_id", "bucket(4, id)"]
    dbt_project.dbt("snapshot")  # no change
    assert fields() == ["audit_update_process_id", "bucket(4, id)"]
    _source(dbt_project, [(1, "a2", T), (2, "b", T), (3, "c", T)])
    run3 = dbt_project.dbt("snapshot")
    assert fields() == ["audit_update_process_id", "bucket(4, id)"]
    rows = history(dbt_project, "snap")
    assert [(r["id"], r["name"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, "a", False),
        (1, "a2", True),
        (2, "b", True),
        (3, "c", True),
    ]
    assert_closed(rows[0], run1.invocation_id, run3.invocation_id)
    assert_open(rows[1], run3.invocation_id)
    assert_open(rows[2], run1.invocation_id)

    # The source gains a column: the one-commit rewrite, built from the snapshot's config,
    # would drop the fields; the run fails, writing nothing, until the column is added.
    dbt_project.spark.sql(
        f"create or replace table {dbt_project.table('src')} using iceberg as "
        f"select *, 'x' as extra from {dbt_project.table('src')}"
    )
    step = dbt_project.dbt("snapshot", check=False)
    (result,) = step.result.results
    assert "is partitioned by audit_update_process_id, bucket(4, id), set by hand" in str(
        result.message
    )
    assert fields() == ["audit_update_process_id", "bucket(4, id)"]
    assert history(dbt_project, "snap") == rows
    dbt_project.spark.sql(f"alter table {table} add columns (extra string)")
    dbt_project.dbt("snapshot")
    assert fields() == ["audit_update_process_id", "bucket(4, id)"]

    # An integer column whose source turns double: no `alter table` makes it a double in
    # Iceberg, so the message does not advise one.
    def source_with_qty(qty: object, qty_type: str) -> None:
        rows = [(1, "a2", T, "x", qty), (2, "b", T, "x", qty), (3, "c", T, "x", qty)]
        dbt_project.spark.createDataFrame(rows, f"{DDL}, extra string, qty {qty_type}").writeTo(
            dbt_project.table("src")
        ).using("iceberg").createOrReplace()

    dbt_project.spark.sql(f"alter table {table} add columns (qty int)")
    source_with_qty(7, "int")
    dbt_project.dbt("snapshot")
    rows = history(dbt_project, "snap")
    source_with_qty(7.5, "double")
    message = str(dbt_project.dbt("snapshot", check=False).result.results[0].message)
    assert "set by hand" in message, message
    assert (
        "Iceberg changes no integer column to a float in place (qty): select the new values "
        "under a new column name instead" in message
    ), message
    assert history(dbt_project, "snap") == rows


def test_a_rewrite_keeps_the_tables_write_settings(dbt_project: ScratchProject) -> None:
    """A run that adds a column replaces the table in one commit. Iceberg's replace keeps the
    properties it is not given but drops the write order; the rewrite also gave this project's
    write.*distribution-mode defaults over values set by hand. Both are the table's own now:
    the order is set again after the replace, and the values set by hand stay."""
    _snapshot(dbt_project)
    _source(dbt_project, [(1, "a", T), (2, "b", T)])
    run1 = dbt_project.dbt("snapshot")
    table = dbt_project.table("snap")
    spark = dbt_project.spark
    spark.sql(f"alter table {table} write ordered by id desc nulls last, name")  # mode: range
    spark.sql(
        f"alter table {table} set tblproperties "
        "('write.merge.distribution-mode' = 'hash', 'owner.note' = 'kept')"
    )

    def settings() -> dict[str, str | None]:
        properties = {r.key: r.value for r in spark.sql(f"show tblproperties {table}").collect()}
        keys = (
            "sort-order",
            "write.distribution-mode",
            "write.merge.distribution-mode",
            "write.update.distribution-mode",
            "owner.note",
        )
        return {key: properties.get(key) for key in keys}

    expected = {
        "sort-order": "id DESC NULLS LAST, name ASC NULLS FIRST",
        "write.distribution-mode": "range",
        "write.merge.distribution-mode": "hash",
        "write.update.distribution-mode": "none",  # this project's default, never changed
        "owner.note": "kept",
    }
    assert settings() == expected
    commits = len(_snapshot_ids(dbt_project))

    # The source gains a column (which, as in dbt's check strategy, changes every row) and
    # id 1 a value: the one-commit rewrite.
    day2 = spark.createDataFrame([(1, "a2", T, "x"), (2, "b", T, "y")], f"{DDL}, extra string")
    day2.writeTo(dbt_project.table("src")).using("iceberg").createOrReplace()
    run2 = dbt_project.dbt("snapshot")
    rows = history(dbt_project, "snap")
    assert [(r["id"], r["name"], r["extra"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, "a", None, False),
        (1, "a2", "x", True),
        (2, "b", None, False),
        (2, "b", "y", True),
    ]
    for closed, opened in ((rows[0], rows[1]), (rows[2], rows[3])):
        assert_closed(closed, run1.invocation_id, run2.invocation_id)
        assert_open(opened, run2.invocation_id)
    assert settings() == expected
    assert len(_snapshot_ids(dbt_project)) == commits + 1  # the order is metadata, no snapshot
    assert _partition_columns(dbt_project) == ["audit_update_process_id"]


def test_a_rewrite_keeps_a_write_order_on_a_name_that_needs_quoting(
    dbt_project: ScratchProject,
) -> None:
    """Iceberg describes a write order with its columns' names unquoted (`Cust Name ASC NULLS
    FIRST`): set again as such after a rewrite, it failed after the rows' commit, the run
    reported a failure whose versions were written, and the order was lost."""
    select = "select id, name as `Cust Name`, updated_at from {{ target.schema }}.src"
    write_snapshot(dbt_project, "snap", CONFIG, select=select)
    _source(dbt_project, [(1, "a", T), (2, "b", T)])
    dbt_project.dbt("snapshot")
    table = dbt_project.table("snap")
    spark = dbt_project.spark
    spark.sql(
        f"alter table {table} write ordered by `Cust Name`, bucket(2, `Cust Name`) desc, "
        "truncate(`Cust Name`, 3), days(updated_at), id"
    )

    def order() -> str | None:
        rows = spark.sql(f"show tblproperties {table}").collect()
        return {r.key: r.value for r in rows}.get("sort-order")

    before = order()
    assert before == (
        "Cust Name ASC NULLS FIRST, bucket(2, Cust Name) DESC NULLS LAST, "
        "truncate(Cust Name, 3) ASC NULLS FIRST, days(updated_at) ASC NULLS FIRST, "
        "id ASC NULLS FIRST"
    )
    # A new column: the one-commit rewrite, then the order set again.
    write_snapshot(
        dbt_project, "snap", CONFIG, select=select.replace(" from", ", 'x' as extra from")
    )
    dbt_project.dbt("snapshot")
    assert order() == before
    rows = history(dbt_project, "snap")
    assert [(r["id"], r["Cust Name"], r["extra"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, "a", None, False),
        (1, "a", "x", True),
        (2, "b", None, False),
        (2, "b", "x", True),
    ]
