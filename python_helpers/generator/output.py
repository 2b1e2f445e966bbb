"""Where generated days go: dbt seed files (CSV + properties YAML) or Iceberg tables.

CSV files must be byte-identical for a given seed. Spark writes the pre-formatted lines as text
parts (in parallel, no sort: the generator's row order is already deterministic) into a staging
folder next to the target; the driver concatenates the parts in partition order behind a header
and only then renames the finished files into place, so a failed run leaves nothing half-written.
The output folder must therefore be on a filesystem the driver and the executors share (a local
master, or a shared mount); on a cluster, use the table output.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from python_helpers.generator.frames import DayData
from python_helpers.generator.spec import (
    CHANGES_TABLE,
    SOURCE_TABLE,
    GeneratorSpec,
    InvalidGeneratorArgument,
)

SOURCE_FILE = f"{SOURCE_TABLE}.csv"
CHANGES_FILE = f"{CHANGES_TABLE}.csv"
PROPERTIES_FILE = "cdc_seeds.yml"
# Where the seeds go, relative to a dbt project (the seed-paths folder seeds/, then generated/).
DEFAULT_SEEDS_DIR = Path("seeds") / "generated"
SEED_FILES = (SOURCE_FILE, CHANGES_FILE, PROPERTIES_FILE)
STAGING_PREFIX = ".cdc-staging-"
TIMESTAMP_FORMAT = "yyyy-MM-dd HH:mm:ss"
DATE_FORMAT = "yyyy-MM-dd"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_PART = re.compile(r"^part-(\d+)")


def check_output_dir(path: Path, argument: str, files: Sequence[str] = SEED_FILES) -> None:
    """Fail before generating anything if ``path`` cannot receive ``files``.

    ``path`` may not exist yet: then its nearest existing ancestor must be a writable folder.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise InvalidGeneratorArgument(argument, f"{path} exists and is not a directory")
    probe = path
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise InvalidGeneratorArgument(
            argument, f"cannot create {path}: {probe} is not a directory"
        )
    # Tried, not asked: os.access grants root everything, even where the filesystem refuses
    # (/proc, a read-only mount).
    try:
        with tempfile.TemporaryDirectory(dir=probe, prefix=".scd2-probe-"):
            pass
    except OSError as exc:
        raise InvalidGeneratorArgument(
            argument, f"cannot create {path}: {probe} is not writable ({exc.strerror})"
        ) from None
    for name in files:
        if (path / name).is_dir():
            raise InvalidGeneratorArgument(
                argument, f"{path / name} is a directory; it would be replaced by a file"
            )


def check_schema_name(schema: str, argument: str = "--schema") -> None:
    """The schema goes into SQL unquoted: accept plain identifiers only."""
    if not _IDENTIFIER.match(schema or ""):
        raise InvalidGeneratorArgument(
            argument, f"must be a plain identifier (letters, digits, _), got {schema!r}"
        )


def write_seed_files(data: DayData, seeds_dir: Path, *, properties: bool = True) -> list[Path]:
    """Write ``cdc_source.csv``, ``cdc_changes.csv`` and (``properties``) ``cdc_seeds.yml``
    into ``seeds_dir``, replacing the previous day's files: one seed per table for dbt."""
    seeds_dir = Path(seeds_dir)
    check_output_dir(seeds_dir, "seeds_dir")
    with _staged([seeds_dir]) as (staging,):
        _stage_day(data, staging, properties=properties)
    return [seeds_dir / name for name in (SEED_FILES if properties else SEED_FILES[:2])]


def write_seed_placeholders(seeds_dir: Path, spec: GeneratorSpec) -> list[Path]:
    """Header-only seed files with ``spec``'s columns in ``seeds_dir``,
    unless a day was generated there already: the project's snapshots read the seed
    ``cdc_source`` through ``ref()`` (so that ``dbt build`` runs seeds first), and a ref to a seed
    without its file does not parse. ``dbt seed`` of a placeholder loads an empty table.
    Returns the files written (none when the seeds exist)."""
    seeds_dir = Path(seeds_dir)
    if (seeds_dir / SOURCE_FILE).exists():
        return []
    check_output_dir(seeds_dir, "seeds_dir")
    seeds_dir.mkdir(parents=True, exist_ok=True)
    files = {
        SOURCE_FILE: ",".join(spec.source_columns) + "\n",
        CHANGES_FILE: ",".join(spec.manifest_columns) + "\n",
        PROPERTIES_FILE: "# Placeholder (header-only seeds): no day generated yet.\n"
        + seed_properties(spec),
    }
    for name, text in files.items():
        (seeds_dir / name).write_text(text)
    return [seeds_dir / name for name in files]


def write_day_folders(
    first: DayData, second: DayData, initial_output: Path, incremental_output: Path
) -> list[Path]:
    """The anchor's layout: day 1 into ``initial_output``, day 2 into ``incremental_output``,
    each a folder with the source CSV (with header) and its manifest. Both folders are
    committed only after both are fully written."""
    folders = [Path(initial_output), Path(incremental_output)]
    for folder, argument in zip(folders, ("initial_output", "incremental_output"), strict=True):
        check_output_dir(folder, argument, SEED_FILES[:2])
    with _staged(folders) as stagings:
        for data, staging in zip((first, second), stagings, strict=True):
            _stage_day(data, staging, properties=False)
    return [folder / name for folder in folders for name in SEED_FILES[:2]]


def write_tables(data: DayData, schema: str) -> list[str]:
    """Replace Iceberg tables ``<schema>.cdc_source`` and ``<schema>.cdc_changes`` with the day
    (skipping the CSV files and ``dbt seed``, for the largest volumes)."""
    check_schema_name(schema)
    spark = data.source.sparkSession
    spark.sql(f"create schema if not exists {schema}")
    names = []
    for table, frame in ((SOURCE_TABLE, data.source), (CHANGES_TABLE, data.manifest)):
        name = f"{schema}.{table}"
        frame.writeTo(name).using("iceberg").createOrReplace()
        names.append(name)
    return names


def csv_lines(frame: DataFrame) -> DataFrame:
    """One ``line`` per row, formatted for exact round trips: doubles as plain six-decimal
    numbers (never ``1.0E-4``), timestamps ``yyyy-MM-dd HH:mm:ss``, dates ``yyyy-MM-dd``.

    Strings are written unquoted: the generator's strings (UUIDs, change types) never hold a
    comma, quote or newline.
    """
    return frame.select(
        F.concat_ws(",", *[_as_text(field) for field in frame.schema.fields]).alias("line")
    )


def write_csv(frame: DataFrame, path: Path) -> Path:
    """Write ``frame`` as one CSV file with a header, rows in the DataFrame's own order."""
    path = Path(path)
    parts_dir = path.with_name(path.name + ".parts")
    csv_lines(frame).write.mode("errorifexists").text(parts_dir.as_uri())
    parts = sorted(
        (int(match.group(1)), part)
        for part in parts_dir.iterdir()
        if (match := _PART.match(part.name)) and not part.name.endswith(".crc")
    )
    with path.open("wb") as out:
        out.write((",".join(frame.columns) + "\n").encode())
        for _, part in parts:
            with part.open("rb") as chunk:
                shutil.copyfileobj(chunk, out, length=1 << 20)
    shutil.rmtree(parts_dir)
    return path


def seed_properties(spec: GeneratorSpec) -> str:
    """The dbt properties file of both seeds: ``column_types`` pin every column, so that dbt
    casts the text instead of letting agate guess (a key like ``1e10...`` would become a number),
    plus a description of every seed and column."""
    keys = ", ".join(spec.key_columns)
    key_doc = (
        "Part {j} of the composite key ({keys}): a UUID (version-3 shaped md5 of the seed, the "
        "day the row was inserted and its index that day)."
    )
    source_columns = [
        (c, "string", key_doc.format(j=j, keys=keys)) for j, c in enumerate(spec.key_columns, 1)
    ]
    for m, c in enumerate(spec.value_columns, 1):
        text = "Non-key value: a double in [0, 1000) with six decimals, rewritten by updates."
        if m == 1:
            text += " Always differs after an update, so every update changes the row."
        source_columns.append((c, "double", text))
    source_columns.append(
        (
            "updated_at",
            "timestamp",
            "Midnight of the business day on which the row was inserted or last updated; "
            "unchanged rows keep their previous value.",
        )
    )
    change_columns = [
        (c, "string", key_doc.format(j=j, keys=keys)) for j, c in enumerate(spec.key_columns, 1)
    ]
    change_columns += [
        (
            "change_type",
            "string",
            "What happened to the key on this day: inserted (new key), updated (non-key "
            "values changed), unchanged (identical row), deleted (gone since the day before).",
        ),
        ("day", "int", "Generator day: 1 is the initial load."),
        ("business_date", "date", "Business date of the day (day 1 is --business-date)."),
    ]
    seeds = [
        (
            SOURCE_TABLE,
            "Synthetic change-data source, replaced each day: the current rows of one day, "
            "input of the SCD2 snapshot.",
            source_columns,
        ),
        (
            CHANGES_TABLE,
            "Manifest of the day's changes: every key of the previous day and of this day with "
            "its change type, to check the snapshot against.",
            change_columns,
        ),
    ]
    lines = [
        "# Written by `python -m python_helpers.generate` with its CSV files: do not edit.",
        f"# Spec: {spec.no_init_recs} {spec.no_incr_recs} {spec.no_keys} {spec.no_nonkeys} "
        f"{spec.pct_del} {spec.pct_upd} {spec.pct_unchanged} --seed {spec.seed} "
        f"--business-date {spec.business_date.isoformat()}",
        "version: 2",
        "",
        "seeds:",
    ]
    for name, description, columns in seeds:
        lines += [
            f"  - name: {name}",
            f"    description: {_yaml_string(description)}",
            "    config:",
            "      column_types:",
            *[f"        {column}: {sql_type}" for column, sql_type, _ in columns],
            "    columns:",
        ]
        for column, _, text in columns:
            lines += [f"      - name: {column}", f"        description: {_yaml_string(text)}"]
    return "\n".join(lines) + "\n"


def _stage_day(data: DayData, staging: Path, *, properties: bool) -> None:
    write_csv(data.source, staging / SOURCE_FILE)
    write_csv(data.manifest, staging / CHANGES_FILE)
    if properties:
        (staging / PROPERTIES_FILE).write_text(seed_properties(data.spec))


@contextmanager
def _staged(folders: Sequence[Path]) -> Iterator[list[Path]]:
    """Yield one staging folder per target folder; on success move every staged file into its
    target (replacing), on failure remove the staging folders and any folder created here.

    A staging folder is named after its process; a run killed before it cleaned up (SIGKILL,
    SIGTERM) leaves one behind, which the next run removes (the project's .dbtignore keeps
    dbt from reading it meanwhile)."""
    created: list[Path] = []
    stagings: list[Path] = []
    try:
        for folder in folders:
            missing = _topmost_missing(folder)
            folder.mkdir(parents=True, exist_ok=True)
            if missing is not None:
                created.append(missing)
            _remove_stale_stagings(folder)
            prefix = f"{STAGING_PREFIX}{os.getpid()}-"
            stagings.append(Path(tempfile.mkdtemp(prefix=prefix, dir=folder)))
        yield stagings
        for folder, staging in zip(folders, stagings, strict=True):
            for staged in sorted(staging.iterdir()):
                if staged.is_file():
                    os.replace(staged, folder / staged.name)
    except BaseException:
        for path in created:
            shutil.rmtree(path, ignore_errors=True)
        raise
    finally:
        for staging in stagings:
            shutil.rmtree(staging, ignore_errors=True)


def _remove_stale_stagings(folder: Path) -> None:
    """Remove the staging folders in ``folder`` of processes that are gone."""
    for staging in folder.glob(f"{STAGING_PREFIX}*"):
        owner = re.match(rf"^{re.escape(STAGING_PREFIX)}(\d+)-", staging.name)
        if staging.is_dir() and (owner is None or not _process_alive(int(owner.group(1)))):
            shutil.rmtree(staging, ignore_errors=True)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def _topmost_missing(path: Path) -> Path | None:
    missing = None
    while not path.exists():
        missing, path = path, path.parent
    return missing


def _as_text(field: T.StructField) -> Column:
    """A column as CSV text; NULL becomes an empty field (concat_ws would drop it)."""
    column = F.col(field.name)
    if isinstance(field.dataType, T.DoubleType | T.FloatType):
        text = column.cast("decimal(38,6)").cast("string")
    elif isinstance(field.dataType, T.TimestampType | T.TimestampNTZType):
        text = F.date_format(column, TIMESTAMP_FORMAT)
    elif isinstance(field.dataType, T.DateType):
        text = F.date_format(column, DATE_FORMAT)
    else:
        text = column.cast("string")
    return F.coalesce(text, F.lit(""))


def _yaml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
