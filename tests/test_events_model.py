"""Random batches of change events against an independent model of docs/events.md's rules.

tests/test_events.py states each rule on a few hand-written events; here a seeded generator
mixes them in one stream: several changes of a key per batch, in any row order, ties on the
event time broken by the tie-breaker, key changes (onto keys that exist or not, and onto a
key's own values), deletes of live, deleted and absent keys, re-creations, duplicate
deliveries, and late plain updates and deletes (older than what an earlier run took in for
their key). The model below applies the rules in plain Python, one key at a time, under
hard_deletes='new_record'. After each run the table must hold exactly the versions it
computes (values, validity, how each closed, the key it came from, deletion records, the runs
that opened and closed each, and each open version's mark, event_last_position), and the
quarantine exactly the late events it sets aside.

The relation holds every event since the first batch (as a daily run over a whole change log
would), so each run also meets every event applied before, late ones included. Late key
changes and malformed events are left to tests/test_events.py.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

import pytest

from python_helpers.tooling.scratch import ScratchProject
from tests.test_events import (
    assert_generic_tests_pass,
    at,
    quarantined,
    run,
    write_events,
    write_model,
)
from tests.test_reliability import iceberg_commits

pytestmark = pytest.mark.slow

KEYS = 4  # few keys, so that a batch's events meet on them
BATCHES = 4
MAX_EVENTS = 12  # per batch, before duplicates

Event = tuple[int, str | None, str, datetime, int, int | None]  # id, name, op, ts, lsn, before_id
Position = tuple[datetime, int]  # event_order_by: (ts, lsn)


def position(event: Event) -> Position:
    return (event[3], event[4])


class Item(NamedTuple):
    """An event's change to one key: a key change is two, one per key, at one position."""

    position: Position
    kind: str  # upsert, delete or key_change (the old key's half)
    name: str | None = None
    previous_key: int | None = None


@dataclass
class Version:
    name: str | None
    opened: Position
    opened_by: int  # batch
    deleted: bool = False  # a deletion record
    previous_key: int | None = None
    closed: Position | None = None
    closed_as: str | None = None
    closed_by: int | None = None


@dataclass
class Model:
    """The history docs/events.md ("What a run does") gives, under hard_deletes='new_record'."""

    history: dict[int, list[Version]] = field(default_factory=dict)
    marks: dict[int, Position] = field(default_factory=dict)  # each key's latest event taken in
    seen: Counter[str] = field(default_factory=Counter)  # the rules the events exercised

    def open_version(self, key: int) -> Version | None:
        versions = self.history.get(key, [])
        return versions[-1] if versions and versions[-1].closed is None else None

    def is_late(self, event: Event) -> bool:
        return event[0] in self.marks and position(event) <= self.marks[event[0]]

    def agrees(self, event: Event) -> bool:
        """Whether a late plain update or delete is what the history holds at its position
        (dropped as applied already, or as changing nothing) rather than a rewrite of it (set
        aside)."""
        key, name, op, *_ = event
        at_position = position(event)
        live = [
            v
            for v in self.history.get(key, [])
            if not v.deleted
            and v.opened <= at_position
            and (v.closed is None or at_position < v.closed)
        ]
        return not live if op == "d" else bool(live) and live[0].name == name

    def apply(self, events: list[Event], batch: int) -> None:
        items: dict[int, list[Item]] = {}
        for event in set(events):  # a duplicate counts once
            key, name, op, _, _, before = event
            if op == "d":
                items.setdefault(key, []).append(Item(position(event), "delete"))
            elif op == "u" and before != key:
                items.setdefault(before, []).append(Item(position(event), "key_change"))
                items.setdefault(key, []).append(Item(position(event), "upsert", name, before))
            else:
                items.setdefault(key, []).append(Item(position(event), "upsert", name))
        for key, key_items in items.items():
            for item in sorted(key_items):
                self._apply(key, item, batch)

    def _apply(self, key: int, item: Item, batch: int) -> None:
        current = self.open_version(key)
        live = current is not None and not current.deleted
        if current is not None or item.kind == "upsert":
            # Whatever the item does, the open version (a deletion record too, or the one the
            # upsert opens) takes its position as the key's mark; a delete of a key with no
            # open version has nowhere to hold it.
            self.marks[key] = item.position
        if item.kind == "upsert":
            if live and item.previous_key is None and current.name == item.name:
                self.seen["no-op"] += 1
                return
            if item.previous_key is not None:  # a version even onto the same values
                same = live and current.name == item.name
                self.seen["key change onto its values" if same else "key change"] += 1
            if current is not None:
                self.seen["re-creation" if current.deleted else "update"] += 1
                self._close(current, item, "update", batch)
            self.history.setdefault(key, []).append(
                Version(item.name, item.position, batch, previous_key=item.previous_key)
            )
        elif not live:
            self.seen[f"{item.kind} of {'a deleted' if current else 'an absent'} key"] += 1
        else:
            self.seen[f"{item.kind} of a live key"] += 1
            self._close(current, item, item.kind, batch)
            self.history[key].append(Version(current.name, item.position, batch, deleted=True))

    @staticmethod
    def _close(version: Version, item: Item, closed_as: str, batch: int) -> None:
        version.closed, version.closed_as, version.closed_by = item.position, closed_as, batch


@dataclass
class Clock:
    """The next event's time (hours of 2024-01-01) and log sequence number."""

    hour: int = 0
    lsn: int = 0


def random_batch(rnd: random.Random, model: Model, batch: int, clock: Clock) -> list[Event]:
    """A batch of events later than every earlier one, in shuffled order, some delivered twice,
    and (from the third batch) possibly one late plain update or delete."""
    events: list[Event] = []
    for _ in range(rnd.randint(1, MAX_EVENTS)):
        if rnd.random() < 0.6:
            clock.hour += 1  # else a tie on the time, broken by the lsn
        key = rnd.randint(1, KEYS)
        op = rnd.choice("ccuuuuddr" if batch else "cr")
        before = (key if rnd.random() < 0.7 else rnd.randint(1, KEYS)) if op == "u" else None
        name = None if op == "d" else rnd.choice("abc")  # few values: no-ops happen
        events.append((key, name, op, at(clock.hour), clock.lsn, before))
        clock.lsn += 1
    # From the third batch, keys have marks from two earlier runs to be late against.
    if batch >= 2 and model.marks and rnd.random() < 0.8:
        key = rnd.choice(sorted(model.marks))
        hour = rnd.randint(0, int((model.marks[key][0] - at(0)).total_seconds() // 3600))
        op = rnd.choice("uud")
        name = None if op == "d" else rnd.choice("abc")
        # A negative lsn sorts before every other event of that hour, so the event is late
        # whatever the hour drawn, and two late events never share a position.
        events.append((key, name, op, at(hour), -1 - batch, key if op == "u" else None))
    events += [e for e in events if rnd.random() < 0.2]
    rnd.shuffle(events)
    return events


def table_versions(project: ScratchProject, runs: list[str]) -> list[tuple]:
    """The table's versions in model_versions' shape, runs as batch numbers."""
    rows = project.spark.sql(
        f"""
        select
            id, name, dbt_valid_from, dbt_valid_to, event_closed_as,
            event_previous_key.id as previous_key, dbt_is_deleted = 'True' as deleted,
            audit_insert_process_id, audit_update_process_id,
            case when dbt_valid_to is null then event_last_position end as mark
        from {project.table("history")}
        order by id, event_opened_position
        """
    ).collect()
    return [
        (
            *row[:7],
            runs.index(row[7]),
            runs.index(row[8]) if row[8] else None,
            row[9] and tuple(row[9]),
        )
        for row in rows
    ]


def model_versions(model: Model) -> list[tuple]:
    """Per version, ordered as the table's: key, name, valid from and to, how it closed, the
    key it came from, whether a deletion record, the batches that opened and closed it, and
    on an open version its key's mark."""
    rows = []
    for key in sorted(model.history):
        for v in model.history[key]:
            closed = v.closed[0] if v.closed else None
            what = (v.name, v.opened[0], closed, v.closed_as, v.previous_key, v.deleted)
            mark = None if v.closed else model.marks[key]
            rows.append((key, *what, v.opened_by, v.closed_by, mark))
    return rows


def set_aside_now(project: ScratchProject) -> list[tuple]:
    """(id, op, ts, lsn) of the quarantined events, each set aside as late (none before the
    quarantine table exists)."""
    if not project.spark.catalog.tableExists(project.table("history__quarantine")):
        return []
    return quarantined(project, "id, op, ts, lsn, scd2_reason like 'late:%' as late")


@pytest.mark.parametrize("seed", [676])  # one that exercises every rule (asserted below)
def test_random_batches_give_the_versions_the_rules_give(
    dbt_project: ScratchProject, seed: int
) -> None:
    write_model(dbt_project, "hard_deletes='new_record',")
    rnd = random.Random(seed)
    model = Model()
    clock = Clock()
    relation: list[Event] = []
    runs: list[str] = []
    set_aside: set[tuple] = set()
    for batch in range(BATCHES):
        events = random_batch(rnd, model, batch, clock)
        late = {e for e in events if model.is_late(e)}
        agreeing = {e for e in late if model.agrees(e)}
        set_aside |= {(e[0], e[2], e[3], e[4], True) for e in late - agreeing}
        on_time = [e for e in events if e not in late]
        model.seen["duplicate"] += len(events) - len(set(events))
        model.seen["tie on the time"] += len(set(on_time)) - len({(e[0], e[3]) for e in on_time})
        model.seen["late, set aside"] += len(late - agreeing)
        model.seen["late, agreeing with the history"] += len(agreeing)
        model.apply(on_time, batch)
        relation += events
        write_events(dbt_project, relation)
        runs.append(run(dbt_project).invocation_id)

        context = f"seed {seed}, batch {batch}: {sorted(events, key=position)}"
        assert table_versions(dbt_project, runs) == model_versions(model), context
        assert set_aside_now(dbt_project) == sorted(set_aside, key=str), context

    # The seed's stream exercised every rule the model knows.
    model.seen["opened and closed by one run"] = sum(
        v.opened_by == v.closed_by for versions in model.history.values() for v in versions
    )
    rules = (
        "no-op", "update", "re-creation", "key change", "key change onto its values",
        "delete of a live key", "key_change of a live key", "delete of a deleted key",
        "delete of an absent key",
        "duplicate", "tie on the time", "late, set aside", "late, agreeing with the history",
        "opened and closed by one run",
    )  # fmt: skip
    assert all(model.seen[rule] for rule in rules), model.seen

    # The whole relation again: every event is recognised as applied or set aside already.
    commits = iceberg_commits(dbt_project, "history")
    run(dbt_project)
    assert table_versions(dbt_project, runs) == model_versions(model)
    assert set_aside_now(dbt_project) == sorted(set_aside, key=str)
    assert iceberg_commits(dbt_project, "history") == commits
    assert_generic_tests_pass(dbt_project)
