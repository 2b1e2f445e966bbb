"""Change events: the stream that turns day d-1 into day d, and the versions it must produce.

Built on the generator's days (:mod:`.frames`): the same keys, values and exact daily counts, so
a day's events and its seed files describe the same change. Each change becomes one or more
events (a time within the day, an LSN as tie-breaker, the key before the change), with the
variety of a real change stream, each share set by :class:`EventSpec` and reproducible (hashes
of seed, day and row; nothing random is drawn):

- day 1's rows are snapshot reads (``r``); a new key is a create (``c``);
- a deleted key gets a delete (``d``) or, for ``pct_key_change`` of them, is moved into one of
  the day's new keys by an update whose old key differs from its key (a key change);
- an updated key gets one update (``u``), or two or three within the day
  (``pct_multi_update``: the intermediate versions are kept), or a delete followed by a create
  (``pct_recreate``);
- ``pct_noop`` of the unchanged keys get an update with the values they already have (it adds
  no version);
- ``pct_late`` of the unchanged keys last changed before the previous day get a stale update,
  timed a second before the day their current version began (so before it), with other
  values: a late event, which the run sets aside (quarantine, reason late) instead of
  rewriting history;
- ``pct_duplicate`` of the events are delivered twice;
- ``pct_delayed`` of the single updates and creates arrive with the next day's batch (after
  newer events of other keys, out of order); they are still in order for their own key.

A day's *batch* is what is delivered that day. Its *expected* rows are what the run that
applies the batch must do, version by version: each version it opens (key, valid from, values,
the key it came from), each version it closes (key, valid to, how), each event it sets aside.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field, fields
from pathlib import Path

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from python_helpers.generator.frames import (
    born_rows,
    day_timestamp,
    row_hash,
    transition,
    updated_values,
    value_for,
)
from python_helpers.generator.spec import (
    GeneratorSpec,
    InvalidGeneratorArgument,
    check_day,
    share_of,
)

OP_COLUMN = "op"
TIME_COLUMN = "event_ts"
LSN_COLUMN = "event_lsn"
ORDER_BY = (TIME_COLUMN, LSN_COLUMN)
READ, CREATE, UPDATE, DELETE = "r", "c", "u", "d"
OPEN, CLOSE, QUARANTINE = "open", "close", "quarantine"
CLOSED_AS_UPDATE, CLOSED_AS_DELETE, CLOSED_AS_KEY_CHANGE = "update", "delete", "key_change"
SHAPES = ("flat", "debezium")
EVENTS_TABLE = "raw_events"
DEBEZIUM_TABLE = "raw_debezium_events"
EXPECTED_TABLE = "raw_event_versions"

# Event times: from 01:00 to 19:00 of the day; the events of one key one minute apart.
DAY_START_SECONDS = 3_600
DAY_SPAN_SECONDS = 18 * 3_600
STEP_SECONDS = 60
LSN_SPREAD = 1_000_000
SHARE_UNITS = 1_000_000
# Hash domains, independent of the day generator's (1, 2) and of each other.
_OFFSET, _LSN, _STEP_VALUES, _LATE_VALUES, _DUPLICATE, _DELAY, _STEPS = 11, 12, 13, 15, 16, 17, 18
_INTERNAL = ("_delayed", "_duplicate")


# What each share of EventSpec means, for the command lines that set them.
SHARE_HELP = {
    "pct_key_change": "share of deleted keys moved into a new key by a key change, at most as "
    "many as the day has new keys (the rest are deletes)",
    "pct_recreate": "share of updated keys deleted then created again (with "
    "--pct-multi-update at most 1: both take updated keys)",
    "pct_multi_update": "share of updated keys updated two or three times in the day (with "
    "--pct-recreate at most 1)",
    "pct_noop": "share of unchanged keys given an update that changes nothing (with "
    "--pct-late at most 1: both take unchanged keys)",
    "pct_late": "share of unchanged keys given a late (stale) update, set aside as late (with "
    "--pct-noop at most 1)",
    "pct_duplicate": "share of events delivered twice",
    "pct_delayed": "share of single updates and creates delivered with the next day's batch",
}


@dataclass(frozen=True)
class EventSpec:
    """The shares of each kind of event (see the module's docstring); each in [0, 1]."""

    pct_key_change: float = 0.1  # of deleted keys
    pct_recreate: float = 0.1  # of updated keys
    pct_multi_update: float = 0.2  # of updated keys
    pct_noop: float = 0.05  # of unchanged keys
    pct_late: float = 0.02  # of unchanged keys
    pct_duplicate: float = 0.05  # of events
    pct_delayed: float = 0.05  # of single updates and creates
    shape: str = field(default="flat")

    def __post_init__(self) -> None:
        for item in fields(self):
            if item.name == "shape":
                continue
            value = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InvalidGeneratorArgument(item.name, f"must be a number, got {value!r}")
            if not math.isfinite(value) or not 0.0 <= value <= 1.0:
                raise InvalidGeneratorArgument(item.name, f"must be a share in [0, 1], got {value}")
        if self.pct_recreate + self.pct_multi_update > 1.0:
            raise InvalidGeneratorArgument(
                "pct_recreate + pct_multi_update",
                "both are shares of the updated keys: their sum must be at most 1, got "
                f"{self.pct_recreate + self.pct_multi_update!r}",
            )
        if self.pct_noop + self.pct_late > 1.0:
            raise InvalidGeneratorArgument(
                "pct_noop + pct_late",
                "both are shares of the unchanged keys: their sum must be at most 1, got "
                f"{self.pct_noop + self.pct_late!r}",
            )
        if self.shape not in SHAPES:
            raise InvalidGeneratorArgument(
                "shape", f"must be one of {', '.join(SHAPES)}, got {self.shape!r}"
            )


@dataclass(frozen=True)
class EventDay:
    """The batch delivered on ``day`` (flat shape) and what applying it must do."""

    spec: GeneratorSpec
    events: EventSpec
    day: int
    batch: DataFrame
    expected: DataFrame


def before_column(key: str) -> str:
    """The column holding a key column's value before the change (Debezium's ``before``)."""
    return f"before_{key}"


def previous_column(key: str) -> str:
    return f"previous_{key}"


def event_columns(spec: GeneratorSpec) -> list[str]:
    """The flat events' columns, as ``scd2_debezium_events`` also gives them."""
    return [
        *spec.key_columns,
        *spec.value_columns,
        OP_COLUMN,
        TIME_COLUMN,
        LSN_COLUMN,
        *[before_column(k) for k in spec.key_columns],
    ]


def expected_columns(spec: GeneratorSpec) -> list[str]:
    return [
        *spec.key_columns,
        "change",
        TIME_COLUMN,
        "closed_as",
        *[previous_column(k) for k in spec.key_columns],
        *spec.value_columns,
        "run_day",
    ]


def generate_events(
    spark: SparkSession, spec: GeneratorSpec, events: EventSpec, day: int
) -> EventDay:
    """Day ``day``'s batch: the day's events that are not delayed, the previous day's delayed
    ones, and the duplicates of both; with the versions the run applying it must produce."""
    check_day(day)
    today = _day_events(spark, spec, events, day)
    delayed = F.col("_delayed")
    batch = today[0].filter(~delayed)
    expected = today[1].filter(~delayed)
    if day > 1:
        yesterday = _day_events(spark, spec, events, day - 1)
        batch = batch.unionByName(yesterday[0].filter(delayed))
        expected = expected.unionByName(yesterday[1].filter(delayed))
    batch = batch.unionByName(batch.filter(F.col("_duplicate")))
    return EventDay(
        spec=spec,
        events=events,
        day=day,
        batch=batch.select(*event_columns(spec)),
        expected=expected.withColumn("run_day", F.lit(day)).select(*expected_columns(spec)),
    )


def delayed_keys(
    spark: SparkSession, spec: GeneratorSpec, events: EventSpec, day: int
) -> DataFrame:
    """The keys of day ``day``'s events held back for the next day's batch: until it comes,
    a history holds such a key as the day before left it (or not at all, for a create)."""
    delayed = _day_events(spark, spec, events, day)[0].filter(F.col("_delayed"))
    return delayed.select(*spec.key_columns).distinct()


def _day_events(
    spark: SparkSession, spec: GeneratorSpec, events: EventSpec, day: int
) -> tuple[DataFrame, DataFrame]:
    """(events, expected) of the changes of ``day``, each row marked ``_delayed``."""
    keys = [F.col(k) for k in spec.key_columns]
    values = [F.col(c) for c in spec.value_columns]
    not_delayed = F.lit(False)

    def emit(rows, number, op, at, keys, values, before, delayed) -> DataFrame:
        return _events(
            rows, spec, day, number, op, at, keys, values, before, delayed, events.pct_duplicate
        )

    if day == 1:
        rows = born_rows(spark, spec, day=1, count=spec.no_init_recs, first_position=0)
        at = _event_time(spec, day, 0)
        return (
            emit(rows, 0, READ, at, keys, values, None, not_delayed),
            _opened(rows, spec, keys, at, values, None, not_delayed),
        )

    step = transition(spark, spec, day)
    # A score of branches below read the day's rows. Materialized once, they are not recomputed
    # from day 1 for each branch and each write, and the optimizer does not plan that whole
    # lineage once per branch (the generator's time on small tables, most of it).
    classified = step.classified.localCheckpoint(eager=True)
    new_rows = step.new.localCheckpoint(eager=True)
    plan = spec.plan(day)
    n_key_change = min(share_of(plan.deleted, events.pct_key_change), plan.inserted)
    n_recreate = share_of(plan.updated, events.pct_recreate)
    n_multi = min(share_of(plan.updated, events.pct_multi_update), plan.updated - n_recreate)
    n_noop = share_of(plan.unchanged, events.pct_noop)
    n_late = min(share_of(plan.unchanged, events.pct_late), plan.unchanged - n_noop)

    rank = F.col("_rank")
    delete_rank = rank
    update_rank = rank - F.lit(plan.deleted)
    unchanged_rank = update_rank - F.lit(plan.updated)
    t0, t1, t2 = (_event_time(spec, day, s) for s in range(3))
    all_events: list[DataFrame] = []
    all_expected: list[DataFrame] = []

    # Key changes: deleted row number r moves into new row number r (same day, exact count).
    befores = [F.col(before_column(k)) for k in spec.key_columns]
    moved = (
        classified.filter(delete_rank < F.lit(n_key_change))
        .select(
            *[F.col(k).alias(before_column(k)) for k in spec.key_columns],
            "_born",
            "_idx",
            rank.alias("_pair"),
        )
        .join(
            new_rows.select(*spec.key_columns, *spec.value_columns, F.col("_idx").alias("_pair")),
            "_pair",
        )
    )
    all_events.append(emit(moved, 0, UPDATE, t0, keys, values, befores, not_delayed))
    all_expected += [
        _closed(moved, spec, befores, t0, CLOSED_AS_KEY_CHANGE, not_delayed),
        _opened(moved, spec, keys, t0, values, befores, not_delayed),
    ]

    deleted = classified.filter(
        (delete_rank >= F.lit(n_key_change)) & (delete_rank < F.lit(plan.deleted))
    )
    all_events.append(emit(deleted, 0, DELETE, t0, keys, None, keys, not_delayed))
    all_expected.append(_closed(deleted, spec, keys, t0, CLOSED_AS_DELETE, not_delayed))

    updated = classified.filter(
        (update_rank >= F.lit(0)) & (update_rank < F.lit(plan.updated))
    ).select(
        *spec.key_columns,
        *[
            new.alias(name)
            for name, new in zip(spec.value_columns, updated_values(spec, day), strict=True)
        ],
        "_born",
        "_idx",
        update_rank.alias("_u"),
    )
    u = F.col("_u")

    recreated = updated.filter(u < F.lit(n_recreate))
    all_events += [
        emit(recreated, 0, DELETE, t0, keys, None, keys, not_delayed),
        emit(recreated, 1, CREATE, t1, keys, values, None, not_delayed),
    ]
    all_expected += [
        _closed(recreated, spec, keys, t0, CLOSED_AS_DELETE, not_delayed),
        _opened(recreated, spec, keys, t1, values, None, not_delayed),
    ]

    multi = updated.filter((u >= F.lit(n_recreate)) & (u < F.lit(n_recreate + n_multi)))
    three = F.pmod(row_hash(spec, _STEPS, day, 0), F.lit(2)) == F.lit(1)
    first = [value_for(spec, day, m, _STEP_VALUES) for m in range(1, len(values) + 1)]
    second = [
        F.when(three, value_for(spec, day, m, _STEP_VALUES + 1)).otherwise(final)
        for m, final in enumerate(values, start=1)
    ]
    for at, version, rows, number in (
        (t0, first, multi, 0),
        (t1, second, multi, 1),
        (t2, values, multi.filter(three), 2),
    ):
        all_events.append(emit(rows, number, UPDATE, at, keys, version, keys, not_delayed))
        all_expected += [
            _closed(rows, spec, keys, at, CLOSED_AS_UPDATE, not_delayed),
            _opened(rows, spec, keys, at, version, None, not_delayed),
        ]

    single = updated.filter(u >= F.lit(n_recreate + n_multi))
    late_arrival = _chosen(spec, _DELAY, day, events.pct_delayed)
    all_events.append(emit(single, 0, UPDATE, t0, keys, values, keys, late_arrival))
    all_expected += [
        _closed(single, spec, keys, t0, CLOSED_AS_UPDATE, late_arrival),
        _opened(single, spec, keys, t0, values, None, late_arrival),
    ]

    created = new_rows.filter(F.col("_idx") >= F.lit(n_key_change))
    all_events.append(emit(created, 0, CREATE, t0, keys, values, None, late_arrival))
    all_expected.append(_opened(created, spec, keys, t0, values, None, late_arrival))

    noop = classified.filter((unchanged_rank >= F.lit(0)) & (unchanged_rank < F.lit(n_noop)))
    all_events.append(emit(noop, 0, UPDATE, t0, keys, values, keys, not_delayed))

    # Late: last changed before the previous day, so that no event of the key can still be in
    # flight (a delayed one) and the run must already have applied the version it predates.
    stale = [value_for(spec, day, m, _LATE_VALUES) for m in range(1, len(values) + 1)]
    late_at = F.col("updated_at") - F.expr("interval 1 second")
    late = classified.filter(
        (unchanged_rank >= F.lit(n_noop))
        & (unchanged_rank < F.lit(n_noop + n_late))
        & (F.col("updated_at") < day_timestamp(spec, day - 1))
    )
    all_events.append(emit(late, 0, UPDATE, late_at, keys, stale, keys, not_delayed))
    all_expected.append(
        _expected(late, spec, QUARANTINE, keys, late_at, None, None, stale, not_delayed)
    )
    return _union(all_events), _union(all_expected)


def _event_time(spec: GeneratorSpec, day: int, number: int) -> Column:
    """The time of a row's event ``number`` (0, 1, 2) on ``day``: a time of day from a hash of
    the row, then one minute per event."""
    seconds = (
        F.unix_seconds(day_timestamp(spec, day))
        + F.lit(DAY_START_SECONDS)
        + F.pmod(row_hash(spec, _OFFSET, day, 0), F.lit(DAY_SPAN_SECONDS))
        + F.lit(number * STEP_SECONDS)
    )
    return F.timestamp_seconds(seconds)


def _chosen(spec: GeneratorSpec, domain: int, day: int, share: float, number: int = 0) -> Column:
    """True for ``share`` of the rows, by a hash of the row (reproducible)."""
    units = F.pmod(row_hash(spec, domain, day, number), F.lit(SHARE_UNITS))
    return units < F.lit(round(share * SHARE_UNITS))


def _events(
    rows: DataFrame,
    spec: GeneratorSpec,
    day: int,
    number: int,
    op: str,
    at: Column,
    keys: list[Column],
    values: list[Column] | None,
    before: list[Column] | None,
    delayed: Column,
    duplicate_share: float,
) -> DataFrame:
    """One event per row (flat shape), with ``_delayed`` and ``_duplicate``."""
    lsn = F.unix_seconds(at) * F.lit(LSN_SPREAD) + F.pmod(
        row_hash(spec, _LSN, day, number), F.lit(LSN_SPREAD)
    )
    return rows.select(
        *[c.alias(k) for c, k in zip(keys, spec.key_columns, strict=True)],
        *_values_or_null(values, spec),
        F.lit(op).alias(OP_COLUMN),
        at.alias(TIME_COLUMN),
        lsn.alias(LSN_COLUMN),
        *[
            (b if before is not None else F.lit(None).cast("string")).alias(before_column(k))
            for b, k in zip(before or keys, spec.key_columns, strict=True)
        ],
        delayed.alias("_delayed"),
        _chosen(spec, _DUPLICATE, day, duplicate_share, number).alias("_duplicate"),
    )


def _opened(rows, spec, keys, at, values, previous, delayed) -> DataFrame:
    return _expected(rows, spec, OPEN, keys, at, None, previous, values, delayed)


def _closed(rows, spec, keys, at, closed_as, delayed) -> DataFrame:
    return _expected(rows, spec, CLOSE, keys, at, closed_as, None, None, delayed)


def _expected(
    rows: DataFrame,
    spec: GeneratorSpec,
    change: str,
    keys: list[Column],
    at: Column,
    closed_as: str | None,
    previous: list[Column] | None,
    values: list[Column] | None,
    delayed: Column,
) -> DataFrame:
    return rows.select(
        *[c.alias(k) for c, k in zip(keys, spec.key_columns, strict=True)],
        F.lit(change).alias("change"),
        at.alias(TIME_COLUMN),
        F.lit(closed_as).cast("string").alias("closed_as"),
        *[
            (p if previous is not None else F.lit(None).cast("string")).alias(previous_column(k))
            for p, k in zip(previous or keys, spec.key_columns, strict=True)
        ],
        *_values_or_null(values, spec),
        delayed.alias("_delayed"),
    )


def _values_or_null(values: list[Column] | None, spec: GeneratorSpec) -> list[Column]:
    if values is None:
        return [F.lit(None).cast("double").alias(c) for c in spec.value_columns]
    return [v.alias(c) for v, c in zip(values, spec.value_columns, strict=True)]


def _union(frames: list[DataFrame]) -> DataFrame:
    result = frames[0]
    for frame in frames[1:]:
        result = result.unionByName(frame)
    return result


def write_event_day(data: EventDay, schema: str, landing: Path) -> str:
    """Deliver ``data``'s batch in its shape and record what it must produce; the relation the
    events model reads.

    - flat: the Iceberg table ``<schema>.raw_events``, replaced in one commit;
    - debezium: Kafka Connect's JSON lines (no schema envelope) in ``landing``, replaced, read
      through the JSON table ``<schema>.raw_debezium_events`` (its schema declared, as a
      connector's would be, so that a batch without deletes still has ``before``), declared
      again each run: kept, a table of an earlier run with other columns or another landing
      folder read this batch in its old shape, and dropped the new columns without a word.
    The expected versions go to the Iceberg table ``<schema>.raw_event_versions``.
    """
    spark = data.batch.sparkSession
    spark.sql(f"create schema if not exists {schema}")
    data.expected.writeTo(f"{schema}.{EXPECTED_TABLE}").using("iceberg").createOrReplace()
    if data.events.shape == "flat":
        data.batch.writeTo(f"{schema}.{EVENTS_TABLE}").using("iceberg").createOrReplace()
        return f"{schema}.{EVENTS_TABLE}"
    frame = debezium_frame(data.batch, data.spec)
    # Kafka Connect writes "before": null (a create, a snapshot read) and "after": null (a
    # delete); Spark's JSON writer leaves null fields out unless told, and a table that infers
    # its schema from such lines had no `before` column at all.
    frame.write.mode("overwrite").option("ignoreNullFields", "false").json(landing.as_uri())
    table = f"{schema}.{DEBEZIUM_TABLE}"
    # An external table over the folder: dropping it leaves the files. The refresh empties
    # the session's cache of the table, which the drop through Iceberg's session catalog
    # leaves (the old columns were read on).
    spark.sql(f"drop table if exists {table}")
    spark.catalog.createTable(table, path=landing.as_uri(), source="json", schema=frame.schema)
    spark.catalog.refreshTable(table)
    return table


def debezium_frame(batch: DataFrame, spec: GeneratorSpec) -> DataFrame:
    """The flat events as Debezium's PostgreSQL connector writes them (``before``, ``after``,
    ``op``, ``ts_ms``, ``source`` with ``ts_ms`` and ``lsn``)."""
    keys = spec.key_columns
    before = F.when(F.col(before_column(keys[0])).isNull(), F.lit(None)).otherwise(
        F.struct(*[F.col(before_column(k)).alias(k) for k in keys])
    )
    after = F.when(F.col(OP_COLUMN) == F.lit(DELETE), F.lit(None)).otherwise(
        F.struct(*keys, *spec.value_columns)
    )
    millis = F.unix_millis(F.col(TIME_COLUMN))
    source = F.struct(
        F.lit("postgresql").alias("connector"),
        F.lit("scd2").alias("name"),
        millis.alias("ts_ms"),
        F.lit("public").alias("schema"),
        F.lit("cdc_source").alias("table"),
        F.col(LSN_COLUMN).alias("lsn"),
    )
    return batch.select(
        before.alias("before"),
        after.alias("after"),
        F.col(OP_COLUMN).alias("op"),
        (millis + F.lit(250)).alias("ts_ms"),
        source.alias("source"),
    )


def landing_dir(lakehouse: Path, schema: str) -> Path:
    """Where the Debezium-shaped batch of ``schema`` lands (Kafka Connect's file sink)."""
    return lakehouse / "landing" / schema / "debezium_events"


def add_share_arguments(group: argparse._ActionsContainer) -> None:
    """``--pct-key-change`` ... ``--pct-delayed`` (EventSpec's shares) on a command line."""
    defaults = EventSpec()
    for name, meaning in SHARE_HELP.items():
        group.add_argument(
            f"--{name.replace('_', '-')}",
            type=float,
            default=None,  # given or not: a share without --events is an error
            help=f"{meaning} (default {getattr(defaults, name)}; with --events only)",
        )


def spec_from_arguments(args: argparse.Namespace, shape: str | None) -> EventSpec | None:
    """The EventSpec of parsed ``add_share_arguments`` options, none without a ``shape``
    (no --events); raises InvalidGeneratorArgument on a bad share, and on a share given
    without --events, where it was ignored."""
    given = {name: getattr(args, name) for name in SHARE_HELP if getattr(args, name) is not None}
    if shape is None:
        if given:
            option = "--" + next(iter(given)).replace("_", "-")
            raise InvalidGeneratorArgument(
                option, "applies to change events only: add --events flat or --events debezium"
            )
        return None
    return EventSpec(shape=shape, **given)
