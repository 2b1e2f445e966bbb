"""The synthetic change-data generator, on real Spark and Iceberg.

Changes are established by comparing consecutive days' data (full outer join on the keys), never
by trusting the generator's own manifest; the manifest is then checked against that comparison.
Generated data is shared across tests through module-scoped fixtures to keep the run short.
"""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
import uuid
from datetime import UTC, date, datetime
from functools import reduce
from pathlib import Path

import pytest
import yaml
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from python_helpers.generate import main
from python_helpers.generator import (
    DELETED,
    INSERTED,
    UNCHANGED,
    UPDATED,
    DayData,
    GeneratorSpec,
    InvalidGeneratorArgument,
    frames,
    generate_day,
    write_seed_files,
)
from python_helpers.generator.cli import check_master
from python_helpers.generator.events import landing_dir
from python_helpers.generator.output import STAGING_PREFIX
from python_helpers.runtime.lakehouse import PROJECT_ROOT, lakehouse_dir
from python_helpers.tooling.bench import replace_section
from python_helpers.tooling.scratch import ScratchProject

ANCHOR = ["10000", "10000", "5", "10", "0.2", "0.4", "0.4"]
SPEC = GeneratorSpec(10000, 10000, 5, 10, 0.2, 0.4, 0.4)
FILES = ("cdc_source.csv", "cdc_changes.csv")


# --- helpers -------------------------------------------------------------------------------


def source_schema(spec: GeneratorSpec) -> T.StructType:
    return T.StructType(
        [T.StructField(c, T.StringType()) for c in spec.key_columns]
        + [T.StructField(c, T.DoubleType()) for c in spec.value_columns]
        + [T.StructField("updated_at", T.TimestampType())]
    )


def manifest_schema(spec: GeneratorSpec) -> T.StructType:
    return T.StructType(
        [T.StructField(c, T.StringType()) for c in spec.key_columns]
        + [
            T.StructField("change_type", T.StringType()),
            T.StructField("day", T.IntegerType()),
            T.StructField("business_date", T.DateType()),
        ]
    )


def read_csv(spark: SparkSession, path: Path, schema: T.StructType) -> DataFrame:
    return spark.read.csv(
        str(path),
        header=True,
        schema=schema,
        timestampFormat="yyyy-MM-dd HH:mm:ss",
        mode="FAILFAST",
    )


def observed_changes(previous: DataFrame, current: DataFrame, spec: GeneratorSpec) -> DataFrame:
    """Keys of both days with the change seen in the data, plus whether ``updated_at`` is right.

    updated = same key, at least one non-key value differs; unchanged = every non-key value and
    updated_at identical.
    """
    p = previous.select(
        *spec.key_columns,
        *[F.col(c).alias(f"p_{c}") for c in [*spec.value_columns, "updated_at"]],
        F.lit(True).alias("in_previous"),
    )
    c = current.select(
        *spec.key_columns,
        *[F.col(x).alias(f"c_{x}") for x in [*spec.value_columns, "updated_at"]],
        F.lit(True).alias("in_current"),
    )
    joined = p.join(c, on=spec.key_columns, how="full_outer")
    same_values = reduce(
        lambda acc, col: acc & F.col(f"p_{col}").eqNullSafe(F.col(f"c_{col}")),
        spec.value_columns,
        F.lit(True),
    )
    change = (
        F.when(F.col("in_previous").isNull(), F.lit(INSERTED))
        .when(F.col("in_current").isNull(), F.lit(DELETED))
        .when(same_values, F.lit(UNCHANGED))
        .otherwise(F.lit(UPDATED))
    )
    return joined.select(
        *spec.key_columns,
        change.alias("observed"),
        F.col("p_updated_at").alias("previous_updated_at"),
        F.col("c_updated_at").alias("current_updated_at"),
    )


def counts(frame: DataFrame, column: str) -> dict[str, int]:
    return {row[0]: row[1] for row in frame.groupBy(column).count().collect()}


def midnight(day: date) -> Column:
    """Midnight of ``day`` in the session time zone, as the CSV text would be read."""
    return F.to_timestamp(F.lit(f"{day.isoformat()} 00:00:00"))


def assert_day_follows(
    previous: DataFrame, current: DataFrame, spec: GeneratorSpec, day: int, expected: dict
) -> DataFrame:
    """The comparison shows exactly ``expected`` and the updated_at rule holds; returns it."""
    observed = observed_changes(previous, current, spec).cache()
    assert counts(observed, "observed") == expected
    stamp = midnight(spec.date_of(day))
    wrong_updated_at = observed.filter(
        (F.col("observed").isin(INSERTED, UPDATED) & (F.col("current_updated_at") != stamp))
        | (
            (F.col("observed") == UNCHANGED)
            & (F.col("current_updated_at") != F.col("previous_updated_at"))
        )
    )
    assert wrong_updated_at.count() == 0
    return observed


def assert_same_rows(left: DataFrame, right: DataFrame) -> None:
    """Equal as multisets of rows (one Spark job)."""
    differences = (
        left.exceptAll(right)
        .withColumn("_side", F.lit("left only"))
        .unionByName(right.exceptAll(left).withColumn("_side", F.lit("right only")))
    )
    assert differences.limit(5).collect() == []


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


# --- shared data ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def anchor_run(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The anchor's example through the command line: day 1 and day 2 folders."""
    root = tmp_path_factory.mktemp("anchor")
    assert main([*ANCHOR, str(root / "day1"), str(root / "day2")]) == 0
    return root


@pytest.fixture(scope="module")
def csv_days(spark: SparkSession, anchor_run: Path) -> dict[str, DataFrame]:
    """The anchor run's files, read back with the contract's types."""
    frames = {
        "source1": read_csv(spark, anchor_run / "day1" / FILES[0], source_schema(SPEC)),
        "changes1": read_csv(spark, anchor_run / "day1" / FILES[1], manifest_schema(SPEC)),
        "source2": read_csv(spark, anchor_run / "day2" / FILES[0], source_schema(SPEC)),
        "changes2": read_csv(spark, anchor_run / "day2" / FILES[1], manifest_schema(SPEC)),
    }
    return {name: frame.cache() for name, frame in frames.items()}


@pytest.fixture(scope="module")
def observed_day2(csv_days: dict[str, DataFrame]) -> DataFrame:
    return assert_day_follows(
        csv_days["source1"],
        csv_days["source2"],
        SPEC,
        2,
        {UPDATED: 4000, UNCHANGED: 4000, INSERTED: 2000, DELETED: 2000},
    )


# --- the anchor's example, from the files ----------------------------------------------------


def test_day2_holds_exact_shares_seen_in_the_data(
    csv_days: dict[str, DataFrame], observed_day2: DataFrame
) -> None:
    """4000 updated, 4000 unchanged, 2000 new, 2000 day-1 keys absent (not swapped)."""
    assert csv_days["source1"].count() == 10000
    assert csv_days["source2"].count() == 10000
    day1_keys = csv_days["source1"].select(*SPEC.key_columns)
    day2_keys = csv_days["source2"].select(*SPEC.key_columns)
    assert day1_keys.subtract(day2_keys).count() == 2000
    new_keys = day2_keys.subtract(day1_keys)
    assert new_keys.count() == 2000
    assert new_keys.intersect(day1_keys).count() == 0


def test_manifest_agrees_with_the_comparison_of_the_files(
    csv_days: dict[str, DataFrame], observed_day2: DataFrame
) -> None:
    changes2 = csv_days["changes2"]
    assert changes2.count() == observed_day2.count() == 12000
    assert changes2.select(*SPEC.key_columns).distinct().count() == 12000
    agreed = changes2.join(observed_day2, on=SPEC.key_columns, how="full_outer")
    assert agreed.filter(~F.col("change_type").eqNullSafe(F.col("observed"))).count() == 0
    assert changes2.select("day", "business_date").distinct().collect() == [(2, date(2024, 1, 2))]

    changes1 = csv_days["changes1"]
    assert changes1.select("change_type", "day", "business_date").distinct().collect() == [
        (INSERTED, 1, date(2024, 1, 1))
    ]
    assert_same_rows(
        changes1.select(*SPEC.key_columns), csv_days["source1"].select(*SPEC.key_columns)
    )
    assert (
        csv_days["source1"].filter(F.col("updated_at") != midnight(date(2024, 1, 1))).count() == 0
    )


def test_keys_are_unique_uuids(csv_days: dict[str, DataFrame]) -> None:
    source = csv_days["source2"]
    assert source.select(*SPEC.key_columns).distinct().count() == 10000
    for row in source.limit(50).collect():
        for key in row[: SPEC.no_keys]:
            assert str(uuid.UUID(key)) == key
            assert uuid.UUID(key).version == 3
    values = source.select(
        F.min(F.least(*SPEC.value_columns)), F.max(F.greatest(*SPEC.value_columns))
    ).first()
    assert 0 <= values[0] and values[1] < 1000


def test_csv_round_trips_exactly(spark: SparkSession, csv_days: dict[str, DataFrame]) -> None:
    """The files read back equal the API's DataFrames to the last bit (six-decimal doubles)."""
    day2 = generate_day(spark, SPEC, 2)
    assert_same_rows(csv_days["source2"], day2.source)
    assert_same_rows(csv_days["changes2"], day2.manifest)


def test_same_seed_gives_byte_identical_files(anchor_run: Path, tmp_path: Path) -> None:
    # The default seed given, between the shares and the folders: options may sit anywhere
    # (the folders were "unrecognized arguments" there).
    argv = [*ANCHOR, "--seed", "42", str(tmp_path / "day1"), str(tmp_path / "day2")]
    assert main(argv) == 0
    for day in ("day1", "day2"):
        assert sorted(p.name for p in (tmp_path / day).iterdir()) == sorted(FILES)
        match, mismatch, errors = filecmp.cmpfiles(
            anchor_run / day, tmp_path / day, FILES, shallow=False
        )
        assert (sorted(match), mismatch, errors) == (sorted(FILES), [], [])


def test_long_runs_keep_few_partitions_and_the_same_files(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each day's new rows come in partitions of their own: without compaction day d had d
    partitions or more (as many tasks for every scan and write). The state is compacted at its
    checkpoints (days 5, 10) in birth order, so day 12's files are byte-identical to those of
    the state never compacted. Small partitions make the compaction spread rows over
    several."""
    spec = GeneratorSpec(2000, 2000, 2, 3, 0.2, 0.4, 0.4, seed=11)
    monkeypatch.setattr(frames, "ROWS_PER_PARTITION", 300)
    monkeypatch.setattr(frames, "_STATES", {})
    compacted = generate_day(spark, spec, 12)
    parallelism = spark.sparkContext.defaultParallelism
    # compacted at day 10 to at most the parallelism, then two days of new rows
    assert compacted.source.rdd.getNumPartitions() <= 3 * parallelism
    write_seed_files(compacted, tmp_path / "compacted")

    monkeypatch.setattr(frames, "_STATES", {})
    monkeypatch.setattr(frames, "_compacted", lambda state, rows: state)
    never = generate_day(spark, spec, 12)
    assert never.source.rdd.getNumPartitions() >= 12
    write_seed_files(never, tmp_path / "never")
    match, mismatch, errors = filecmp.cmpfiles(
        tmp_path / "compacted", tmp_path / "never", FILES, shallow=False
    )
    assert (sorted(match), mismatch, errors) == (sorted(FILES), [], [])


def test_another_seed_gives_other_keys(spark: SparkSession, csv_days: dict[str, DataFrame]) -> None:
    other = generate_day(spark, GeneratorSpec(10000, 10000, 5, 10, 0.2, 0.4, 0.4, seed=7), 1)
    keys = csv_days["source1"].select(*SPEC.key_columns)
    assert other.source.select(*SPEC.key_columns).intersect(keys).count() == 0
    first_keys = csv_days["source1"].select("key_1")
    assert other.source.select("key_1").intersect(first_keys).count() == 0


# --- other shares, later days ----------------------------------------------------------------


def test_other_shares_are_not_swapped(spark: SparkSession) -> None:
    spec = GeneratorSpec(10000, 10000, 5, 10, 0.1, 0.6, 0.3)
    day1 = generate_day(spark, spec, 1).source.cache()
    day2 = generate_day(spark, spec, 2)
    observed = assert_day_follows(
        day1,
        day2.source,
        spec,
        2,
        {DELETED: 1000, UPDATED: 6000, UNCHANGED: 3000, INSERTED: 1000},
    )
    assert counts(day2.manifest, "change_type") == counts(observed, "observed")


def test_day3_follows_day2_with_the_same_shares(
    spark: SparkSession, csv_days: dict[str, DataFrame]
) -> None:
    day3 = generate_day(spark, SPEC, 3)
    observed = assert_day_follows(
        csv_days["source2"],
        day3.source,
        SPEC,
        3,
        {UPDATED: 4000, UNCHANGED: 4000, INSERTED: 2000, DELETED: 2000},
    )
    agreed = day3.manifest.join(observed, on=SPEC.key_columns, how="full_outer")
    assert agreed.filter(~F.col("change_type").eqNullSafe(F.col("observed"))).count() == 0


def test_days_past_a_checkpoint_follow_each_other(spark: SparkSession) -> None:
    """Day 7 is computed through a materialized day 5; it must still follow day 6 exactly."""
    spec = GeneratorSpec(1000, 1200, 2, 3, 0.25, 0.5, 0.25)
    day6 = generate_day(spark, spec, 6).source.cache()
    day7 = generate_day(spark, spec, 7)
    observed = assert_day_follows(
        day6, day7.source, spec, 7, {DELETED: 300, UPDATED: 600, UNCHANGED: 300, INSERTED: 300}
    )
    assert counts(day7.manifest, "change_type") == counts(observed, "observed")
    assert day7.source.count() == 1200


def test_a_day_after_the_days_before_is_the_day_from_day_1(spark: SparkSession) -> None:
    """Days asked for in turn start from the latest day computed in the application (a
    pipeline of D days no longer recomputes each from day 1): day 6 so, past the checkpoint
    of day 5, and its events (which read day 5 too), are row for row, in order, what they
    are computed from day 1 in an application that computed nothing before."""
    from python_helpers.generator import frames
    from python_helpers.generator.events import EventSpec, generate_events

    spec = GeneratorSpec(500, 600, 2, 3, 0.2, 0.4, 0.4, seed=7)

    def day6() -> list[list[tuple]]:
        data = generate_day(spark, spec, 6)
        events = generate_events(spark, spec, EventSpec(), 6)
        frames_ = (data.source, data.manifest, events.batch, events.expected)
        return [[tuple(row) for row in frame.collect()] for frame in frames_]

    for day in range(1, 6):
        generate_events(spark, spec, EventSpec(), day).batch.count()
    in_turn = day6()
    # The last days' states were kept: day 6 started from day 5's.
    assert sorted(frames._STATES[(spark.sparkContext.applicationId, spec)]) == [4, 5, 6]
    frames._STATES.clear()
    assert day6() == in_turn


def test_plan_counts_and_rounding() -> None:
    assert SPEC.plan(2).counts() == {INSERTED: 2000, UPDATED: 4000, UNCHANGED: 4000, DELETED: 2000}
    assert SPEC.plan(1).counts() == {INSERTED: 10000, UPDATED: 0, UNCHANGED: 0, DELETED: 0}
    # Rounding never loses or invents rows.
    for n in (1, 2, 3, 7, 10, 999):
        spec = GeneratorSpec(n, n, 1, 1, 0.5, 0.5, 0.0)
        plan = spec.plan(2)
        assert plan.deleted + plan.updated + plan.unchanged == n
        assert plan.rows == n
    assert GeneratorSpec(3, 3, 1, 1, 1 / 3, 1 / 3, 1 / 3).plan(2).counts() == {
        INSERTED: 1,
        UPDATED: 1,
        UNCHANGED: 1,
        DELETED: 1,
    }
    # Shares as the decimals they are written as: 0.08 + 0.47 of 10 rows is 5.5, rounded up
    # (binary floating point made it 5.4999... and updated one row fewer).
    for shares, (deleted, updated) in (((0.08, 0.47, 0.45), (1, 5)), ((0.06, 0.59, 0.35), (1, 6))):
        plan = GeneratorSpec(10, 10, 1, 1, *shares).plan(2)
        assert (plan.deleted, plan.updated, plan.unchanged) == (deleted, updated, 10 - 1 - updated)
    assert SPEC.date_of(3) == date(2024, 1, 3)


# --- outputs ---------------------------------------------------------------------------------


def test_seed_files_load_with_dbt_seed(spark: SparkSession, dbt_project: ScratchProject) -> None:
    """generate day 1, then day 2 (replacing the files) -> dbt seed: the properties file pins
    every type and documents every seed and column."""
    seeds_dir = dbt_project.root / "seeds" / "generated"
    small = ["40", "50", "2", "3", "0.25", "0.5", "0.25"]
    # A killed run's staging folder (its process gone), which dbt ignores (.dbtignore), and one
    # of a live process: the next run removes only the first.
    dead = seeds_dir / f"{STAGING_PREFIX}999999999-abc"
    live = seeds_dir / f"{STAGING_PREFIX}{os.getppid()}-def"
    for staging in (dead, live):
        staging.mkdir(parents=True)
        (staging / "cdc_source.csv").write_text("key_1\nhalf-written\n")
    dbt_project.dbt("ls", "--resource-type", "seed")  # one seed of each name
    for day in (1, 2):
        assert main([*small, "--day", str(day), "--seeds-dir", str(seeds_dir)]) == 0
        assert sorted(p.name for p in seeds_dir.iterdir()) == [
            live.name,
            "cdc_changes.csv",
            "cdc_seeds.yml",
            "cdc_source.csv",
        ]
    shutil.rmtree(live)
    dbt_project.dbt("seed")
    source = spark.table(dbt_project.table("cdc_source"))
    changes = spark.table(dbt_project.table("cdc_changes"))
    assert [(f.name, f.dataType.simpleString()) for f in source.schema.fields] == [
        ("key_1", "string"),
        ("key_2", "string"),
        ("col_1", "double"),
        ("col_2", "double"),
        ("col_3", "double"),
        ("updated_at", "timestamp"),
    ]
    assert [f.dataType.simpleString() for f in changes.schema.fields] == [
        "string",
        "string",
        "string",
        "int",
        "date",
    ]
    spec = GeneratorSpec(40, 50, 2, 3, 0.25, 0.5, 0.25)
    expected = generate_day(spark, spec, 2)
    assert_same_rows(source, expected.source)
    assert_same_rows(changes, expected.manifest)

    properties = yaml.safe_load((seeds_dir / "cdc_seeds.yml").read_text())
    by_name = {seed["name"]: seed for seed in properties["seeds"]}
    for name, columns in {"cdc_source": source.columns, "cdc_changes": changes.columns}.items():
        seed = by_name[name]
        assert seed["description"]
        assert list(seed["config"]["column_types"]) == columns
        assert [c["name"] for c in seed["columns"]] == columns
        assert all(c["description"] for c in seed["columns"])


def test_table_output_writes_iceberg_tables(spark: SparkSession) -> None:
    schema = "generate_tables"
    spark.sql(f"drop schema if exists {schema} cascade")
    assert main([*ANCHOR, "--format", "table", "--day", "2", "--schema", schema]) == 0
    expected = generate_day(spark, SPEC, 2)
    for table, frame in (("cdc_source", expected.source), ("cdc_changes", expected.manifest)):
        name = f"{schema}.{table}"
        ddl = spark.sql(f"show create table {name}").first()[0]
        assert "USING iceberg" in ddl, ddl
        assert_same_rows(spark.table(name), frame)
    # The next day replaces both tables (a new Iceberg snapshot each).
    assert main([*ANCHOR, "--format", "table", "--day", "3", "--schema", schema]) == 0
    assert spark.sql(f"select * from {schema}.cdc_source.snapshots").count() == 2
    days = spark.table(f"{schema}.cdc_changes").groupBy("day").count().collect()
    assert [tuple(r) for r in days] == [(3, 12000)]


def test_a_session_in_another_zone_writes_the_same_instants(spark: SparkSession) -> None:
    """The generator reuses a session running in the process (a notebook's), whatever its
    time zone: its dates are midnight UTC and its event times UTC instants all the same (a
    Paris session shifted every updated_at and event time by an hour), and the session's zone
    is given back."""
    schema = "generate_zone"
    spark.sql(f"drop schema if exists {schema} cascade")
    small = ["30", "30", "1", "1", "0.2", "0.4", "0.4", "--schema", schema]
    zone = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "Europe/Paris")
    try:
        assert main([*small, "--format", "table", "--day", "2"]) == 0
        assert main([*small, "--events", "flat", "--day", "2"]) == 0
        assert spark.conf.get("spark.sql.session.timeZone") == "Europe/Paris"
        moments = spark.sql(
            f"""
            select
                min(unix_seconds(updated_at)), max(unix_seconds(updated_at)),
                (select min(unix_seconds(event_ts)) from {schema}.raw_events where op != 'r')
            from {schema}.cdc_source
            """
        ).first()
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)
    day1, day2 = (int(datetime(2024, 1, d, tzinfo=UTC).timestamp()) for d in (1, 2))
    assert (moments[0], moments[1]) == (day1, day2)
    assert day2 <= moments[2] < day2 + 86400  # the day's events, on day 2 in UTC


def test_events_mode_writes_each_days_change_events(spark: SparkSession) -> None:
    """``--events``: day 1 is one snapshot read per key; day 2 the events that turn day 1 into
    day 2, with the counts the shares give for 300 keys (60 deleted, 120 updated, 60 new):
    6 of the deleted keys move into new keys by a key change (an update), the other 54 are
    deleted; 12 updated keys are deleted and created again; 54 new keys are created. Both
    shapes carry the same events."""
    schema = "generate_events"
    spark.sql(f"drop schema if exists {schema} cascade")
    small = ["300", "300", "2", "3", "0.2", "0.4", "0.4", "--schema", schema]
    no_extras = ["--pct-duplicate", "0", "--pct-delayed", "0"]

    def ops(table: str, column: str = "op") -> dict[str, int]:
        counts = spark.table(f"{schema}.{table}").groupBy(column).count().collect()
        return {row[0]: row[1] for row in counts}

    assert main([*small, *no_extras, "--events", "flat"]) == 0
    assert ops("raw_events") == {"r": 300}
    assert spark.table(f"{schema}.raw_event_versions").count() == 300

    assert main([*small, *no_extras, "--events", "flat", "--day", "2"]) == 0
    day2 = ops("raw_events")
    assert set(day2) == {"c", "u", "d"}
    assert day2["d"] == 54 + 12
    assert day2["c"] == 54 + 12
    # 84 single updates, 24 keys updated two or three times, 6 key changes, 6 no-ops.
    assert day2["u"] >= 84 + 2 * 24 + 6 + 6
    key_changes = spark.sql(
        f"select count(*) from {schema}.raw_events where op = 'u' and before_key_1 != key_1"
    ).first()[0]
    assert key_changes == 6

    assert main([*small, *no_extras, "--events", "debezium"]) == 0
    # Kafka Connect's lines name every field, null or not: a table that infers its schema from
    # day 1's snapshot reads (no before) still has before, as events.md's JSON table does.
    landing = landing_dir(lakehouse_dir(), schema)
    inferred = spark.read.json(landing.as_uri())
    assert {"before", "after", "op", "source", "ts_ms"} <= set(inferred.columns)
    assert inferred.where("before is null and op = 'r'").count() == 300

    assert main([*small, *no_extras, "--events", "debezium", "--day", "2"]) == 0
    assert ops("raw_debezium_events") == day2

    # Again with 5 non-key columns: the JSON table takes the batch's new shape (it kept the
    # first run's, and read the new columns as nothing).
    wider = [*small[:3], "5", *small[4:]]
    assert main([*wider, *no_extras, "--events", "debezium", "--day", "2"]) == 0
    table = f"{schema}.raw_debezium_events"
    fields = spark.table(table).schema["after"].dataType.fieldNames()
    assert fields == ["key_1", "key_2", "col_1", "col_2", "col_3", "col_4", "col_5"]
    assert (
        spark.sql(f"select count(*) from {table} where after.col_5 is null").first()[0]
        == (spark.sql(f"select count(*) from {table} where after is null").first()[0])
    )


def test_a_failed_write_leaves_previous_files(spark: SparkSession, tmp_path: Path) -> None:
    """Files are staged and renamed only once everything is written."""
    seeds_dir = tmp_path / "seeds"
    seeds_dir.mkdir()
    for name in (*FILES, "cdc_seeds.yml"):
        (seeds_dir / name).write_text("yesterday\n")
    good = generate_day(spark, GeneratorSpec(10, 10, 1, 1, 0.2, 0.4, 0.4), 1)
    failing = good.manifest.withColumn("change_type", F.raise_error(F.lit("boom")))
    broken = DayData(good.spec, good.plan, good.source, failing)
    with pytest.raises(Exception, match="boom"):
        write_seed_files(broken, seeds_dir)
    assert files_of(seeds_dir) == {n: b"yesterday\n" for n in (*FILES, "cdc_seeds.yml")}
    with pytest.raises(Exception, match="boom"):
        write_seed_files(broken, tmp_path / "new" / "seeds")
    assert not (tmp_path / "new").exists()


def test_bench_sections_are_replaced_not_duplicated() -> None:
    document = replace_section("", "generator", "## G\n\nfirst\n")
    document = replace_section(document, "snapshots", "## S\n\nsnap\n")
    document = replace_section(document, "generator", "## G\n\nsecond\n")
    assert document.startswith("# Benchmarks")
    assert "first" not in document and document.count("second") == 1
    assert document.index("second") < document.index("snap")
    assert document.count("<!-- bench:generator -->") == 1


# --- validation ------------------------------------------------------------------------------


def _bad_cases(tmp: Path) -> list[tuple[list[str], str, str]]:
    blocker = tmp / "a-file"
    out = str(tmp / "out")
    seeds = ["--seeds-dir", out]
    return [
        (["10000", "10000", "5", "10", "1.5", "0.4", "0.4", *seeds], "pct_del", "[0, 1]"),
        (["10000", "10000", "5", "10", "0.2", "-0.1", "0.9", *seeds], "pct_upd", "[0, 1]"),
        (["10000", "10000", "5", "10", "0.2", "0.4", "1.2", *seeds], "pct_unchanged", "[0, 1]"),
        (["10000", "10000", "5", "10", "0.2", "0.4", "0.5", *seeds], "sum", "must sum to 1"),
        (["10000", "5000", "5", "10", "0.2", "0.4", "0.4", *seeds], "no_incr_recs", "8000"),
        (["10000", "10000", "0", "10", "0.2", "0.4", "0.4", *seeds], "no_keys", "between 1"),
        (["10000", "10000", "5", "0", "0.2", "0.4", "0.4", *seeds], "no_nonkeys", "between 1"),
        (["0", "10000", "5", "10", "0.2", "0.4", "0.4", *seeds], "no_init_recs", "at least 1"),
        (["-5", "10000", "5", "10", "0.2", "0.4", "0.4", *seeds], "no_init_recs", "at least 1"),
        (["10", "0", "5", "10", "1", "0", "0", *seeds], "no_incr_recs", "at least 1"),
        ([*ANCHOR, "--day", "0", *seeds], "--day", "at least 1"),
        ([*ANCHOR, "--seeds-dir", str(blocker / "sub")], "--seeds-dir", "not a directory"),
        ([*ANCHOR, "--seeds-dir", str(blocker)], "--seeds-dir", "not a directory"),
        ([*ANCHOR, str(blocker / "d1"), out], "initial_output", "not a directory"),
        ([*ANCHOR, out, str(blocker / "d2")], "incremental_output", "not a directory"),
        ([*ANCHOR, out], "incremental_output", "required"),
        ([*ANCHOR, out, out], "incremental_output", "must differ"),
        ([*ANCHOR, out, str(tmp / "o2"), "--day", "2"], "--day", "not allowed"),
        ([*ANCHOR, "--format", "table", "--schema", "x; drop"], "--schema", "identifier"),
        ([*ANCHOR, "--format", "table", *seeds], "--seeds-dir", "only with --format csv"),
        ([*ANCHOR, "--events", "flat", "--pct-noop", "2"], "--pct-noop", "[0, 1]"),
        ([*ANCHOR, "--events", "flat", "--format", "table"], "--format table", "--events"),
        ([*ANCHOR, "--events", "debezium", *seeds], "--seeds-dir", "not with --events"),
        ([*ANCHOR, "--day", "99999999", *seeds], "--day", "at most 3660"),
        (
            [*ANCHOR, "--business-date", "9999-12-31", "--day", "2", *seeds],
            "--business-date",
            "day 2 would fall after 9999-12-31",
        ),
        ([*ANCHOR, "--seed", str(2**64), *seeds], "--seed", "64"),
        ([*ANCHOR, "--master", "foo", *seeds], "--master", "not a Spark master URL"),
        # Refused to root as well, whom os.access lets write anywhere.
        ([*ANCHOR, "--seeds-dir", "/proc/scd2_seeds"], "--seeds-dir", "/proc is not writable"),
    ]


BAD_CASE_IDS = [
    "pct_del>1",
    "pct_upd<0",
    "pct_unchanged>1",
    "sum!=1",
    "incr<survivors",
    "zero-keys",
    "zero-nonkeys",
    "zero-records",
    "negative-records",
    "zero-incr",
    "day-0",
    "seeds-dir-under-file",
    "seeds-dir-is-file",
    "initial-under-file",
    "incremental-under-file",
    "incremental-missing",
    "same-folders",
    "day-with-folders",
    "bad-schema",
    "seeds-dir-with-table",
    "event-share>1",
    "events-with-table-format",
    "events-with-seeds-dir",
    "day-too-late",
    "date-past-9999",
    "seed-too-large",
    "master-not-a-url",
    "seeds-dir-unwritable",
]


@pytest.mark.parametrize(
    ("master", "valid"),
    [
        ("local", True),
        ("local[4]", True),
        ("local[*]", True),
        ("local[4, 2]", True),
        ("local[*,3]", True),
        ("local-cluster[2, 1, 1024]", True),
        ("spark://h1:7077,h2:7077", True),
        ("k8s://https://h:443", True),
        ("yarn", True),
        ("foo", False),
        ("local[x]", False),
        ("local[2", False),
        ("spark://", False),
    ],
)
def test_master_urls_in_sparks_forms_are_accepted(master: str, valid: bool) -> None:
    if valid:
        check_master(master)
    else:
        with pytest.raises(InvalidGeneratorArgument, match="not a Spark master URL"):
            check_master(master)


def test_day_one_may_fall_on_the_last_date() -> None:
    """The spec checks day 2's counts, not its date: day 1 alone on 9999-12-31 is a valid run
    (it was refused as "day 2 would fall after 9999-12-31"); day 2 is not."""
    spec = GeneratorSpec(10, 10, 1, 1, 0.2, 0.4, 0.4, business_date=date(9999, 12, 31))
    assert spec.plan(1).business_date == date(9999, 12, 31)
    with pytest.raises(InvalidGeneratorArgument, match="day 2 would fall after 9999-12-31"):
        spec.plan(2)


@pytest.mark.parametrize("case", range(len(BAD_CASE_IDS)), ids=BAD_CASE_IDS)
def test_each_bad_argument_fails_clearly_and_writes_nothing(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str], case: int
) -> None:
    (tmp_path / "a-file").write_text("in the way\n")
    before = sorted(tmp_path.rglob("*"))
    argv, argument, rule = _bad_cases(tmp_path)[case]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m python_helpers.generate: error: "), err
    assert argument in err and rule in err, err
    assert sorted(tmp_path.rglob("*")) == before


@pytest.mark.parametrize(
    ("argv", "argument"),
    [
        (["ten", *ANCHOR[1:]], "no_init_recs"),
        ([*ANCHOR[:4], "x", *ANCHOR[5:]], "pct_del"),
        ([*ANCHOR, "--format", "xml"], "--format"),
        ([*ANCHOR, "--business-date", "2024-13-01"], "--business-date"),
        ([*ANCHOR, "--day", "two"], "--day"),
        (ANCHOR[:6], "pct_unchanged"),
        ([*ANCHOR, "--events", "avro"], "--events"),
    ],
    ids=["not-int", "not-float", "bad-format", "bad-date", "bad-day", "missing", "bad-shape"],
)
def test_unparsable_arguments_exit_2(
    argv: list[str], argument: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert argument in capsys.readouterr().err


def test_api_raises_named_errors(spark: SparkSession) -> None:
    with pytest.raises(InvalidGeneratorArgument) as info:
        GeneratorSpec(100, 100, 1, 1, 0.5, 0.5, 0.5)
    assert "sum to 1" in str(info.value)
    with pytest.raises(InvalidGeneratorArgument) as info:
        generate_day(spark, SPEC, 0)
    assert info.value.argument == "day"
    with pytest.raises(InvalidGeneratorArgument) as info:
        GeneratorSpec(100, 100, 1, 1, 0.2, 0.4, 0.4, seed=2**64)
    assert info.value.argument == "seed"


def test_help_explains_every_argument(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for name in (
        "no_init_recs",
        "no_incr_recs",
        "no_keys",
        "no_nonkeys",
        "pct_del",
        "pct_upd",
        "pct_unchanged",
        "initial_output",
        "incremental_output",
        "--seed",
        "--format",
        "--day",
        "--business-date",
        "--seeds-dir",
        "--schema",
        "--master",
    ):
        assert f"  {name}" in text, name


def test_runs_as_a_script_as_spark_submit_starts_it(tmp_path: Path) -> None:
    """spark-submit runs the file, not the module: the import shim must find the project.

    A bad argument stops it before Spark starts, so no second JVM is needed here.
    """
    script = PROJECT_ROOT / "python_helpers" / "generate.py"
    argv = [sys.executable, str(script), *ANCHOR[:4], "2", "0", "0", "--seeds-dir", str(tmp_path)]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "pct_del: must be a share in [0, 1], got 2.0" in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["generate", "pipeline"])
def test_a_lakehouse_folder_that_cannot_be_made_exits_2(command: str, tmp_path: Path) -> None:
    """LAKEHOUSE_DIR naming a file: exit 2 with what to set, and nothing written (a
    FileExistsError traceback and exit 1 before). Each command in a process of its own,
    which starts the lakehouse itself."""
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    arguments = {
        "generate": [*ANCHOR[:4], "0.2", "0.4", "0.4", str(tmp_path / "d1"), str(tmp_path / "d2")],
        "pipeline": ["--days", "1", "--init-recs", "10", "--incr-recs", "10"],
    }[command]
    done = subprocess.run(
        [sys.executable, "-m", f"python_helpers.{command}", *arguments],
        cwd=PROJECT_ROOT,
        env={**os.environ, "LAKEHOUSE_DIR": str(blocker)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr
    assert f"the lakehouse folder {blocker} (LAKEHOUSE_DIR" in done.stderr, done.stderr
    assert "Set LAKEHOUSE_DIR to a folder this user can write" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_day_data_exposes_its_plan(spark: SparkSession) -> None:
    data: DayData = generate_day(spark, SPEC, 2)
    assert (data.day, data.business_date) == (2, date(2024, 1, 2))
    assert data.source.columns == SPEC.source_columns
    assert data.manifest.columns == SPEC.manifest_columns
