"""Reconcile a run of the events model against the generator's expected versions, version by
version.

The generator (:mod:`python_helpers.generator.events`) lists, per run, every version the run
must open (key, valid from, values, the key it came from), every version it must close (key,
valid to, how) and every event it must set aside as late. The run's own rows are read back from
the table's metadata (inserted or closed by the run's process id) and from the quarantine
table, and both sides are joined version by version: a version missing, unexpected (a copy of
an expected one included), or with other values, origin or closing counts as a difference. One
SQL query, like :mod:`.reconcile`. The versions earlier runs left are then compared with how
the previous run left them (:class:`.reconcile.Fingerprint`, every column).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from python_helpers.generator.events import OPEN, QUARANTINE, TIME_COLUMN, previous_column
from python_helpers.pipeline.reconcile import (
    Executor,
    Fingerprint,
    dbt_show_json,
    fingerprint_sql,
    state_sql,
)
from python_helpers.runtime.lakehouse import PROJECT_ROOT

HISTORY_MODEL = "events_history"
# The quarantine table's own columns (macros/events/_scd2_events_quarantine.sql, docs/events.md).
QUARANTINE_PROCESS_ID = "scd2_process_id"
QUARANTINE_REASON = "scd2_reason"
KINDS = (OPEN, "close", QUARANTINE)
STATUSES = ("same", "differs", "missing", "unexpected")

# One dbt query returns every name as the package resolves it: the audit and event column
# names (vars), and dbt's column names for the events model (its snapshot_meta_column_names).
# With them, the columns a run sets on a version it closes (the materialization's own list).
_NAMES_SQL = (
    "{% set names = {"
    "'audit': scd2_audit.scd2_audit_column_names(), "
    "'events': scd2_audit.scd2_event_column_names(), "
    f"'dbt': scd2_audit._scd2_snapshot_context(ref('{HISTORY_MODEL}')).columns"
    "} %}"
    "{% do names.update({'closing': scd2_audit._scd2_events_closing_columns({"
    "'columns': names.dbt, 'audit': names.audit, 'events': names.events})}) %}"
    "select '{{ tojson(names) }}' as names"
)


def history_column_names(project_dir: Path = PROJECT_ROOT, dbt_args: Sequence[str] = ()) -> dict:
    """``{'audit': role -> name, 'events': role -> name, 'dbt': role -> name, 'closing':
    [the columns a run sets on a version it closes]}``."""
    return dbt_show_json(_NAMES_SQL, project_dir, dbt_args)


@dataclass(frozen=True)
class EventReconciliation:
    day: int
    run_id: str
    counts: dict[str, dict[str, int]]  # kind -> status -> versions (or events)
    # The versions there before the run, as found after it, and as the previous run left
    # them (None on a first run); then all, for the next run.
    kept: Fingerprint = field(default_factory=Fingerprint)
    kept_before: Fingerprint | None = None
    after: Fingerprint = field(default_factory=Fingerprint)
    # The open versions against the day's true state (the day generator's rows, keys whose
    # events are held back for the next batch left out): (true rows, rows that differ), or
    # None when not checked.
    state: tuple[int, int] | None = None

    @property
    def state_ok(self) -> bool:
        return self.state is None or self.state[1] == 0

    @property
    def kept_ok(self) -> bool:
        return self.kept_before is None or self.kept == self.kept_before

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
        return all(self.differing(kind) == 0 for kind in KINDS) and self.kept_ok and self.state_ok


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
    # The opened versions' compared columns, as both sides name them.
    opened_order = ", ".join(values)
    quarantined = (
        f"""select distinct {key_list}, {TIME_COLUMN}
            from {schema}.{HISTORY_MODEL}__quarantine
            where {QUARANTINE_PROCESS_ID} = '{run}' and {QUARANTINE_REASON} like 'late%'"""
        if quarantine_exists
        else f"select {key_list}, {TIME_COLUMN} from expected where false"
    )

    def check(kind: str, observed: str, same: str, compared: str) -> str:
        # Each row numbered within its key and time on both sides, so that a second copy of
        # a version (a duplicate event applied twice) is unexpected, not a second match;
        # numbered in the order of the ``compared`` columns, so that copies that differ pair
        # the same way on every run.
        def numbered(relation: str) -> str:
            return (
                f"(select *, row_number() over (partition by {key_list}, {TIME_COLUMN} "
                f"order by {compared}) as scd2_copy from {relation})"
            )

        return f"""
            select
                '{kind}' as kind,
                case
                    when o.{keys[0]} is null then 'missing'
                    when e.{keys[0]} is null then 'unexpected'
                    when {same} then 'same'
                    else 'differs'
                end as status
            from {numbered(observed)} as o
            full outer join {numbered(f"expected where change = '{kind}'")} as e
                on {same_key} and o.scd2_copy = e.scd2_copy"""

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
            {check(OPEN, "opened", f"{same_values} and {same_origin}", opened_order)}
            union all
            {check("close", "closed", "o.closed_as = e.closed_as", "closed_as")}
            union all
            {check(QUARANTINE, "quarantined", "true", TIME_COLUMN)}
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
    fingerprint_before: Fingerprint | None = None,
    truth: tuple[str, str] | None = None,
) -> EventReconciliation:
    """Compare one run of the events model with what the generator expects of it, and the
    versions that were there before the run with ``fingerprint_before`` (the ``after`` of the
    previous run's reconciliation): none of them changed, went or came twice. ``truth``:
    (relation of the day's true rows, relation of the keys held back, both with the key
    columns): the open versions, keys and values, are compared with those rows, but for the
    keys held back. The expected versions come from the same events as the batch, so they
    cannot tell an event the generator got wrong; the day's rows are the day generator's, built
    and tested on their own (the seed pipeline's truth)."""
    quarantine = f"{HISTORY_MODEL}__quarantine"
    exists = any(row[1] == quarantine for row in execute(f"show tables in {schema}"))
    sql = reconciliation_sql(
        schema, expected_table, keys, values, day, run_id, names, quarantine_exists=exists
    )
    counts: dict[str, dict[str, int]] = {}
    for kind, status, number in execute(sql):
        counts.setdefault(kind, {})[status] = int(number)
    table = f"{schema}.{HISTORY_MODEL}"
    # A run writes the closing columns of the versions it closes, and the last applied
    # event's position of a key's open version; it leaves every other column as it is.
    audit = names["audit"]
    closing = [
        *(c for c in names["closing"] if c not in {v.lower() for v in audit.values()}),
        names["events"]["last_position"],
    ]
    skipped = {c.lower() for c in [*closing, *audit.values()]}
    columns = []
    for row in execute(f"describe table {table}"):
        if not row[0] or row[0].startswith("#"):  # the partitioning's section follows
            break
        if row[0].lower() not in skipped:
            columns.append(row[0])
    ((*fingerprints,),) = execute(
        fingerprint_sql(table, columns, audit, run_id, dbt_kept=(), dbt_closing=closing)
    )
    kept, after = (Fingerprint(*map(int, fingerprints[i : i + 4])) for i in (0, 4))
    state = None
    if truth is not None:
        rows, held = truth
        held_back = " and ".join(f"v.{k} <=> h.{k}" for k in keys)

        def but_held(relation: str) -> str:
            return f"(select v.* from {relation} as v left anti join {held} as h on {held_back})"

        ((true_rows, extra, missing),) = execute(
            state_sql(but_held(table), but_held(rows), [*keys, *values], audit)
        )
        state = (int(true_rows), int(extra) + int(missing))
    return EventReconciliation(
        day, run_id, counts, kept=kept, kept_before=fingerprint_before, after=after, state=state
    )
