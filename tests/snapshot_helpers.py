"""Helpers for snapshot tests: write a snapshot over a seed, run it, read its history."""

from __future__ import annotations

from typing import Any

from python_helpers.runtime.dbt_invoke import DbtStep
from python_helpers.tooling.scratch import ScratchProject

AUDIT = (
    "audit_insert_process_id",
    "audit_update_process_id",
    "audit_insert_ts",
    "audit_update_ts",
    "effective_start_ts",
    "effective_end_ts",
)
HIGH_END = "9999-12-31 23:59:59"
HIGH_END_EPOCH = 253402300799  # 9999-12-31 23:59:59 UTC, in seconds


def write_snapshot(
    project: ScratchProject, name: str, config: str, source: str = "src", select: str = ""
) -> None:
    """A snapshot over the seed ``source``, or over ``select`` (its query) when given."""
    query = select or f"select * from {{{{ ref('{source}') }}}}"
    project.write(
        f"snapshots/{name}.sql",
        f"""
        {{% snapshot {name} %}}
        {{{{ config({config}) }}}}
        {query}
        {{% endsnapshot %}}
        """,
    )


def write_stock_built_table(project: ScratchProject, name: str) -> None:
    """A table as dbt's own snapshot macros build one (dbt's columns, none of the audit
    columns), open version of id 1, written by Spark."""
    project.spark.sql(f"create schema if not exists {project.schema}")
    project.spark.sql(
        f"""
        create table {project.table(name)} using iceberg as select
            1 as id, 'h' as dbt_scd_id, timestamp'2024-01-01 00:00:00' as dbt_updated_at,
            timestamp'2024-01-01 00:00:00' as dbt_valid_from,
            cast(null as timestamp) as dbt_valid_to
        """
    )


def day(project: ScratchProject, header: str, rows: list[str], source: str = "src") -> DbtStep:
    """Load the day's source rows with `dbt seed`, then run `dbt snapshot`; return the latter."""
    project.write_seed(source, header, rows)
    project.dbt("seed", "--full-refresh")
    return project.dbt("snapshot")


def compiled_code(step: DbtStep) -> str:
    """The SQL a one-node `dbt compile` (`--inline`, `--select`) compiled."""
    return step.result.results[0].node.compiled_code


def snapshot_failure(project: ScratchProject, *args: str) -> str:
    """Run `dbt snapshot` (with ``args``), expecting its one node to fail; its error message."""
    step = project.dbt("snapshot", *args, check=False)
    (result,) = step.result.results
    assert str(result.status).lower() == "error", result.status
    return str(result.message)


def history(project: ScratchProject, snapshot: str, order_by: str = "id") -> list[dict[str, Any]]:
    """Every version, with timestamps as UTC strings and the high-end end as epoch seconds."""
    rows = project.spark.sql(
        f"""
        select *,
            unix_timestamp(effective_end_ts) as effective_end_epoch,
            date_format(effective_end_ts, 'yyyy-MM-dd HH:mm:ss') as effective_end_text
        from {project.table(snapshot)}
        order by {order_by}, dbt_valid_from
        """
    ).collect()
    return [r.asDict() for r in rows]


def columns(project: ScratchProject, snapshot: str) -> list[str]:
    return project.spark.table(project.table(snapshot)).columns


def assert_open(version: dict[str, Any], inserted_by: str) -> None:
    """An open version: inserted by that run, not closed, high-end effective end."""
    assert version["audit_insert_process_id"] == inserted_by
    assert version["audit_insert_ts"] is not None
    assert version["audit_update_process_id"] is None
    assert version["audit_update_ts"] is None
    assert version["effective_start_ts"] == version["dbt_valid_from"]
    assert version["effective_end_epoch"] == HIGH_END_EPOCH
    assert version["effective_end_text"] == HIGH_END


def assert_closed(version: dict[str, Any], inserted_by: str, closed_by: str) -> None:
    """A closed version: closed by that run, effective end = dbt_valid_to."""
    assert version["audit_insert_process_id"] == inserted_by
    assert version["audit_update_process_id"] == closed_by
    assert version["audit_update_ts"] is not None
    assert version["audit_update_ts"] >= version["audit_insert_ts"]
    assert version["effective_start_ts"] == version["dbt_valid_from"]
    assert version["dbt_valid_to"] is not None
    assert version["effective_end_ts"] == version["dbt_valid_to"]
