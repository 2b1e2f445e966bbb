"""Snapshot overrides: dbt's SCD2 history plus operational metadata, case by case.

Every test runs seed, snapshot, change, snapshot on real dbt + Spark + Iceberg; each
`dbt snapshot` is its own invocation, whose id must appear in the metadata.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
import yaml

from python_helpers.runtime.dbt_invoke import DbtStepError
from python_helpers.tooling.scratch import ScratchProject
from tests.snapshot_helpers import (
    AUDIT,
    HIGH_END,
    assert_closed,
    assert_open,
    columns,
    compiled_code,
    day,
    history,
    snapshot_failure,
    write_snapshot,
    write_stock_built_table,
)
from tests.test_reliability import SCD2_TESTS

HEADER = "id,name,amount"
DAY1 = ["1,a,10", "2,b,20", "3,c,30"]
# id 1 updated, id 2 unchanged, id 3 deleted, id 4 new
DAY2 = ["1,a,11", "2,b,20", "4,d,40"]


def _by_key(rows: list[dict], *keys: str) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = {}
    for row in rows:
        out.setdefault(tuple(row[k] for k in keys), []).append(row)
    return out


@pytest.mark.parametrize("check_cols", ["['name', 'amount']", "'all'"])
def test_check_strategy_invalidate_records_runs(
    dbt_project: ScratchProject, check_cols: str
) -> None:
    write_snapshot(
        dbt_project,
        "snap",
        f"unique_key='id', strategy='check', check_cols={check_cols}, hard_deletes='invalidate'",
    )
    run1 = day(dbt_project, HEADER, DAY1)
    rows = history(dbt_project, "snap")
    # Day 1: three open versions inserted by run 1.
    assert [(r["id"], r["amount"], r["dbt_valid_to"]) for r in rows] == [
        (1, 10, None),
        (2, 20, None),
        (3, 30, None),
    ]
    for r in rows:
        assert_open(r, run1.invocation_id)
    assert set(AUDIT) <= set(columns(dbt_project, "snap"))

    run2 = day(dbt_project, HEADER, DAY2)
    assert run2.invocation_id != run1.invocation_id
    rows = history(dbt_project, "snap")
    # Day 2: 1 closed + re-inserted, 2 untouched, 3 closed as deleted, 4 inserted.
    assert [(r["id"], r["amount"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, 10, False),
        (1, 11, True),
        (2, 20, True),
        (3, 30, False),
        (4, 40, True),
    ]
    v1_old, v1_new, v2, v3, v4 = rows
    assert_closed(v1_old, run1.invocation_id, run2.invocation_id)
    assert_open(v1_new, run2.invocation_id)
    assert v1_new["dbt_valid_from"] == v1_old["dbt_valid_to"]  # no gap, no overlap
    assert_open(v2, run1.invocation_id)
    assert_closed(v3, run1.invocation_id, run2.invocation_id)
    assert_open(v4, run2.invocation_id)
    # One closing run, one processing time for all it closed and inserted.
    assert v1_old["audit_update_ts"] == v3["audit_update_ts"] == v4["audit_insert_ts"]


@pytest.mark.parametrize("catalog", [None, "spark_catalog"])
def test_a_source_of_files_is_read_as_it_is_now(
    dbt_project: ScratchProject, tmp_path, catalog: str | None
) -> None:
    """A snapshot of a table over a folder of CSV files (a daily extract, replaced in place),
    read through source() and run day after day in one Spark session (as a notebook or a
    long-lived process runs dbt). Spark keeps such a table's list of files for the session:
    without the snapshot's refresh, day 2 failed on day 1's file, gone by then, and a file
    added beside day 2's was not read, the run reporting success. The source's schema may
    name its catalog (`spark_catalog.<schema>`), which `show databases` does not list: such
    a source was not refreshed."""
    folder = tmp_path / "extract"
    folder.mkdir()
    (folder / "day1.csv").write_text("\n".join(DAY1) + "\n")
    ddl = "id int, name string, amount int"
    dbt_project.source_over_files("landing", "extract", ddl, "csv", folder, catalog=catalog)
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'",
        select="select * from {{ source('landing', 'extract') }}",
    )
    run1 = dbt_project.dbt("snapshot")
    # Day 1: three open versions.
    assert [(r["id"], r["amount"], r["dbt_valid_to"]) for r in history(dbt_project, "snap")] == [
        (1, 10, None),
        (2, 20, None),
        (3, 30, None),
    ]

    (folder / "day1.csv").unlink()
    (folder / "day2.csv").write_text("\n".join(DAY2) + "\n")
    run2 = dbt_project.dbt("snapshot")
    # Day 2: 1 updated, 2 unchanged, 3 deleted, 4 new.
    rows = history(dbt_project, "snap")
    assert [(r["id"], r["amount"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, 10, False),
        (1, 11, True),
        (2, 20, True),
        (3, 30, False),
        (4, 40, True),
    ]
    assert_closed(rows[3], run1.invocation_id, run2.invocation_id)

    # Day 3: a file added beside day 2's brings key 5; nothing else changes.
    (folder / "day3.csv").write_text("5,e,50\n")
    run3 = dbt_project.dbt("snapshot")
    rows = history(dbt_project, "snap")
    assert [(r["id"], r["amount"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, 10, False),
        (1, 11, True),
        (2, 20, True),
        (3, 30, False),
        (4, 40, True),
        (5, 50, True),
    ]
    assert_open(rows[5], run3.invocation_id)

    # --empty renders the source as a subquery; the run refreshes its table, writes nothing.
    dbt_project.dbt("snapshot", "--empty")
    assert history(dbt_project, "snap") == rows


def test_a_relation_that_does_not_exist_fails_the_run_naming_it(
    dbt_project: ScratchProject, tmp_path
) -> None:
    """A source dropped after the first run, a ref to a model not built yet, and an
    scd2_events model over a source never created: each run fails before writing, naming the
    ref() or source() and what to do (Spark's TABLE_OR_VIEW_NOT_FOUND named the table and
    advised `DROP VIEW IF EXISTS`). A ref named only in comments or strings, as Spark's lexer
    reads them (nested comments, a quote inside a backquoted name, a raw string ending in a
    backslash), is not read, so it need not exist; nor are relations no schema lists (a global
    temporary view, files by their path, an Iceberg metadata table) taken for missing."""
    folder = tmp_path / "extract"
    folder.mkdir()
    (folder / "day1.csv").write_text("\n".join(DAY1) + "\n")
    spark = dbt_project.spark
    spark.sql(f"create schema if not exists {dbt_project.schema}")
    spark.sql(
        f"create table {dbt_project.table('extract')} (id int, name string, amount int) "
        f"using csv location '{folder}'"
    )
    # Read though no schema lists them: a global temporary view, and files by their path.
    spark.sql(
        f"create or replace global temp view {dbt_project.schema}_view "
        "as select * from values (5, 'e', 50) as t(id, name, amount)"
    )
    spark.createDataFrame([(6, "f", 60)], "id int, name string, amount int").write.parquet(
        str(tmp_path / "files")
    )
    tables = [
        {"name": "extract"},
        {"name": "change_events"},
        {"name": "snap_commits", "identifier": "snap.snapshots"},
        {"name": "gone"},
    ]
    sources = [
        {"name": "landing", "schema": dbt_project.schema, "tables": tables},
        {
            "name": "temp",
            "schema": "global_temp",
            "tables": [{"name": f"{dbt_project.schema}_view"}],
        },
        {
            "name": "files",
            "schema": "parquet",
            "quoting": {"identifier": True},
            "tables": [{"name": "day", "identifier": str(tmp_path / "files")}],
        },
    ]
    dbt_project.write("models/landing.yml", yaml.safe_dump({"version": 2, "sources": sources}))
    dbt_project.write("models/unbuilt.sql", "select 1 as id")
    ephemeral = "{{ config(materialized='ephemeral') }} select * from "
    dbt_project.write("models/eph_extract.sql", ephemeral + "{{ source('landing', 'extract') }}")
    dbt_project.write("models/eph_gone.sql", ephemeral + "{{ source('landing', 'gone') }}")
    dbt_project.write("models/eph_eph.sql", ephemeral + "{{ ref('eph_gone') }}")
    config = "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'"
    write_snapshot(
        dbt_project,
        "snap",
        config,
        select="-- depends_on: {{ ref('unbuilt') }}\n"
        "/* nested /* comment */ {{ ref('unbuilt') }} */\n"
        "select id, name as `name's`, amount, r'C:\\' as path, "
        "'not {{ ref(\"unbuilt\") }}' as label\n"
        "from {{ source('landing', 'extract') }} -- label's source: {{ ref('unbuilt') }}",
    )
    write_snapshot(dbt_project, "early", config, select="select * from {{ ref('unbuilt') }}")
    write_snapshot(
        dbt_project,
        "elsewhere",
        config,
        select=f"select * from {{{{ source('temp', '{dbt_project.schema}_view') }}}} "
        "union all select * from {{ source('files', 'day') }}",
    )
    write_snapshot(dbt_project, "via_eph", config, select="select * from {{ ref('eph_extract') }}")
    write_snapshot(dbt_project, "via_eph_eph", config, select="select * from {{ ref('eph_eph') }}")
    write_snapshot(
        dbt_project,
        "commits",
        "unique_key='snapshot_id', strategy='check', check_cols='all'",
        select="select snapshot_id, operation from {{ source('landing', 'snap_commits') }}",
    )
    dbt_project.write(
        "models/history.sql",
        """
        {{ config(materialized='scd2_events', unique_key='id', event_order_by=['ts']) }}
        select * from {{ source('landing', 'change_events') }}
        """,
    )

    # Day 1: `unbuilt` is only named in a comment and a string; three open versions.
    dbt_project.dbt("snapshot", "--select", "snap")
    before = history(dbt_project, "snap")
    assert [(r["id"], r["amount"], r["dbt_valid_to"]) for r in before] == [
        (1, 10, None),
        (2, 20, None),
        (3, 30, None),
    ]
    commits = spark.sql(f"select * from {dbt_project.table('snap')}.snapshots").count()

    dbt_project.dbt("snapshot", "--select", "elsewhere")
    assert [(r["id"], r["amount"]) for r in history(dbt_project, "elsewhere")] == [(5, 50), (6, 60)]
    dbt_project.dbt("snapshot", "--select", "commits")
    # One open version per commit of `snap`, as Spark reads its metadata table.
    expected = spark.sql(
        f"select snapshot_id, operation from {dbt_project.table('snap')}.snapshots"
    )
    rows = history(dbt_project, "commits", order_by="snapshot_id")
    assert [(r["snapshot_id"], r["operation"], r["dbt_valid_to"]) for r in rows] == sorted(
        (r.snapshot_id, r.operation, None) for r in expected.collect()
    )

    # A source read through an ephemeral model is refreshed too: a file added to the folder
    # is read by the next run in this session (Spark kept the table's list of files).
    dbt_project.dbt("snapshot", "--select", "via_eph")
    (folder / "day1b.csv").write_text("7,g,70\n")
    dbt_project.dbt("snapshot", "--select", "via_eph")
    assert [(r["id"], r["dbt_valid_to"]) for r in history(dbt_project, "via_eph")] == [
        (1, None),
        (2, None),
        (3, None),
        (7, None),
    ]
    # A missing source read through two ephemeral models: named, with the model it comes
    # through; no table.
    message = snapshot_failure(dbt_project, "--select", "via_eph_eph")
    assert (
        "Snapshot 'via_eph_eph': its query reads source('landing', 'gone') (read through the "
        f"ephemeral model eph_gone), the table {dbt_project.schema}.gone, which does not exist."
        in message
    ), message
    assert not spark.catalog.tableExists(dbt_project.table("via_eph_eph"))

    # The source is dropped: the run fails naming it; the history and its commits stay.
    spark.sql(f"drop table {dbt_project.table('extract')}")
    message = snapshot_failure(dbt_project, "--select", "snap")
    assert (
        "Snapshot 'snap': its query reads source('landing', 'extract'), the table "
        f"{dbt_project.schema}.extract, which does not exist. {dbt_project.schema}.snap was "
        "not written. "
        "Load the source first" in message
    ), message
    assert "DROP VIEW" not in message, message
    assert history(dbt_project, "snap") == before
    assert spark.sql(f"select * from {dbt_project.table('snap')}.snapshots").count() == commits

    # A first run over a model not built yet: said so; no table.
    message = snapshot_failure(dbt_project, "--select", "early")
    assert (
        f"Snapshot 'early': its query reads ref('unbuilt'), the table {dbt_project.schema}"
        f".unbuilt, which does not exist. {dbt_project.schema}.early was not written. "
        "Build it first" in message
    ), message
    assert not spark.catalog.tableExists(dbt_project.table("early"))

    # An scd2_events model over a source never created: the same, before anything is built.
    step = dbt_project.dbt("run", "--select", "history", check=False)
    (result,) = step.result.results
    assert str(result.status).lower() == "error", result.status
    assert "scd2_events model history: its query reads source('landing', 'change_events')" in str(
        result.message
    ), result.message
    assert not spark.catalog.tableExists(dbt_project.table("history"))


def test_timestamp_strategy(dbt_project: ScratchProject) -> None:
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='id', strategy='timestamp', updated_at='updated_at', hard_deletes='invalidate'",
    )
    header = "id,amount,updated_at"
    run1 = day(dbt_project, header, ["1,10,2024-01-01 00:00:00", "2,20,2024-01-01 00:00:00"])
    rows = history(dbt_project, "snap")
    assert [(r["id"], str(r["dbt_valid_from"])) for r in rows] == [
        (1, "2024-01-01 00:00:00"),
        (2, "2024-01-01 00:00:00"),
    ]
    for r in rows:
        assert_open(r, run1.invocation_id)
        # Validity follows the source's updated_at; processing time is the run's clock.
        assert r["effective_start_ts"] == r["dbt_valid_from"]
        assert r["audit_insert_ts"] > r["dbt_valid_from"]

    # Day 2: id 1 updated at 2024-01-02 (amount changed), id 2 changed amount but kept its
    # updated_at (the timestamp strategy must not see it), id 3 new.
    run2 = day(
        dbt_project,
        header,
        ["1,11,2024-01-02 00:00:00", "2,21,2024-01-01 00:00:00", "3,30,2024-01-02 00:00:00"],
    )
    rows = history(dbt_project, "snap")
    assert [
        (r["id"], r["amount"], str(r["dbt_valid_from"]), str(r["dbt_valid_to"])) for r in rows
    ] == [
        (1, 10, "2024-01-01 00:00:00", "2024-01-02 00:00:00"),
        (1, 11, "2024-01-02 00:00:00", "None"),
        (2, 20, "2024-01-01 00:00:00", "None"),
        (3, 30, "2024-01-02 00:00:00", "None"),
    ]
    assert_closed(rows[0], run1.invocation_id, run2.invocation_id)
    assert str(rows[0]["effective_end_ts"]) == "2024-01-02 00:00:00"
    assert_open(rows[1], run2.invocation_id)
    assert_open(rows[2], run1.invocation_id)
    assert_open(rows[3], run2.invocation_id)


def test_composite_key_leaves_no_helper_columns(dbt_project: ScratchProject) -> None:
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key=['k1', 'k2'], strategy='check', check_cols='all', hard_deletes='invalidate'",
    )
    header = "k1,k2,amount"
    run1 = day(dbt_project, header, ["a,1,10", "a,2,20", "b,1,30"])
    run2 = day(dbt_project, header, ["a,1,11", "a,2,20", "b,2,40"])
    run3 = day(dbt_project, header, ["a,1,11", "a,2,20", "b,2,40"])  # nothing changed
    cols = columns(dbt_project, "snap")
    assert not [c for c in cols if c.startswith("dbt_unique_key")], cols
    rows = history(dbt_project, "snap", order_by="k1, k2")
    assert [(r["k1"], r["k2"], r["amount"], r["dbt_valid_to"] is None) for r in rows] == [
        ("a", 1, 10, False),
        ("a", 1, 11, True),
        ("a", 2, 20, True),
        ("b", 1, 30, False),
        ("b", 2, 40, True),
    ]
    assert_closed(rows[0], run1.invocation_id, run2.invocation_id)
    assert_open(rows[1], run2.invocation_id)
    assert_open(rows[2], run1.invocation_id)
    assert_closed(rows[3], run1.invocation_id, run2.invocation_id)
    assert_open(rows[4], run2.invocation_id)
    assert run3.invocation_id not in {r["audit_update_process_id"] for r in rows}
    assert run3.invocation_id not in {r["audit_insert_process_id"] for r in rows}


def test_keys_whose_parts_share_a_hash_keep_their_own_versions(
    dbt_project: ScratchProject,
) -> None:
    """dbt_scd_id is md5 of the key's parts joined by `|`: (`x|`, `y`) and (`x`, `|y`)
    inserted in one run share it. Each run must close and add only its own key's versions:
    matching on the id alone closed both keys when one changed. Run 2 adds a column (the
    one-commit rewrite), run 3 is a MERGE; each path meets a pair of such keys."""
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key=['a', 'b'], strategy='check', check_cols=['v'], hard_deletes='invalidate'",
    )
    run1 = day(dbt_project, "a,b,v", ["x|,y,v1", "x,|y,v2", "p,q,v3"])
    rows = history(dbt_project, "snap", order_by="a, b")
    assert rows[1]["dbt_scd_id"] == rows[2]["dbt_scd_id"]  # (x, |y) and (x|, y): one id

    # Run 2: a new column w; (x|, y) changes; (z|, 1) and (z, |1) are new in one run.
    run2 = day(
        dbt_project,
        "a,b,v,w",
        ["x|,y,v1b,w", "x,|y,v2,", "p,q,v3,", "z|,1,v4,", "z,|1,v5,"],
    )
    rows = history(dbt_project, "snap", order_by="a, b")
    assert [(r["a"], r["b"], r["v"], r["dbt_valid_to"] is None) for r in rows] == [
        ("p", "q", "v3", True),
        ("x", "|y", "v2", True),
        ("x|", "y", "v1", False),
        ("x|", "y", "v1b", True),
        ("z", "|1", "v5", True),
        ("z|", "1", "v4", True),
    ]
    assert_open(rows[1], run1.invocation_id)
    assert_closed(rows[2], run1.invocation_id, run2.invocation_id)
    assert rows[4]["dbt_scd_id"] == rows[5]["dbt_scd_id"]

    # Run 3 (a MERGE): only (z, |1) changes.
    run3 = day(
        dbt_project,
        "a,b,v,w",
        ["x|,y,v1b,w", "x,|y,v2,", "p,q,v3,", "z|,1,v4,", "z,|1,v5b,"],
    )
    rows = history(dbt_project, "snap", order_by="a, b")
    assert [(r["a"], r["b"], r["v"], r["dbt_valid_to"] is None) for r in rows] == [
        ("p", "q", "v3", True),
        ("x", "|y", "v2", True),
        ("x|", "y", "v1", False),
        ("x|", "y", "v1b", True),
        ("z", "|1", "v5", False),
        ("z", "|1", "v5b", True),
        ("z|", "1", "v4", True),
    ]
    assert_closed(rows[4], run2.invocation_id, run3.invocation_id)
    assert_open(rows[5], run3.invocation_id)
    assert_open(rows[6], run2.invocation_id)


def test_a_new_key_sharing_an_open_versions_id_is_inserted(dbt_project: ScratchProject) -> None:
    """Timestamp strategy: (`x`, `|y`) arrives with the updated_at of the open (`x|`, `y`),
    so dbt's id for it is that version's. The MERGE took it for that version and dropped it."""
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key=['a', 'b'], strategy='timestamp', updated_at='u', hard_deletes='invalidate'",
    )
    header = "a,b,v,u"
    run1 = day(dbt_project, header, ["x|,y,v1,2024-01-01 00:00:00"])
    run2 = day(dbt_project, header, ["x|,y,v1,2024-01-01 00:00:00", "x,|y,v2,2024-01-01 00:00:00"])
    rows = history(dbt_project, "snap", order_by="a, b")
    assert [(r["a"], r["b"], r["v"], r["dbt_valid_to"]) for r in rows] == [
        ("x", "|y", "v2", None),
        ("x|", "y", "v1", None),
    ]
    assert_open(rows[0], run2.invocation_id)
    assert_open(rows[1], run1.invocation_id)


def test_unique_key_expression_between_quoted_names(dbt_project: ScratchProject) -> None:
    """unique_key may be an SQL expression, as dbt takes one; this one starts and ends with a
    quoted column (`a` || '-' || `b`). The source-column check took it for one quoted name,
    `a` || '-' || `b` without its outer backticks, and failed every run saying the query does
    not return that column. Run 2: (x, 1) changes, (y, 2) goes, (z, 3) is new."""
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key=\"`a` || '-' || `b`\", strategy='check', check_cols=['v'], "
        "hard_deletes='invalidate'",
    )
    run1 = day(dbt_project, "a,b,v", ["x,1,v1", "y,2,v2", "w,4,v4"])
    run2 = day(dbt_project, "a,b,v", ["x,1,v1b", "z,3,v3", "w,4,v4"])
    rows = history(dbt_project, "snap", order_by="a, b")
    assert [(r["a"], r["b"], r["v"], r["dbt_valid_to"] is None) for r in rows] == [
        ("w", 4, "v4", True),
        ("x", 1, "v1", False),
        ("x", 1, "v1b", True),
        ("y", 2, "v2", False),
        ("z", 3, "v3", True),
    ]
    assert_open(rows[0], run1.invocation_id)
    assert_closed(rows[1], run1.invocation_id, run2.invocation_id)
    assert_open(rows[2], run2.invocation_id)
    assert_closed(rows[3], run1.invocation_id, run2.invocation_id)
    assert_open(rows[4], run2.invocation_id)


def test_column_names_that_need_quoting(dbt_project: ScratchProject) -> None:
    """Source columns `Cust Id` and `e-Mail`, quoted in unique_key and check_cols as dbt's
    strategies write them into SQL: the snapshot runs as with plain names. The check_cols
    guard used to reject the quoted name as a column the query does not return."""
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='`Cust Id`', strategy='check', check_cols=['`e-Mail`'], "
        "hard_deletes='invalidate'",
    )
    header = "Cust Id,e-Mail,note"
    run1 = day(dbt_project, header, ["1,a@x,n1", "2,b@x,n2", "3,c@x,n3"])
    # 1: e-Mail changed; 2: only note changed (not a check column); 3 deleted; 4 new.
    run2 = day(dbt_project, header, ["1,a2@x,n1", "2,b@x,n2-new", "4,d@x,n4"])
    rows = history(dbt_project, "snap", order_by="`Cust Id`")
    assert [(r["Cust Id"], r["e-Mail"], r["note"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, "a@x", "n1", False),
        (1, "a2@x", "n1", True),
        (2, "b@x", "n2", True),
        (3, "c@x", "n3", False),
        (4, "d@x", "n4", True),
    ]
    assert_closed(rows[0], run1.invocation_id, run2.invocation_id)
    assert_open(rows[1], run2.invocation_id)
    assert_open(rows[2], run1.invocation_id)
    assert_closed(rows[3], run1.invocation_id, run2.invocation_id)
    assert_open(rows[4], run2.invocation_id)

    # The analyst macros read the same columns (they quote them), given the snapshot, or a
    # relation from adapter.get_relation (none while dbt parses the project).
    found = "adapter.get_relation(database=none, schema=target.schema, identifier='snap')"
    models = {
        "current": "scd2_current(ref('snap'), include_metadata='false')",
        "found_current": f"scd2_current({found}, unique_key='`Cust Id`')",
        "as_of": "scd2_as_of(ref('snap'), 'current_timestamp()')",
        "feed": "scd2_change_feed(ref('snap'), snapshot_name=\"o'snap\")",
        "legacy": "scd2_legacy(ref('snap'))",
    }
    for name, call in models.items():
        dbt_project.write(
            f"models/{name}.sql", f"{{{{ config(materialized='view') }}}}\n{{{{ {call} }}}}"
        )
    dbt_project.dbt("run", "--select", *models)

    def select(name: str, order_by: str = "`Cust Id`") -> list[tuple]:
        rows = dbt_project.spark.sql(
            f"select * from {dbt_project.table(name)} order by {order_by}"
        ).collect()
        return [tuple(r) for r in rows]

    current = [(1, "a2@x", "n1"), (2, "b@x", "n2"), (4, "d@x", "n4")]
    assert select("current") == current  # include_metadata='false': no metadata columns
    # The macros select the columns as the table spells them (`cust id` and `e-mail`
    # before), as a table built of their select shows; Spark's Hive metastore keeps a view's
    # column names in lower case whatever its select says.
    for name, call in models.items():
        dbt_project.write(
            f"models/{name}_table.sql", f"{{{{ config(materialized='table') }}}}\n{{{{ {call} }}}}"
        )
    dbt_project.dbt("run", "--select", *(f"{name}_table" for name in models))
    for name in models:
        columns = dbt_project.spark.table(dbt_project.table(f"{name}_table")).columns
        assert {"Cust Id", "e-Mail"} <= set(columns), (name, columns)
    assert select("found_current") == current
    assert select("as_of") == current
    feed = select("feed", order_by="`Cust Id`, _change_type")
    assert [(r[0], *r[1:5]) for r in feed] == [
        ("o'snap", 1, "a@x", "n1", "insert"),  # run 1
        ("o'snap", 1, "a2@x", "n1", "update_postimage"),  # run 2
        ("o'snap", 1, "a@x", "n1", "update_preimage"),  # run 2
        ("o'snap", 2, "b@x", "n2", "insert"),  # run 1
        ("o'snap", 3, "c@x", "n3", "delete"),  # run 2
        ("o'snap", 3, "c@x", "n3", "insert"),  # run 1
        ("o'snap", 4, "d@x", "n4", "insert"),  # run 2
    ]
    legacy = dbt_project.spark.sql(
        f"select `Cust Id`, dbt_valid_to from {dbt_project.table('legacy')}"
    ).collect()
    assert len(legacy) == 5 and all(r.dbt_valid_to is not None for r in legacy)


def test_hard_deletes_ignore_keeps_deleted_key_open(dbt_project: ScratchProject) -> None:
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='id', strategy='check', check_cols='all', hard_deletes='ignore'",
    )
    run1 = day(dbt_project, HEADER, DAY1)
    run2 = day(dbt_project, HEADER, DAY2)
    rows = history(dbt_project, "snap")
    assert [(r["id"], r["amount"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, 10, False),
        (1, 11, True),
        (2, 20, True),
        (3, 30, True),  # deleted in the source, still open: hard deletes ignored
        (4, 40, True),
    ]
    assert_closed(rows[0], run1.invocation_id, run2.invocation_id)
    assert_open(rows[3], run1.invocation_id)


def test_hard_deletes_new_record_and_key_coming_back(dbt_project: ScratchProject) -> None:
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='id', strategy='check', check_cols='all', hard_deletes='new_record'",
    )
    run1 = day(dbt_project, HEADER, DAY1)
    for r in history(dbt_project, "snap"):
        assert_open(r, run1.invocation_id)
        assert r["dbt_is_deleted"] == "False"

    run2 = day(dbt_project, HEADER, DAY2)
    rows = [r for r in history(dbt_project, "snap") if r["id"] == 3]
    # Day 2: id 3's version closed, and a deletion record opened by the deleting run.
    assert [(r["amount"], r["dbt_is_deleted"], r["dbt_valid_to"] is None) for r in rows] == [
        (30, "False", False),
        (30, "True", True),
    ]
    assert_closed(rows[0], run1.invocation_id, run2.invocation_id)
    assert_open(rows[1], run2.invocation_id)
    assert rows[1]["dbt_valid_from"] == rows[0]["dbt_valid_to"]

    # Day 3: id 3 is back with another amount: the deletion record is closed by run 3.
    run3 = day(dbt_project, HEADER, [*DAY2, "3,c,33"])
    rows = [r for r in history(dbt_project, "snap") if r["id"] == 3]
    assert [(r["amount"], r["dbt_is_deleted"], r["dbt_valid_to"] is None) for r in rows] == [
        (30, "False", False),
        (30, "True", False),
        (33, "False", True),
    ]
    assert_closed(rows[1], run2.invocation_id, run3.invocation_id)
    assert_open(rows[2], run3.invocation_id)


def test_key_deleted_then_back_with_invalidate(dbt_project: ScratchProject) -> None:
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'",
    )
    run1 = day(dbt_project, HEADER, DAY1)
    run2 = day(dbt_project, HEADER, ["1,a,10", "2,b,20"])  # 3 deleted
    run3 = day(dbt_project, HEADER, DAY1)  # 3 back, same values
    rows = [r for r in history(dbt_project, "snap") if r["id"] == 3]
    assert [(r["amount"], r["dbt_valid_to"] is None) for r in rows] == [(30, False), (30, True)]
    assert_closed(rows[0], run1.invocation_id, run2.invocation_id)
    assert_open(rows[1], run3.invocation_id)
    assert rows[1]["dbt_valid_from"] > rows[0]["dbt_valid_to"]  # a gap while it was gone


def test_new_source_column_on_a_later_day(dbt_project: ScratchProject) -> None:
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'",
    )
    run1 = day(dbt_project, HEADER, DAY1)
    run2 = day(dbt_project, "id,name,amount,region", ["1,a,10,eu", "2,b,20,", "3,c,30,us"])
    cols = columns(dbt_project, "snap")
    assert "region" in cols and set(AUDIT) <= set(cols)
    rows = history(dbt_project, "snap")
    # dbt's check strategy with check_cols='all' counts every row as changed on the run that
    # brings a new column (dbt's rule, kept): each key gets a new version with the column.
    assert [(r["id"], r["region"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, None, False),
        (1, "eu", True),
        (2, None, False),
        (2, None, True),
        (3, None, False),
        (3, "us", True),
    ]
    for old, new in (rows[0:2], rows[2:4], rows[4:6]):
        assert_closed(old, run1.invocation_id, run2.invocation_id)
        assert_open(new, run2.invocation_id)
        assert new["dbt_valid_from"] == old["dbt_valid_to"]

    # Day 3: only id 2's region changes; old and new versions keep their metadata.
    run3 = day(dbt_project, "id,name,amount,region", ["1,a,10,eu", "2,b,20,eu", "3,c,30,us"])
    rows = history(dbt_project, "snap")
    assert [(r["id"], r["region"], r["dbt_valid_to"] is None) for r in rows] == [
        (1, None, False),
        (1, "eu", True),
        (2, None, False),
        (2, None, False),
        (2, "eu", True),
        (3, None, False),
        (3, "us", True),
    ]
    assert_open(rows[1], run2.invocation_id)
    assert_closed(rows[3], run2.invocation_id, run3.invocation_id)
    assert_open(rows[4], run3.invocation_id)


def test_dbt_valid_to_current_and_meta_column_names(dbt_project: ScratchProject) -> None:
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate', "
        "dbt_valid_to_current=\"to_timestamp('9999-12-31')\", "
        "snapshot_meta_column_names={'dbt_valid_from': 'valid_from', "
        "'dbt_valid_to': 'valid_to', 'dbt_scd_id': 'scd_id', 'dbt_updated_at': 'updated_at'}",
    )
    run1 = day(dbt_project, HEADER, DAY1)
    run2 = day(dbt_project, HEADER, DAY2)
    cols = columns(dbt_project, "snap")
    assert {"valid_from", "valid_to", "scd_id", "updated_at"} <= set(cols)
    assert not {"dbt_valid_from", "dbt_valid_to"} & set(cols)
    rows = dbt_project.spark.sql(
        f"""
        select *, date_format(valid_to, 'yyyy-MM-dd') as valid_to_text,
            date_format(effective_end_ts, 'yyyy-MM-dd HH:mm:ss') as effective_end_text
        from {dbt_project.table("snap")} order by id, valid_from
        """
    ).collect()
    # Open versions carry dbt's own valid_to_current and our high-end effective end.
    assert [(r.id, r.amount, r.valid_to_text, r.effective_end_text) for r in rows] == [
        (1, 10, rows[0].valid_to_text, rows[0].effective_end_text),
        (1, 11, "9999-12-31", "9999-12-31 23:59:59"),
        (2, 20, "9999-12-31", "9999-12-31 23:59:59"),
        (3, 30, rows[3].valid_to_text, rows[3].effective_end_text),
        (4, 40, "9999-12-31", "9999-12-31 23:59:59"),
    ]
    for closed in (rows[0], rows[3]):
        assert closed.valid_to_text != "9999-12-31"
        assert closed.effective_end_ts == closed.valid_to
        assert closed.effective_start_ts == closed.valid_from
        assert closed.audit_insert_process_id == run1.invocation_id
        assert closed.audit_update_process_id == run2.invocation_id
    assert rows[1].audit_insert_process_id == run2.invocation_id
    assert rows[2].audit_update_process_id is None

    # The current state compiled by dbt (a UTC session, as the runs) and read in a Paris
    # session: the setting's instant is the one the runs wrote, whatever the reader's zone
    # (as SQL, to_timestamp('9999-12-31') is an hour earlier there, and the view was empty).
    sql = compiled_code(dbt_project.dbt("compile", "--inline", "{{ scd2_current(ref('snap')) }}"))
    spark = dbt_project.spark
    zone = spark.conf.get("spark.sql.session.timeZone")
    try:
        spark.conf.set("spark.sql.session.timeZone", "Europe/Paris")
        current = sorted((r["id"], r["amount"]) for r in spark.sql(sql).collect())
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)
    assert current == [(1, 11), (2, 20), (4, 40)]

    # dbt_updated_at renamed after the table was built (dbt's own check reads only the three
    # other names): refused by name, before anything is written (the check strategy took the
    # old column for one the source lost and added the new one, NULL in every version so far).
    before = spark.table(dbt_project.table("snap")).orderBy("id", "valid_from").collect()
    config = (dbt_project.root / "snapshots" / "snap.sql").read_text()
    renamed = config.replace("'dbt_updated_at': 'updated_at'", "'dbt_updated_at': 'changed_at'")
    assert renamed != config
    (dbt_project.root / "snapshots" / "snap.sql").write_text(renamed)
    message = snapshot_failure(dbt_project)
    assert "has no column changed_at, the name snapshot_meta_column_names gives" in message
    assert "rename column <the name it was built with> to changed_at" in message, message
    assert spark.table(dbt_project.table("snap")).orderBy("id", "valid_from").collect() == before


def test_high_end_does_not_shift_with_session_time_zone(dbt_project: ScratchProject) -> None:
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'",
    )
    spark = dbt_project.spark
    try:
        spark.conf.set("spark.sql.session.timeZone", "America/New_York")
        day(dbt_project, HEADER, DAY1)
        spark.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")
        day(dbt_project, HEADER, DAY2)
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
    rows = history(dbt_project, "snap")
    open_rows = [r for r in rows if r["dbt_valid_to"] is None]
    assert len(open_rows) == 3
    # Both runs stored the same instant: 9999-12-31 23:59:59 UTC.
    assert {r["effective_end_epoch"] for r in open_rows} == {253402300799}
    assert {r["effective_end_text"] for r in open_rows} == {"9999-12-31 23:59:59"}
    # Processing timestamps are instants too: run 2 after run 1 whatever the zones.
    closed = [r for r in rows if r["dbt_valid_to"] is not None]
    assert all(r["audit_update_ts"] > r["audit_insert_ts"] for r in closed)


@pytest.mark.parametrize(
    ("rows", "problem", "value"),
    [
        (["1,a,10", "2,b,20", "2,b,21"], "duplicate unique_key values", "id=2"),
        (["1,a,10", ",b,20"], "null unique_key", "id=null"),
    ],
)
def test_bad_source_keys_fail_before_merge(
    dbt_project: ScratchProject, rows: list[str], problem: str, value: str
) -> None:
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'",
    )
    day(dbt_project, HEADER, DAY1)
    before = history(dbt_project, "snap")
    before_snapshots = dbt_project.spark.sql(
        f"select count(*) from {dbt_project.table('snap')}.snapshots"
    ).first()[0]

    dbt_project.write_seed("src", HEADER, rows)
    dbt_project.dbt("seed", "--full-refresh")
    with pytest.raises(DbtStepError) as failure:
        dbt_project.dbt("snapshot")
    message = str(failure.value)
    assert "Snapshot 'snap'" in message
    assert problem in message
    assert value in message
    assert "unique_key: id" in message
    assert "snapshot table is unchanged" in message
    assert history(dbt_project, "snap") == before
    after_snapshots = dbt_project.spark.sql(
        f"select count(*) from {dbt_project.table('snap')}.snapshots"
    ).first()[0]
    assert after_snapshots == before_snapshots  # no Iceberg commit at all


def test_a_double_key_as_0_0_and_minus_0_0_is_a_duplicate(dbt_project: ScratchProject) -> None:
    """A double key holding 0.0 and -0.0 in one extract: one key to Spark's join and to the
    MERGE, two to the key check, which grouped the keys' text ('0.0', '-0.0'): the first run
    opened two versions of key 0.0. It fails as a duplicate, creating nothing."""
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='k', strategy='check', check_cols='all', hard_deletes='invalidate'",
        select="select if(id = 2, cast('-0.0' as double), cast(id as double)) as k, name "
        "from {{ ref('src') }}",
    )
    dbt_project.write_seed("src", HEADER, ["0,a,10", "2,b,20", "3,c,30"])
    dbt_project.dbt("seed", "--full-refresh")
    with pytest.raises(DbtStepError) as failure:
        dbt_project.dbt("snapshot")
    assert "duplicate unique_key values" in str(failure.value), str(failure.value)
    assert not dbt_project.spark.catalog.tableExists(dbt_project.table("snap"))


def test_duplicate_composite_keys_on_first_build_create_nothing(
    dbt_project: ScratchProject,
) -> None:
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key=['k1', 'k2'], strategy='check', check_cols='all'",
    )
    dbt_project.write_seed("src", "k1,k2,amount", ["a,1,10", "a,1,11", "b,1,30"])
    dbt_project.dbt("seed")
    with pytest.raises(DbtStepError) as failure:
        dbt_project.dbt("snapshot")
    assert "(k1=a, k2=1) appears 2 times" in str(failure.value)
    assert "unique_key: k1, k2" in str(failure.value)
    tables = [
        r.tableName for r in dbt_project.spark.sql(f"show tables in {dbt_project.schema}").collect()
    ]
    assert "snap" not in tables


@pytest.mark.parametrize(
    ("rows", "allow", "expect_blocked"),
    [
        ([], None, True),  # empty extract: every open version would be deleted
        (["1,a,10"], None, True),  # truncated: 2 of 3 deleted (67% > 50%)
        (["1,a,10", "2,b,20"], None, False),  # 1 of 3 deleted (33%): normal day
        ([], "{scd2_max_delete_share: 1}", False),  # intended mass delete, allowed
    ],
)
def test_mass_delete_guard(
    dbt_project: ScratchProject, rows: list[str], allow: str | None, expect_blocked: bool
) -> None:
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'",
    )
    day(dbt_project, HEADER, DAY1)
    before = history(dbt_project, "snap")
    dbt_project.write_seed("src", HEADER, rows)
    dbt_project.dbt("seed", "--full-refresh")
    args = ["snapshot", *(["--vars", allow] if allow else [])]
    if expect_blocked:
        with pytest.raises(DbtStepError) as failure:
            dbt_project.dbt(*args)
        message = str(failure.value)
        deleted = 3 - len(rows)
        assert f"would close {deleted} of 3 open versions as deleted" in message
        assert "scd2_max_delete_share" in message and "snapshot table is unchanged" in message
        assert history(dbt_project, "snap") == before
    else:
        dbt_project.dbt(*args)
        closed = [r for r in history(dbt_project, "snap") if r["dbt_valid_to"] is not None]
        assert len(closed) == 3 - len(rows)


def test_mass_delete_guard_rejects_bad_setting(dbt_project: ScratchProject) -> None:
    """A bad value fails every snapshot, one that tracks no deletes (hard_deletes='ignore')
    too, which took it without a word."""
    for name, hard_deletes in (("snap", "invalidate"), ("snap_ignore", "ignore")):
        write_snapshot(
            dbt_project,
            name,
            f"unique_key='id', strategy='check', check_cols='all', hard_deletes='{hard_deletes}'",
        )
    day(dbt_project, HEADER, DAY1)
    for value in ("'lots'", ".nan"):
        step = dbt_project.dbt(
            "snapshot", "--vars", f"{{scd2_max_delete_share: {value}}}", check=False
        )
        assert {r.node.name: str(r.status) for r in step.result.results} == {
            "snap": "error",
            "snap_ignore": "error",
        }
        for result in step.result.results:
            assert "must be a number from 0 to 1" in str(result.message)


def test_timestamp_strategy_with_an_expression_as_updated_at(dbt_project: ScratchProject) -> None:
    """updated_at may be an expression: dbt's change test writes `source_data.<expression>`
    (a syntax error from the second run on); the staged dbt_updated_at serves instead."""
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='id', strategy='timestamp', updated_at='to_timestamp(changed)', "
        "hard_deletes='invalidate'",
        select="select id, amount, cast(updated_at as string) as changed from {{ ref('src') }}",
    )
    header = "id,amount,updated_at"
    day(dbt_project, header, ["1,10,2024-01-01 00:00:00", "2,20,2024-01-01 00:00:00"])
    # Day 2: id 1 changed at 2024-01-02; id 2 as it was.
    day(dbt_project, header, ["1,11,2024-01-02 00:00:00", "2,20,2024-01-01 00:00:00"])
    assert [
        (r["id"], r["amount"], str(r["dbt_valid_from"]), str(r["dbt_valid_to"]))
        for r in history(dbt_project, "snap")
    ] == [
        (1, 10, "2024-01-01 00:00:00", "2024-01-02 00:00:00"),
        (1, 11, "2024-01-02 00:00:00", "None"),
        (2, 20, "2024-01-01 00:00:00", "None"),
    ]


def test_hard_deletes_changed_on_a_built_table(dbt_project: ScratchProject) -> None:
    """hard_deletes is not stored in the table. new_record on a table without dbt_is_deleted
    fails with the statements that add it, writing nothing. Back to invalidate on a table
    holding an open deletion record, a key that returns with the deleted row's values opens a
    version and closes the record (read as a live row, it kept the key deleted)."""
    config = "unique_key='id', strategy='check', check_cols='all', hard_deletes="
    write_snapshot(dbt_project, "snap", config + "'invalidate'")
    day(dbt_project, HEADER, DAY1)
    write_snapshot(dbt_project, "snap", config + "'new_record'")
    dbt_project.write_seed("src", HEADER, DAY2)
    dbt_project.dbt("seed", "--full-refresh")
    before = history(dbt_project, "snap")
    with pytest.raises(DbtStepError) as failure:
        dbt_project.dbt("snapshot")
    message = str(failure.value)
    assert "hard_deletes is 'new_record', but the table" in message
    assert "has no dbt_is_deleted column" in message and "Nothing was written" in message
    assert history(dbt_project, "snap") == before
    statements = re.search(r"add it: (alter table .*? string); (update .*? = 'False')", message)
    assert statements is not None, message
    for statement in statements.groups():
        dbt_project.spark.sql(statement)
    run2 = dbt_project.dbt("snapshot")
    rows = [r for r in history(dbt_project, "snap") if r["id"] == 3]
    # id 3 deleted by run 2: its version closed, a deletion record opened.
    assert [(r["amount"], r["dbt_is_deleted"], r["dbt_valid_to"] is None) for r in rows] == [
        (30, "False", False),
        (30, "True", True),
    ]
    assert_open(rows[1], run2.invocation_id)

    # Back to invalidate; id 3 returns with the values it was deleted with.
    write_snapshot(dbt_project, "snap", config + "'invalidate'")
    run3 = day(dbt_project, HEADER, DAY1)
    rows = [r for r in history(dbt_project, "snap") if r["id"] == 3]
    # The deletion record closed by run 3, a version opened (dbt_is_deleted is written by
    # new_record only: NULL).
    assert [(r["amount"], r["dbt_is_deleted"], r["dbt_valid_to"] is None) for r in rows] == [
        (30, "False", False),
        (30, "True", False),
        (30, None, True),
    ]
    assert_closed(rows[1], run2.invocation_id, run3.invocation_id)
    assert_open(rows[2], run3.invocation_id)

    # new_record once more; id 3 leaves the source. Its open version, written under
    # invalidate (dbt_is_deleted NULL), is closed and a deletion record opened: read as
    # unknown, the NULL kept the key open, and the delete guard did not count it.
    write_snapshot(dbt_project, "snap", config + "'new_record'")
    run4 = day(dbt_project, HEADER, DAY1[:2])
    rows = [r for r in history(dbt_project, "snap") if r["id"] == 3]
    assert [(r["amount"], r["dbt_is_deleted"], r["dbt_valid_to"] is None) for r in rows] == [
        (30, "False", False),
        (30, "True", False),
        (30, None, False),
        (30, "True", True),
    ]
    assert_closed(rows[2], run3.invocation_id, run4.invocation_id)
    assert_open(rows[3], run4.invocation_id)


def test_analyst_macros_refuse_what_they_cannot_read(dbt_project: ScratchProject) -> None:
    """A table that is no SCD2 history (a seed) fails naming the columns it lacks, a flag
    that is neither true nor false fails naming the argument, and a table's name as text
    fails saying what to pass, instead of Spark's errors about unresolved columns, a flag
    silently taken as true or a complaint about a missing unique_key."""
    dbt_project.write_seed("plain", "id,name", ["1,a"])
    dbt_project.dbt("seed")

    def compile_error(call: str) -> str:
        with pytest.raises(DbtStepError) as failed:
            dbt_project.dbt("compile", "--inline", f"{{{{ {call} }}}}")
        return str(failed.value)

    message = compile_error("scd2_current(ref('plain'), unique_key='id')")
    assert "has no column(s) ['dbt_valid_from', 'dbt_valid_to']" in message, message
    assert "no SCD2 history" in message, message
    # Without a unique_key too: the missing columns first, not a request for a key.
    message = compile_error("scd2_current(ref('plain'))")
    assert "has no column(s) ['dbt_valid_from', 'dbt_valid_to']" in message, message
    assert "no unique_key given" not in message, message
    # Words meant as moments: as SQL, NULL (an empty answer) or an unresolved column.
    for word in ["null", "NULL", "now", "today"]:
        message = compile_error(f"scd2_as_of(ref('plain'), '{word}', unique_key='id')")
        assert f"the as-of moment '{word}' is no moment" in message, message
        assert ("as SQL it is NULL" in message) == (word.lower() == "null"), message
    message = compile_error("scd2_as_of(ref('plain'), '2024-01-01', unique_key='id')")
    assert "'effective_start_ts', 'effective_end_ts'" in message, message
    # A moment that is no ISO 8601 one (Spark's parser failed on it, or divided 2024 by 1).
    message = compile_error("scd2_as_of(ref('plain'), '2024/01/01', unique_key='id')")
    assert "2024/01/01" in message and "is no ISO 8601 date or date and time" in message, message
    # Signed, as a BCE year would be: Spark read it as arithmetic (-2024 - 1 - 1).
    message = compile_error("scd2_as_of(ref('plain'), '-2024-01-01', unique_key='id')")
    assert "-2024-01-01" in message and "is no ISO 8601 date or date and time" in message, message
    # In SQL quotes, the same moment (as SQL, Spark read it in the session's time zone).
    moments = [
        compiled_code(dbt_project.dbt("compile", "--inline", f"{{{{ {call} }}}}"))
        for call in (
            "scd2_audit._scd2_timestamp_sql('2024-01-01 12:00:00')",
            "scd2_audit._scd2_timestamp_sql(\"'2024-01-01 12:00:00'\")",
            "scd2_audit._scd2_timestamp_sql(\"' 2024-01-01 12:00:00 '\")",
            # Double quotes make a string in Spark's SQL too.
            "scd2_audit._scd2_timestamp_sql('\"2024-01-01 12:00:00\"')",
            # RFC 3339's lower-case separator and zone.
            "scd2_audit._scd2_timestamp_sql('2024-01-01t12:00:00z')",
        )
    ]
    assert len(set(moments)) == 1 and "'2024-01-01 12:00:00" in moments[0], moments
    # ... and quoted text that is no moment fails as unquoted (as SQL, a NULL: no rows).
    message = compile_error("scd2_as_of(ref('plain'), \"'2024-02-30'\", unique_key='id')")
    assert "2024-02-30" in message and "is no ISO 8601 date or date and time" in message, message
    for quoted, said in {
        "''": "the as-of moment is empty",
        "' '": "the as-of moment is empty",
        "'null'": "the as-of moment 'null' is no moment",
        "'yesterday noon'": "'yesterday noon' is no ISO 8601 date or date and time",
    }.items():
        message = compile_error(f"scd2_as_of(ref('plain'), \"{quoted}\", unique_key='id')")
        assert said in message.replace("\\'", "'"), (quoted, message)
    message = compile_error("scd2_current(ref('plain'), include_metadata='no', unique_key='id')")
    assert "include_metadata must be true or false, got no" in message, message
    # The table's name as text, not a relation: no config to read keys or columns from.
    message = compile_error("scd2_legacy('scd2.plain')")
    assert "expected a relation, got 'scd2.plain'. Pass ref('my_snapshot')" in message, message
    # A history whose data has a column named like one of the change feed's own (a source
    # read from Delta's change feed): Spark's AMBIGUOUS_REFERENCE before.
    dbt_project.spark.sql(
        f"""
        create table {dbt_project.table("fed")} using iceberg as select
            1 as id, 'insert' as _change_type, 'h' as dbt_scd_id,
            timestamp'2024-01-01 00:00:00' as dbt_updated_at,
            timestamp'2024-01-01 00:00:00' as dbt_valid_from,
            cast(null as timestamp) as dbt_valid_to,
            'run' as audit_insert_process_id, cast(null as string) as audit_update_process_id,
            timestamp'2024-01-01 00:00:00' as audit_insert_ts,
            cast(null as timestamp) as audit_update_ts,
            timestamp'2024-01-01 00:00:00' as effective_start_ts,
            timestamp'9999-12-31 23:59:59' as effective_end_ts
        """
    )
    relation = f"adapter.get_relation(none, '{dbt_project.schema}', 'fed')"
    message = compile_error(f"scd2_change_feed({relation}, unique_key='id')")
    assert "the column(s) _change_type have the names of the feed's own columns" in message
    # A snapshot of this project built by dbt's own macros (dbt's columns, no audit ones):
    # the message says how to get them, where it asked for a snapshot of this package.
    write_snapshot(
        dbt_project,
        "stock",
        "unique_key='id', strategy='check', check_cols='all'",
        select="select * from {{ ref('plain') }}",
    )
    write_stock_built_table(dbt_project, "stock")
    message = compile_error("scd2_as_of(ref('stock'), '2024-01-01')")
    assert "has no column(s) ['effective_start_ts'" in message, message
    assert "built by dbt's own snapshot macros lacks the audit columns" in message, message
    assert "Pass a snapshot of this package" not in message, message
    # A unique_key that is an expression, as a snapshot takes one: "not in the table" before.
    message = compile_error(f"scd2_current({relation}, unique_key=\"concat(id, '-')\")")
    assert "the unique_key holds SQL expression(s) concat(id, '-')" in message, message
    # The run audit given no feed, or a table that is none: Spark's UNRESOLVED_COLUMN and
    # TABLE_OR_VIEW_NOT_FOUND `None` before.
    message = compile_error("scd2_run_audit(ref('plain'))")
    assert "has no column(s) snapshot_name, _process_id, _change_type" in message, message
    assert "so it is no change feed. Pass a change feed" in message, message
    missing = f"adapter.get_relation(none, '{dbt_project.schema}', 'missing')"
    message = compile_error(f"scd2_run_audit({missing})")
    assert "the change feed is none (a table that does not exist?)" in message, message


def test_analyst_macros_compile_before_the_first_snapshot(dbt_project: ScratchProject) -> None:
    """On a fresh project, before any snapshot ran, of a snapshot whose YAML documents no
    column: `dbt compile` (and `dbt docs generate`) compile the SQL with the key columns
    alone, where they failed; a command that runs the SQL still fails, saying what to do."""
    write_snapshot(dbt_project, "snap", "unique_key='id', strategy='check', check_cols='all'")
    dbt_project.write_seed("src", "id,name", ["1,a"])  # its seed, not loaded
    call = "{{ scd2_current(ref('snap')) }}"
    step = dbt_project.dbt("compile", "--inline", call)
    compiled = " ".join(compiled_code(step).split())
    assert compiled.startswith(f"select `id` from {dbt_project.schema}.snap where"), compiled
    with pytest.raises(DbtStepError) as failed:
        dbt_project.dbt("show", "--inline", call)
    assert (
        "the table does not exist (or has no columns) and its YAML documents none. Run "
        "`dbt snapshot` first." in str(failed.value)
    )


def test_date_validity_reads_alike_in_every_time_zone(dbt_project: ScratchProject) -> None:
    """A date updated_at dates the versions. Written by a session in Paris and read in New
    York, the effective end of a closed version is its dbt_valid_to at UTC midnight, and
    scd2_as_of and the generic tests read the date starts as UTC too: one version per key at
    every moment, none overlapping (Spark's own casts would shift each date by the zone)."""
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='id', strategy='timestamp', updated_at='updated_on', hard_deletes='invalidate'",
        select="select id, name, to_date(updated_on) as updated_on from {{ ref('src') }}",
    )
    dbt_project.write(
        "snapshots/snap.yml",
        yaml.safe_dump(
            {"version": 2, "snapshots": [{"name": "snap", "data_tests": list(SCD2_TESTS)}]}
        ),
    )
    spark = dbt_project.spark
    zone = spark.conf.get("spark.sql.session.timeZone")
    try:
        spark.conf.set("spark.sql.session.timeZone", "Europe/Paris")
        day(dbt_project, "id,name,updated_on", ["1,A,2024-01-01", "2,B,2024-01-01"])
        day(dbt_project, "id,name,updated_on", ["1,A2,2024-01-02", "2,B,2024-01-01"])
        spark.conf.set("spark.sql.session.timeZone", "America/New_York")
        ends = spark.sql(
            f"select name, unix_timestamp(effective_end_ts) as end_epoch "
            f"from {dbt_project.table('snap')} where dbt_valid_to is not null"
        ).collect()
        assert [tuple(r) for r in ends] == [("A", 1_704_153_600)]  # 2024-01-02 00:00 UTC

        def as_of(moment: str) -> list[tuple]:
            step = dbt_project.dbt(
                "compile", "--inline", f"{{{{ scd2_as_of(ref('snap'), '{moment}') }}}}"
            )
            sql = compiled_code(step)
            return sorted((r["id"], r["name"]) for r in spark.sql(sql).collect())

        # Moments without a zone are UTC: the day changes at UTC midnight, in New York too.
        assert as_of("2024-01-01 00:00:00") == [(1, "A"), (2, "B")]
        assert as_of("2024-01-01 23:30:00") == [(1, "A"), (2, "B")]
        assert as_of("2024-01-02 00:00:00") == [(1, "A2"), (2, "B")]
        assert as_of("2024-01-01T20:00:00-05:00") == [(1, "A2"), (2, "B")]  # 01:00 UTC
        assert as_of("2023-12-31 23:59:59") == []
        # The open versions (dbt_valid_to NULL) are valid at the high end itself too.
        assert as_of("9999-12-31 23:59:59") == [(1, "A2"), (2, "B")]
        dbt_project.dbt("test", "--select", "snap")  # the four generic tests pass
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)


def test_a_run_dates_deletes_in_utc_whatever_the_session_zone(
    dbt_project: ScratchProject,
) -> None:
    """A timestamp_ntz or date updated_at dates the versions, and a delete closes its version
    at the run's time in that type, read back as UTC. A run in a Tokyo session took the
    run's wall clock (and date) in Tokyo: the deleted version ended nine hours after the run,
    an effective end the run's own audit_update_ts did not match.
    On the same days, `minus_zero`: Spark's join and the key check take a double key -0.0 for
    0.0, so the source row -0.0 is key 0.0 changed. The MERGE matched the staged row on the
    source key's text ('-0.0'), which no version has: 0.0 stayed open beside -0.0, and one
    more opened on every later run.
    Last, snap_ntz's dbt_valid_to_current changed: the run fails, and its message no longer
    blames the session's time zone, which a timestamp_ntz does not depend on."""
    timestamp = "unique_key='id', strategy='timestamp', updated_at='u', hard_deletes='invalidate'"
    # snap_ntz marks its open versions with a zoneless dbt_valid_to_current (see the end).
    ntz_current = ", dbt_valid_to_current=\"to_timestamp_ntz('{}-12-31')\""

    def typed(cast: str) -> str:
        return f"select id, name, {cast}(u) as u from {{{{ ref('src') }}}}"

    write_snapshot(
        dbt_project,
        "snap_ntz",
        timestamp + ntz_current.format(9999),
        select=typed("to_timestamp_ntz"),
    )
    write_snapshot(dbt_project, "snap_date", timestamp, select=typed("to_date"))
    write_snapshot(
        dbt_project,
        "minus_zero",
        "unique_key='k', strategy='check', check_cols='all', hard_deletes='invalidate'",
        # (A seed would read -0.0 as a decimal, which has no negative zero.)
        select="select if(name = 'neg', cast('-0.0' as double), cast(id - 1 as double)) as k, "
        "name from {{ ref('src') }}",
    )
    header = "id,name,u"
    rows = [f"{i},n{i},2024-01-01 00:00:00" for i in range(1, 6)]
    spark = dbt_project.spark
    zone = spark.conf.get("spark.sql.session.timeZone")
    run1 = day(dbt_project, header, rows)
    try:
        spark.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")
        # id 1 renamed (minus_zero: key 0.0 arrives as -0.0), id 5 deleted.
        run2 = day(dbt_project, header, ["1,neg,2024-01-01 00:00:00", *rows[1:4]])
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)
    for name in ("snap_ntz", "snap_date"):
        (closed,) = spark.sql(
            f"select dbt_valid_to, unix_micros(audit_update_ts) as run_micros, "
            f"unix_micros(effective_end_ts) as end_micros, audit_update_process_id "
            f"from {dbt_project.table(name)} where id = 5 and dbt_valid_to is not null"
        ).collect()
        run_utc = datetime.fromtimestamp(closed.run_micros / 1e6, tz=UTC).replace(tzinfo=None)
        assert closed.audit_update_process_id == run2.invocation_id
        if name == "snap_ntz":
            assert closed.dbt_valid_to == run_utc  # the run's wall clock in UTC
            assert closed.end_micros == closed.run_micros
        else:
            assert closed.dbt_valid_to == run_utc.date()  # the run's date in UTC
            midnight = datetime.combine(run_utc.date(), datetime.min.time(), tzinfo=UTC)
            assert closed.end_micros == int(midnight.timestamp()) * 1_000_000
    versions = spark.sql(
        f"select k, name, audit_insert_process_id, audit_update_process_id "
        f"from {dbt_project.table('minus_zero')} order by k, dbt_valid_from"
    ).collect()
    r1, r2 = run1.invocation_id, run2.invocation_id
    # (In Python, as in Spark's comparisons, -0.0 == 0.0.)
    assert [tuple(r) for r in versions] == [
        (0.0, "n1", r1, r2),
        (0.0, "neg", r2, None),
        (1.0, "n2", r1, None),
        (2.0, "n3", r1, None),
        (3.0, "n4", r1, None),
        (4.0, "n5", r1, r2),
    ]
    # A changed timestamp_ntz dbt_valid_to_current fails the run (as any changed marks do,
    # tests/test_snapshot_schema_evolution.py); its value does not depend on the session's
    # zone, so the message does not suggest the zone moved it, as it does for a timestamp.
    write_snapshot(
        dbt_project,
        "snap_ntz",
        timestamp + ntz_current.format(2999),
        select=typed("to_timestamp_ntz"),
    )
    message = snapshot_failure(dbt_project, "--select", "snap_ntz")
    assert "dbt_valid_to = 9999-12-31 00:00:00, but dbt_valid_to_current is" in message
    assert "time zone" not in message


def test_current_state_of_a_copy_with_valid_to_current(dbt_project: ScratchProject) -> None:
    """A copy of a snapshot that set dbt_valid_to_current (no snapshot of the project builds
    it): scd2_current finds its open versions when given the value, as the generic tests do."""
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate', "
        "dbt_valid_to_current=\"to_timestamp('9999-12-31')\"",
    )
    day(dbt_project, "id,name", ["1,a", "2,b"])
    day(dbt_project, "id,name", ["1,a2", "3,c"])  # 1 updated, 2 deleted, 3 new
    copy = dbt_project.table("snap_copy")
    dbt_project.spark.sql(
        f"create table {copy} using iceberg as select * from {dbt_project.table('snap')}"
    )
    relation = "api.Relation.create(schema=target.schema, identifier='snap_copy')"
    step = dbt_project.dbt(
        "compile",
        "--inline",
        f"{{{{ scd2_current({relation}, unique_key='id', "
        f"valid_to_current=\"to_timestamp('9999-12-31')\") }}}}",
    )
    sql = compiled_code(step)
    assert sorted(tuple(r) for r in dbt_project.spark.sql(sql).collect()) == [(1, "a2"), (3, "c")]


def test_analyst_views_of_a_snapshot_with_columns_named_like_an_events_tables(
    dbt_project: ScratchProject,
) -> None:
    """A snapshot whose source has columns named like an scd2_events table's own
    (event_opened_op, its positions, event_closed_as): they are data columns of the views.
    Read as the events' metadata, they vanished from the current state, the as-of and the
    feed, and with the positions and closed_as there, the feed read an update as a delete and
    an insert. The snapshot sets dbt_valid_to_current: the legacy view gives its open versions
    the high end, as on every other snapshot (it showed that value)."""
    write_snapshot(
        dbt_project,
        "snap",
        "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate', "
        "dbt_valid_to_current=\"to_timestamp('9999-12-31')\"",
        select="select id, name, concat('op_', name) as event_opened_op, "
        "'p1' as event_opened_position, 'p2' as event_closed_position, "
        "'x' as event_closed_as from {{ ref('src') }}",
    )
    run1 = day(dbt_project, "id,name", ["1,a", "2,b"])
    run2 = day(dbt_project, "id,name", ["1,a2", "2,b"])  # 1 updated, 2 unchanged

    def view(call: str) -> list[tuple]:
        step = dbt_project.dbt("compile", "--inline", f"{{{{ {call} }}}}")
        return [tuple(r) for r in dbt_project.spark.sql(compiled_code(step)).collect()]

    extra = ("p1", "p2", "x")
    assert sorted(view("scd2_current(ref('snap'))")) == [
        (1, "a2", "op_a2", *extra),
        (2, "b", "op_b", *extra),
    ]
    feed = view("scd2_change_feed(ref('snap'))")
    # snapshot_name, the six data columns, _change_type, _process_id, ...
    assert sorted((r[1], r[2], r[3], r[7], r[8]) for r in feed) == sorted(
        [
            (1, "a", "op_a", "insert", run1.invocation_id),
            (2, "b", "op_b", "insert", run1.invocation_id),
            (1, "a", "op_a", "update_preimage", run2.invocation_id),
            (1, "a2", "op_a2", "update_postimage", run2.invocation_id),
        ]
    )
    legacy = dbt_project.spark.sql(
        "select id, name, date_format(dbt_valid_to, 'yyyy-MM-dd HH:mm:ss') as valid_to from ("
        + compiled_code(dbt_project.dbt("compile", "--inline", "{{ scd2_legacy(ref('snap')) }}"))
        + ") order by id, dbt_valid_from"
    ).collect()
    closed_at = dbt_project.spark.sql(
        f"select date_format(dbt_valid_to, 'yyyy-MM-dd HH:mm:ss') from {dbt_project.table('snap')}"
        " where audit_update_process_id is not null"
    ).first()[0]
    assert [tuple(r) for r in legacy] == [
        (1, "a", closed_at),
        (1, "a2", HIGH_END),
        (2, "b", HIGH_END),
    ]


def test_misbehaving_queries_in_one_run(dbt_project: ScratchProject) -> None:
    """Seven snapshots in each of three `dbt snapshot` runs (days 1 to 3, var `day`), on dbt's 4
    threads:
    - `commented`: a query whose last line ends in a `-- comment`, which the package's guards
      wrapped as `(<query>) as ...`, so the `)` fell into the comment;
    - `x_cust` and `y_cust`: one alias, `cust`, in two schemas; each stages its changes in a
      temporary view (schema-less), which they shared: one merged the other's rows;
    - `future`: an updated_at in the future, then a delete: closed at the run's time, the
      version ended before it started;
    - `flagged` and `helper_named`: source columns named dbt_is_deleted (under invalidate, it
      was read as a deletion mark) and dbt_unique_key (dbt's staging name: the first run wrote
      it, and every later one failed): each fails, naming the column, and builds nothing;
    - `ticked`: a column named with a backtick, which dbt-spark's quoting breaks (the first
      run wrote it, every later one failed on Spark's syntax error): fails, builds nothing."""
    config = "unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate'"
    day_var = "{{ var('day') }}"
    write_snapshot(
        dbt_project,
        "commented",
        config,
        select="select id, v from values (1, 'a'), (2, 'b') as t(id, v) -- the day's extract",
    )
    for name, letter, schema in (("x_cust", "A", "x"), ("y_cust", "B", "y")):
        write_snapshot(
            dbt_project,
            name,
            f"{config}, schema='{schema}', alias='cust'",
            select=f"select id, concat('{letter}-', id, '-d', {day_var}) as v "
            "from values (1), (2), (3) as t(id)",
        )
    write_snapshot(
        dbt_project,
        "future",
        "unique_key='id', strategy='timestamp', updated_at='u', hard_deletes='invalidate'",
        select=f"""
        select id, u from (
            select 1 as id, case {day_var}
                when 1 then timestamp'2024-01-01 00:00:00'
                else timestamp'2100-01-01 00:00:00'
            end as u
            union all select 2, timestamp'2024-01-01 00:00:00'
            union all select 3, timestamp'2024-01-01 00:00:00'
        ) where {day_var} < 3 or id != 1
        """,
    )
    write_snapshot(
        dbt_project,
        "flagged",
        config,
        select="select id, 'True' as dbt_is_deleted from values (1) as t(id)",
    )
    write_snapshot(
        dbt_project,
        "helper_named",
        config,
        select="select id, 'x' as DBT_UNIQUE_KEY from values (1) as t(id)",
    )
    write_snapshot(
        dbt_project,
        "ticked",
        config,
        select="select id, 'x' as `it``s` from values (1) as t(id)",
    )
    for day_number in (1, 2, 3):
        step = dbt_project.dbt("snapshot", "--vars", f"{{day: {day_number}}}", check=False)
        status = {r.node.name: (str(r.status), r.message or "") for r in step.result.results}
        for name in ("commented", "x_cust", "y_cust", "future"):
            assert status[name][0] == "success", (name, status[name])
        for name, column in (("flagged", "dbt_is_deleted"), ("helper_named", "DBT_UNIQUE_KEY")):
            assert status[name][0] == "error"
            assert "returns column(s) named like" in status[name][1], status[name]
            assert f": {column} (names are compared" in status[name][1], status[name]
        assert status["ticked"][0] == "error"
        assert "whose name holds a backtick: it`s." in status["ticked"][1], status["ticked"]

    assert [(r["id"], r["v"], r["dbt_valid_to"]) for r in history(dbt_project, "commented")] == [
        (1, "a", None),
        (2, "b", None),
    ]
    spark = dbt_project.spark
    for schema, letter in (("x", "A"), ("y", "B")):
        rows = spark.sql(
            f"select id, v, dbt_valid_to is null as open from {dbt_project.schema}_{schema}.cust "
            "order by id, dbt_valid_from"
        ).collect()
        # Each day changes every key: three versions a key, the last one open.
        assert [tuple(r) for r in rows] == [
            (key, f"{letter}-{key}-d{d}", d == 3) for key in (1, 2, 3) for d in (1, 2, 3)
        ]
    future = [r for r in history(dbt_project, "future") if r["id"] == 1]
    # Day 2 opens the version of 2100, which day 3's delete closes where it starts.
    assert [(str(r["dbt_valid_from"]), str(r["dbt_valid_to"])) for r in future] == [
        ("2024-01-01 00:00:00", "2100-01-01 00:00:00"),
        ("2100-01-01 00:00:00", "2100-01-01 00:00:00"),
    ]
    tables = {r.tableName for r in spark.sql(f"show tables in {dbt_project.schema}").collect()}
    assert {"commented", "future"} <= tables
    assert not {"flagged", "helper_named", "ticked"} & tables

    # dbt's column renamed in the config after the table was built: dbt's own message, which
    # names it (the package's check of the open versions' marks failed first, on Spark's
    # UNRESOLVED_COLUMN).
    write_snapshot(
        dbt_project,
        "commented",
        f"{config}, snapshot_meta_column_names={{'dbt_valid_to': 'valid_until'}}",
        select="select id, v from values (1, 'a'), (2, 'b') as t(id, v)",
    )
    step = dbt_project.dbt("snapshot", "--select", "commented", "--vars", "{day: 4}", check=False)
    message = step.result.results[0].message
    assert 'Snapshot target is missing configured columns (missing "valid_until")' in message
