"""The generator's data, built with Spark DataFrame expressions only (no Python UDFs, no RDDs).

How one day follows from the previous one, deterministically and with exact counts:

* Every row carries its identity (``_born``: the day it was inserted, ``_idx``: its index among
  that day's new rows) and ``_pos``, its position ``0..N-1`` in the current day. Keys and values
  are hashes of (seed, day, identity), so nothing random is drawn and no state is stored:
  day ``d`` is recomputed from day 1 forward. Within one Spark application it starts from the
  latest day's state already computed there (:data:`_STATES`), which is the same rows: a
  pipeline asking for day ``d`` after day ``d - 1`` computes one day, not ``d``.
* Day ``d`` permutes the previous positions with an affine bijection
  ``rank = (a * pos + b) mod N`` (``a`` coprime with ``N``, both from a hash of seed and day).
  Ranks below ``deleted`` are deleted, the next ``updated`` ranks updated, the rest unchanged:
  exact counts without sorting, sampling or a shuffle. Survivors move to position
  ``rank - deleted`` (dense again), new rows follow.
* Rows keep a stable order (birth order): range, project, filter and union preserve partition
  order, and the one shuffle, the compaction at checkpoints, sorts by birth. The CSV writer
  relies on that for byte-identical files.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from datetime import date

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from python_helpers.generator.spec import (
    DELETED,
    INSERTED,
    UNCHANGED,
    UPDATED,
    DayPlan,
    GeneratorSpec,
    check_day,
)

# Non-key values are whole micro-units in [0, VALUE_UNITS): doubles in [0, 1000) with at most six
# decimals, so the six-decimal text in the CSV parses back to exactly the same double.
VALUE_UNITS = 1_000_000_000
VALUE_SCALE = 1_000_000.0
ROWS_PER_PARTITION = 250_000
# Each day adds a union, a filter and nested expressions to the plan; beyond a few days, the
# optimizer's and code generator's time grows quadratically (day 30: minutes for 10,000 rows).
# Materializing the state every few days (eager local checkpoint, order preserved) keeps plans
# shallow.
CHECKPOINT_EVERY = 5
IDENTITY = ("_born", "_idx", "_pos")
# The states (rows of a day) last computed, per Spark application and spec: {day: state}, at most
# STATES_KEPT days each. A day's state is a function of the spec alone, so starting from one is
# starting from day 1; the events mode asks for day d and d - 1, the pipeline for each day in
# turn, which recomputed from day 1 made a run of D days take time quadratic in D (day 38 of
# a 2,000-row events pipeline: 62 s to generate, against 3 s on day 1). Their lineage goes back
# at most CHECKPOINT_EVERY days, to an eager local checkpoint held by that application: those
# of another (a session stopped, then a new one) are dropped.
_STATES: dict[tuple[str, GeneratorSpec], dict[int, DataFrame]] = {}
STATES_KEPT = 3
# Hash domains: keep key, value and delta hashes independent of each other.
_VALUE, _DELTA = 1, 2


@dataclass(frozen=True)
class DayData:
    """One generated day: the source rows and the manifest of changes against the day before."""

    spec: GeneratorSpec
    plan: DayPlan
    source: DataFrame
    manifest: DataFrame

    @property
    def day(self) -> int:
        return self.plan.day

    @property
    def business_date(self) -> date:
        return self.plan.business_date


def generate_day(spark: SparkSession, spec: GeneratorSpec, day: int) -> DayData:
    """Day ``day`` of ``spec``: ``source`` (the ``cdc_source`` contract) and ``manifest``
    (``cdc_changes``).

    Lazy DataFrames: nothing runs until they are written or counted, except that days beyond
    :data:`CHECKPOINT_EVERY` materialize every fifth intermediate day on the way. Their dates
    take the session's time zone when they run (checkpoints within this call, the rest when
    written): in a session of another zone than UTC, generate and write them inside
    :func:`python_helpers.generator.session.in_utc`, as the CLI does.
    """
    check_day(day)
    if day == 1:
        state = born_rows(spark, spec, day=1, count=spec.no_init_recs, first_position=0)
        changes = inserted(state, spec)
    else:
        step = transition(spark, spec, day)
        state = step.state
        changes = step.classified.select(*spec.key_columns, "change_type").unionByName(
            inserted(step.new, spec)
        )
    plan = spec.plan(day)
    return DayData(
        spec=spec,
        plan=plan,
        source=state.select(*spec.source_columns),
        manifest=to_manifest(changes, spec, plan),
    )


@dataclass(frozen=True)
class Transition:
    """How day ``day`` follows from the day before, with the rows' identity columns.

    ``classified``: the previous day's rows with ``_rank`` and ``change_type``
    (:func:`classify`); ``new``: the day's new rows; ``state``: the day's rows.
    """

    day: int
    classified: DataFrame
    new: DataFrame
    state: DataFrame


def transition(spark: SparkSession, spec: GeneratorSpec, day: int) -> Transition:
    """Day ``day`` (>= 2) as a :class:`Transition` from day ``day - 1``, recomputed from day 1."""
    check_day(day)
    if day < 2:
        raise ValueError("day 1 has no previous day to follow from")
    application = spark.sparkContext.applicationId
    for stopped in [key for key in _STATES if key[0] != application]:
        del _STATES[stopped]  # another application's checkpoints are gone with it
    states = _STATES.setdefault((application, spec), {})
    start = max((known for known in states if known < day), default=1)
    state = states.get(start)
    if state is None:
        state = born_rows(spark, spec, day=1, count=spec.no_init_recs, first_position=0)
    for current in range(start + 1, day + 1):
        classified = classify(state, spec, current)
        survivors = apply_changes(classified, spec, current)
        plan = spec.plan(current)
        new = born_rows(
            spark, spec, day=current, count=plan.inserted, first_position=plan.survivors
        )
        state = survivors.unionByName(new)
        if current % CHECKPOINT_EVERY == 0:
            state = _compacted(state, plan.rows).localCheckpoint(eager=True)
        step = Transition(current, classified, new, state)
    states[day] = step.state
    for old in sorted(states)[:-STATES_KEPT]:
        del states[old]
    return step


def _partitions(spark: SparkSession, rows: int) -> int:
    return max(1, min(spark.sparkContext.defaultParallelism, math.ceil(rows / ROWS_PER_PARTITION)))


def _compacted(state: DataFrame, rows: int) -> DataFrame:
    """``state`` in as many partitions as a day of ``rows`` rows is born in, when it has grown
    past twice that many: each day's new rows come in partitions of their own, so that day d
    had d partitions or more, and every scan, events branch and write of a long run as many
    tasks and files. Range-partitioned and sorted by birth (``_born``, ``_idx``), which is the
    state's own order, so the rows come out in the same order, whatever bounds the sampling
    picks, and the files stay byte-identical."""
    wanted = _partitions(state.sparkSession, rows)
    if state.rdd.getNumPartitions() <= 2 * wanted:
        return state
    return state.repartitionByRange(wanted, "_born", "_idx").sortWithinPartitions("_born", "_idx")


def born_rows(
    spark: SparkSession, spec: GeneratorSpec, *, day: int, count: int, first_position: int
) -> DataFrame:
    """``count`` rows inserted on ``day``, at positions ``first_position...``."""
    rows = spark.range(0, count, numPartitions=_partitions(spark, count)).select(
        F.lit(day).alias("_born"),
        F.col("id").alias("_idx"),
        (F.col("id") + F.lit(first_position)).alias("_pos"),
    )
    rows = with_keys(rows, spec)
    rows = rows.select(
        *spec.key_columns,
        *[value_for(spec, day, m).alias(c) for m, c in enumerate(spec.value_columns, start=1)],
        day_timestamp(spec, day).alias("updated_at"),
        *IDENTITY,
    )
    return rows


def inserted(rows: DataFrame, spec: GeneratorSpec) -> DataFrame:
    """Keys of new rows, as manifest entries."""
    return rows.select(*spec.key_columns, F.lit(INSERTED).alias("change_type"))


def with_keys(rows: DataFrame, spec: GeneratorSpec) -> DataFrame:
    """Add ``key_1..key_K``: UUID-shaped (version 3, like a name-based UUID) md5 hashes of
    (seed, birth day, birth index, key number), so another seed gives other keys."""
    return rows.select(
        "*",
        *[uuid_from_md5(_key_name(spec, j)).alias(c) for j, c in enumerate(spec.key_columns, 1)],
    )


def classify(previous: DataFrame, spec: GeneratorSpec, day: int) -> DataFrame:
    """The previous day's rows with ``change_type`` (deleted/updated/unchanged) and ``_rank``.

    Exactly ``plan.deleted`` / ``plan.updated`` / ``plan.unchanged`` rows, chosen by a
    seed-and-day dependent permutation of the positions.
    """
    plan = spec.plan(day)
    a, b = permutation(spec.seed, day, plan.previous_rows)
    rank = F.pmod(F.lit(a) * F.col("_pos") + F.lit(b), F.lit(plan.previous_rows))
    ranked = previous.withColumn("_rank", rank)
    change = (
        F.when(F.col("_rank") < plan.deleted, F.lit(DELETED))
        .when(F.col("_rank") < plan.deleted + plan.updated, F.lit(UPDATED))
        .otherwise(F.lit(UNCHANGED))
    )
    return ranked.withColumn("change_type", change)


def apply_changes(classified: DataFrame, spec: GeneratorSpec, day: int) -> DataFrame:
    """Survivors of :func:`classify` as day ``day`` sees them.

    Updated rows get fresh values and ``updated_at`` = the day; ``col_1`` moves by a non-zero
    delta modulo the value range, so an update always changes at least one non-key value.
    Unchanged rows are kept as they were, ``updated_at`` included.
    """
    plan = spec.plan(day)
    updated = F.col("change_type") == F.lit(UPDATED)
    values = [
        F.when(updated, new).otherwise(F.col(name)).alias(name)
        for name, new in zip(spec.value_columns, updated_values(spec, day), strict=True)
    ]
    return classified.filter(F.col("change_type") != F.lit(DELETED)).select(
        *spec.key_columns,
        *values,
        F.when(updated, day_timestamp(spec, day))
        .otherwise(F.col("updated_at"))
        .alias("updated_at"),
        "_born",
        "_idx",
        (F.col("_rank") - F.lit(plan.deleted)).alias("_pos"),
    )


def updated_values(spec: GeneratorSpec, day: int) -> list[Column]:
    """The values an updated row takes on ``day``, from its current values: ``col_1`` moves by
    a non-zero delta (so an update always changes a value), the others are drawn afresh."""
    return [
        forced_change(F.col(name), spec, day) if m == 1 else value_for(spec, day, m)
        for m, name in enumerate(spec.value_columns, start=1)
    ]


def to_manifest(changes: DataFrame, spec: GeneratorSpec, plan: DayPlan) -> DataFrame:
    """The ``cdc_changes`` contract: keys, change type, day (int), business date (date)."""
    return changes.select(
        *spec.key_columns,
        F.col("change_type"),
        F.lit(plan.day).cast("int").alias("day"),
        F.lit(plan.business_date.isoformat()).cast("date").alias("business_date"),
    )


def value_for(spec: GeneratorSpec, day: int, m: int, domain: int = _VALUE) -> Column:
    """Non-key value ``m`` of a row (re)written on ``day``: a hash, as a six-decimal double.
    Another ``domain`` draws independent values (the events' intermediate versions)."""
    units = F.pmod(row_hash(spec, domain, day, m), F.lit(VALUE_UNITS))
    return units / F.lit(VALUE_SCALE)


def forced_change(current: Column, spec: GeneratorSpec, day: int) -> Column:
    """A value guaranteed to differ from ``current``: shift it by 1..VALUE_UNITS-1 micro-units,
    modulo the value range."""
    units = F.round(current * F.lit(VALUE_SCALE)).cast("long")
    delta = F.lit(1) + F.pmod(row_hash(spec, _DELTA, day, 1), F.lit(VALUE_UNITS - 1))
    return F.pmod(units + delta, F.lit(VALUE_UNITS)) / F.lit(VALUE_SCALE)


def day_timestamp(spec: GeneratorSpec, day: int) -> Column:
    """Midnight of the day's business date, in the session time zone (UTC in the lakehouse)."""
    return F.lit(spec.date_of(day).isoformat()).cast("date").cast("timestamp")


def uuid_from_md5(name: Column) -> Column:
    """Format md5(name) as 8-4-4-4-12 with the version-3 and RFC 4122 variant bits set."""
    digest = F.md5(name)
    nibble = F.conv(F.substring(digest, 17, 1), 16, 10).cast("int")
    variant = F.lit("89ab").substr(F.pmod(nibble, F.lit(4)) + F.lit(1), F.lit(1))
    return F.concat(
        F.substring(digest, 1, 8),
        F.lit("-"),
        F.substring(digest, 9, 4),
        F.lit("-3"),
        F.substring(digest, 14, 3),
        F.lit("-"),
        variant,
        F.substring(digest, 18, 3),
        F.lit("-"),
        F.substring(digest, 21, 12),
    )


def permutation(seed: int, day: int, size: int) -> tuple[int, int]:
    """``(a, b)`` for the bijection ``pos -> (a * pos + b) mod size`` of day ``day``."""
    if size <= 1:
        return 1, 0
    digest = hashlib.sha256(f"scd2-generator:{seed}:{day}:permutation".encode()).digest()
    a = int.from_bytes(digest[:8], "big") % size or 1
    b = int.from_bytes(digest[8:16], "big") % size
    while math.gcd(a, size) != 1:
        a = a % (size - 1) + 1
    return a, b


def _key_name(spec: GeneratorSpec, j: int) -> Column:
    return F.concat_ws(
        ":",
        F.lit(str(spec.seed)),
        F.col("_born").cast("string"),
        F.col("_idx").cast("string"),
        F.lit(str(j)),
    )


def row_hash(spec: GeneratorSpec, domain: int, day: int, m: int) -> Column:
    """A 64-bit hash of (seed, domain, day, row identity, column), stable across runs."""
    return F.xxhash64(
        F.lit(spec.seed).cast("long"),
        F.lit(domain).cast("long"),
        F.lit(day).cast("long"),
        F.col("_born").cast("long"),
        F.col("_idx").cast("long"),
        F.lit(m).cast("long"),
    )
