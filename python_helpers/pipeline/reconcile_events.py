"""Reconcile a run of the events model against the generator's expected versions, version by
version.

The generator (:mod:`python_helpers.generator.events`) lists, per run, every version the run
must open (key, valid from, values, the key it came from), every version it must close (key,
valid to, how) and every event it must set aside as late. The run's own rows are read back from
the table's metadata (inserted or closed by the run's process id) and from the quarantine
table, and both sides are joined version by version: a version missing, unexpected, or with
other values, origin or closing counts as a difference. One SQL query, like
:mod:`.reconcile`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from python_helpers.generator.events import OPEN, QUARANTINE, TIME_COLUMN, previous_column
from python_helpers.pipeline.reconcile import Executor, dbt_show_json
from python_helpers.runtime.lakehouse import PROJECT_ROOT

HISTORY_MODEL = "events_history"
# The quarantine table's own columns (macros/events/_scd2_events_quarantine.sql, docs/events.md).
QUARANTINE_PROCESS_ID = "scd2_process_id"
QUARANTINE_REASON = "scd2_reason"
KINDS = (OPEN, "close", QUARANTINE)
STATUSES = ("same", "differs", "missing", "unexpected")

# One dbt query returns every name as the package resolves it: the audit and event column
# names (vars), and dbt's column names for the events model (its snapshot_meta_column_names).
_NAMES_SQL = (
    "select '{{ tojson({"
    "'audit': scd2_audit.scd2_audit_column_names(), "
    "'events': scd2_audit.scd2_event_column_names(), "
    f"'dbt': scd2_audit._scd2_snapshot_context(ref('{HISTORY_MODEL}')).columns"
    "}) }}' as names"
)


def history_column_names(project_dir: Path = PROJECT_ROOT, dbt_args: Sequence[str] = ()) -> dict:
    """``{'audit': role -> name, 'events': role -> name, 'dbt': role -> name}``."""
    return dbt_show_json(_NAMES_SQL, project_dir, dbt_args)


@dataclass(frozen=True)
class EventReconciliation:
    day: int
    run_id: str
    counts: dict[str, dict[str, int]]  # kind -> status -> versions (or events)

    def expected(self, kind: str) -> int:
        c = self.counts.get(kind, {})
        return c.get("same", 0) + c.get("differs", 0) + c.get("missing", 0)

    def observed(self, kind: str) -> int:
        c = self.counts.get(kind, {})
        return c.get("same", 0) + c.get("differs", 0) + c.get("unexpected", 0)

    def differing(self, kind: str) -> int:
        c = self.counts.get(kind, {})
        return c.get("differs", 0) + c.get("missing", 0) + c.get("unexpected", 0)

    @property
    def all_ok(self) -> bool:
        return all(self.differing(kind) == 0 for kind in KINDS)


def reconciliation_sql(
    schema: str,
    expected_table: str,
    keys: list[str],
    values: list[str],
    day: int,
    run_id: str,
    names: dict,
    quarantine_exists: bool,
) -> str:
    audit, events, dbt = names["audit"], names["events"], names["dbt"]
    run = run_id.replace("'", "")
    key_list = ", ".join(keys)
    same_key = " and ".join(f"o.{k} = e.{k}" for k in [*keys, TIME_COLUMN])
    same_values = " and ".join(f"o.{c} <=> e.{c}" for c in values)
    same_origin = " and ".join(f"o.previous_key.{k} <=> e.{previous_column(k)}" for k in keys)
    quarantined = (
        f"""select distinct {key_list}, {TIME_COLUMN}
            from {schema}.{HISTORY_MODEL}__quarantine
            where {QUARANTINE_PROCESS_ID} = '{run}' and {QUARANTINE_REASON} like 'late%'"""
        if quarantine_exists
        else f"select {key_list}, {TIME_COLUMN} from expected where false"
    )

    def check(kind: str, observed: str, same: str) -> str:
        return f"""
            select
                '{kind}' as kind,
                case
                    when o.{keys[0]} is null then 'missing'
                    when e.{keys[0]} is null then 'unexpected'
                    when {same} then 'same'
                    else 'differs'
                end as status
            from {observed} as o
            full outer join (select * from expected where change = '{kind}') as e
                on {same_key}"""

    return f"""
        with versions as (
            select * from {schema}.{HISTORY_MODEL}
        ),

        expected as (
            select * from {expected_table} where run_day = {int(day)}
        ),

        opened as (
            select
                {key_list},
                {dbt["dbt_valid_from"]} as {TIME_COLUMN},
                {events["previous_key"]} as previous_key,
                {", ".join(values)}
            from versions
            where {audit["insert_process_id"]} = '{run}'
        ),

        closed as (
            select {key_list}, {dbt["dbt_valid_to"]} as {TIME_COLUMN}, {events["closed_as"]}
                as closed_as
            from versions
            where {audit["update_process_id"]} = '{run}'
        ),

        quarantined as (
            {quarantined}
        ),

        checked as (
            {check(OPEN, "opened", f"{same_values} and {same_origin}")}
            union all
            {check("close", "closed", "o.closed_as = e.closed_as")}
            union all
            {check(QUARANTINE, "quarantined", "true")}
        )

        select kind, status, count(*) as versions
        from checked
        group by kind, status
    """


def reconcile_events(
    execute: Executor,
    schema: str,
    expected_table: str,
    keys: list[str],
    values: list[str],
    day: int,
    run_id: str,
    names: dict,
) -> EventReconciliation:
    """Compare one run of the events model with what the generator expects of it."""
    quarantine = f"{HISTORY_MODEL}__quarantine"
    exists = any(row[1] == quarantine for row in execute(f"show tables in {schema}"))
    sql = reconciliation_sql(
        schema, expected_table, keys, values, day, run_id, names, quarantine_exists=exists
    )
    counts: dict[str, dict[str, int]] = {}
    for kind, status, number in execute(sql):
        counts.setdefault(kind, {})[status] = int(number)
    return EventReconciliation(day, run_id, counts)
