"""Random batches of change events against an independent model of docs/events.md's rules.

tests/test_events.py states each rule on a few hand-written events; here a seeded generator
mixes them in one stream: several changes of a key per batch, in any row order, ties on the
event time broken by the tie-breaker, key changes (onto keys that exist or not), deletes of
live and absent keys, re-creations, duplicate deliveries, and late events (older than what an
earlier run took in for their key). The model below applies the rules in plain Python, one
key at a time; after each run the table must hold exactly the versions it computes (values,
validity, how each closed, the key it came from, deletion records, the run that opened and
the run that closed each), and the quarantine exactly the late events it sets aside.

The relation holds every event since the first batch (as a daily run over a whole change log
would), so each run also meets every event applied before, late ones included. Malformed
events are left to tests/test_events.py.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

import pytest

from python_helpers.tooling.scratch import ScratchProject
from tests.test_events import assert_generic_tests_pass, at, run, write_events, write_model
from tests.test_reliability import iceberg_commits

pytestmark = pytest.mark.slow

KEYS = 4  # few keys, so that a batch's events meet on them
BATCHES = 4
MAX_EVENTS = 12  # per batch, before duplicates

Event = tuple[int, str | None, str, datetime, int, int | None]  # id, name, op, ts, lsn, before_id
Position = tuple[datetime, int]


@dataclass
class Version:
    name: str | None
    opened: Position
    opened_by: int  # batch
    deleted: bool = False  # a deletion record (hard_deletes='new_record')
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

    def is_late(self, key: int, position: Position) -> bool:
        return key in self.marks and position <= self.marks[key]

    def agrees(self, event: Event) -> bool:
        """Whether a late plain update or delete is what the history holds at its position
        (dropped as applied already) rather than a rewrite of it (set aside)."""
        key, name, op, ts, lsn, _ = event
        position = (ts, lsn)
        live = [
            v
            for v in self.history.get(key, [])
            if not v.deleted and v.opened <= position and (v.closed is None or position < v.closed)
        ]
        return not live if op == "d" else bool(live) and live[0].name == name

    def apply(self, events: list[Event], batch: int) -> None:
        items: dict[int, list[tuple[Position, str, str | None, int | None]]] = {}
        for key, name, op, ts, lsn, before in set(events):  # a duplicate counts once
            if op == "d":
                items.setdefault(key, []).append(((ts, lsn), "delete", None, None))
            elif op == "u" and before != key:  # a key change: two items at one position
                items.setdefault(before, []).append(((ts, lsn), "key_change", None, None))
                items.setdefault(key, []).append(((ts, lsn), "upsert", name, before))
            else:
                items.setdefault(key, []).append(((ts, lsn), "upsert", name, None))
        for key, its in items.items():
            for position, kind, name, previous in sorted(its, key=lambda item: item[0]):
                self._apply_item(key, position, kind, name, previous, batch)

    def _apply_item(
        self, key: int, position: Position, kind: str, name: str | None, previous: int | None,
        batch: int,
    ) -> None:  # fmt: skip
        current = self.open_version(key)
        live = current is not None and not current.deleted
        if kind == "upsert":
            self.marks[key] = position
            if live and previous is None and current.name == name:
                self.seen["no-op"] += 1
                return  # no version
            if previous is not None:
                same = live and current.name == name  # still a version: it records the origin
                self.seen["key change onto its values" if same else "key change"] += 1
            if current is not None:
                self.seen["re-creation" if current.deleted else "update"] += 1
                self._close(current, position, "update", batch)
            self.history.setdefault(key, []).append(
                Version(name, position, batch, previous_key=previous)
            )
        elif not live:  # a delete or the old key of a key change, of an absent key: nothing
            self.seen[f"{kind} of an absent key"] += 1
        else:
            self.marks[key] = position
            self._close(current, position, kind, batch)
            self.history[key].append(Version(current.name, position, batch, deleted=True))

    @staticmethod
    def _close(version: Version, position: Position, closed_as: str, batch: int) -> None:
        version.closed, version.closed_as, version.closed_by = position, closed_as, batch


def random_batch(rnd: random.Random, model: Model, batch: int, clock: list[int]) -> list[Event]:
    """A batch of events later than every earlier one, in shuffled order, some delivered twice,
    and (from the third batch) possibly one late plain update or delete."""
    events: list[Event] = []
    for _ in range(rnd.randint(1, MAX_EVENTS)):
        if rnd.random() < 0.6:
            clock[0] += 1  # else a tie on the time, broken by the lsn
        key = rnd.randint(1, KEYS)
        op = rnd.choice("ccuuuuddr" if batch else "cr")
        before = (key if rnd.random() < 0.7 else rnd.randint(1, KEYS)) if op == "u" else None
        name = None if op == "d" else rnd.choice("abc")  # few values: no-ops happen
        events.append((key, name, op, at(clock[0]), clock[1], before))
        clock[1] += 1
    if batch >= 2 and model.marks and rnd.random() < 0.8:
        key = rnd.choice(sorted(model.marks))
        hour = rnd.randint(0, int((model.marks[key][0] - at(0)).total_seconds() // 3600))
        op = rnd.choice("uud")
        name = None if op == "d" else rnd.choice("abc")
        events.append((key, name, op, at(hour), -1 - batch, key if op == "u" else None))
    events += [e for e in events if rnd.random() < 0.2]
    rnd.shuffle(events)
    return events


def table_versions(project: ScratchProject, runs: list[str]) -> list[tuple]:
    rows = project.spark.sql(
        f"""
        select
            id, name, dbt_valid_from, dbt_valid_to, event_closed_as,
            event_previous_key.id as previous_key, dbt_is_deleted = 'True' as deleted,
            audit_insert_process_id, audit_update_process_id
        from {project.table("history")}
        order by id, event_opened_position
        """
    ).collect()
    return [(*row[:7], runs.index(row[7]), runs.index(row[8]) if row[8] else None) for row in rows]


def quarantined(project: ScratchProject) -> list[tuple]:
    """(id, op, ts) of each event in the quarantine table (none before it exists)."""
    table = project.table("history__quarantine")
    if not project.spark.catalog.tableExists(table):
        return []
    rows = project.spark.sql(f"select id, op, ts from {table}").collect()
    return sorted(tuple(row) for row in rows)


def model_versions(model: Model) -> list[tuple]:
    rows = []
    for key in sorted(model.history):
        for v in model.history[key]:
            closed = v.closed[0] if v.closed else None
            what = (v.name, v.opened[0], closed, v.closed_as, v.previous_key, v.deleted)
            rows.append((key, *what, v.opened_by, v.closed_by))
    return rows


@pytest.mark.parametrize("seed", [2749])  # one that exercises every rule (asserted below)
def test_random_batches_give_the_versions_the_rules_give(
    dbt_project: ScratchProject, seed: int
) -> None:
    write_model(dbt_project, "hard_deletes='new_record',")
    rnd = random.Random(seed)
    model = Model()
    clock = [0, 0]  # hour, lsn
    relation: list[Event] = []
    runs: list[str] = []
    set_aside: list[tuple] = []
    for batch in range(BATCHES):
        events = random_batch(rnd, model, batch, clock)
        late = [e for e in events if model.is_late(e[0], (e[3], e[4]))]
        set_aside += sorted({(e[0], e[2], e[3]) for e in late if not model.agrees(e)})
        model.seen["duplicate"] += len(events) - len(set(events))
        model.seen["tie on the time"] += len(set(events)) - len({(e[0], e[3]) for e in events})
        model.seen["late, set aside"] += len({e for e in late if not model.agrees(e)})
        model.seen["late, applied already"] += len({e for e in late if model.agrees(e)})
        model.apply([e for e in events if e not in late], batch)
        relation += events
        write_events(dbt_project, relation)
        runs.append(run(dbt_project).invocation_id)

        context = f"seed {seed}, batch {batch}: {sorted(events, key=lambda e: (e[3], e[4]))}"
        assert table_versions(dbt_project, runs) == model_versions(model), context
        assert quarantined(dbt_project) == sorted(set_aside), context

    # The seed's stream exercised every rule the model knows.
    model.seen["opened and closed by one run"] = sum(
        v.opened_by == v.closed_by for versions in model.history.values() for v in versions
    )
    rules = (
        "no-op", "update", "re-creation", "key change", "key change onto its values",
        "delete of an absent key", "duplicate", "tie on the time", "late, set aside",
        "late, applied already", "opened and closed by one run",
    )  # fmt: skip
    assert all(model.seen[rule] for rule in rules), model.seen

    # The whole relation again: every event is recognised as applied or set aside already.
    commits = iceberg_commits(dbt_project, "history")
    run(dbt_project)
    assert table_versions(dbt_project, runs) == model_versions(model)
    assert iceberg_commits(dbt_project, "history") == commits
    assert_generic_tests_pass(dbt_project)
