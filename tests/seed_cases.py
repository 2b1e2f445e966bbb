"""Seed files with every awkward value, and the values dbt defines them to load as.

The CSV is written with Python's csv module (what dbt itself reads seeds with); the expected
rows are stated here, from dbt's rules: a cell that is empty, blank or `null` (any case,
whitespace around it) is NULL; any other text is kept exactly, spaces included; typed columns
are Spark's cast of the text.
"""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

AWKWARD_HEADER = ("id", "name", "amount", "changed_at", "business_date")
AWKWARD_COLUMN_TYPES = {
    "id": "int",
    "name": "string",
    "amount": "double",
    "changed_at": "timestamp",
    "business_date": "date",
}
# (id, cell as written, value expected back)
AWKWARD_NAMES: list[tuple[str, str | None]] = [
    ("O'Brien", "O'Brien"),
    ("it''s two", "it''s two"),
    ('say "hi"', 'say "hi"'),
    ('""', '""'),
    ("a,b,c", "a,b,c"),
    ("line one\nline two", "line one\nline two"),
    ("\nstarts with a newline", "\nstarts with a newline"),
    ("back\\slash \\n \\t \\' \\\\", "back\\slash \\n \\t \\' \\\\"),
    ("ünïcødé ✓ 日本語 😀", "ünïcødé ✓ 日本語 😀"),
    ("100% %s %% {{ var('x') }} {% if %}", "100% %s %% {{ var('x') }} {% if %}"),
    ("-- not a comment; `tick` /* */", "-- not a comment; `tick` /* */"),
    # Spark substitutes ${...} in a statement's text, literals included.
    ("${env:HOME} ${system:user.name}", "${env:HOME} ${system:user.name}"),
    (
        "${spark.sql.session.timeZone} cost ${price} $5 $",
        "${spark.sql.session.timeZone} cost ${price} $5 $",
    ),
    ("  padded  ", "  padded  "),
    ("tab\tinside", "tab\tinside"),
    ("", None),
    ("   ", None),
    ("null", None),
    (" NULL ", None),
    ("nullable", "nullable"),
    ("none", "none"),
    ("\u00a0null\u3000", None),  # Python's strip() takes unicode spaces too
    ("\u2003", None),
    ("n", "n"),
    ("Nul", "Nul"),
    ("NULL!", "NULL!"),
]
AMOUNTS: list[tuple[str, float | None]] = [
    ("0.123456", 0.123456),
    ("-1234567.654321", -1234567.654321),
    ("999999.999999", 999999.999999),
    ("0.000001", 0.000001),
    ("42", 42.0),
    ("", None),
    (" 1.5 ", 1.5),
    ("  ", None),
    (" NULL ", None),
]
TIMESTAMPS: list[tuple[str, dt.datetime | None]] = [
    ("2024-01-01 00:00:00", dt.datetime(2024, 1, 1)),
    ("2024-02-29 23:59:59.123456", dt.datetime(2024, 2, 29, 23, 59, 59, 123456)),
    ("1999-12-31 12:30:00", dt.datetime(1999, 12, 31, 12, 30)),
    ("", None),
]
DATES: list[tuple[str, dt.date | None]] = [
    ("2024-01-01", dt.date(2024, 1, 1)),
    ("2024-02-29", dt.date(2024, 2, 29)),
    ("", None),
]


def awkward_rows() -> tuple[list[list[str]], list[tuple]]:
    """The CSV cells and the rows expected back, one row per awkward name."""
    cells, expected = [], []
    for index, (name_cell, name) in enumerate(AWKWARD_NAMES, start=1):
        amount_cell, amount = AMOUNTS[index % len(AMOUNTS)]
        ts_cell, ts = TIMESTAMPS[index % len(TIMESTAMPS)]
        date_cell, date = DATES[index % len(DATES)]
        cells.append([str(index), name_cell, amount_cell, ts_cell, date_cell])
        expected.append((index, name, amount, ts, date))
    return cells, expected


def write_csv(path: Path, header: tuple[str, ...] | list[str], rows: list[list[str]]) -> Path:
    """A seed file as Python's csv module writes it (minimal quoting, `""` inside quotes)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return path


def seed_properties(name: str, column_types: dict[str, str], **config: str) -> str:
    """A properties file pinning a seed's column types (and any other seed config)."""
    lines = ["version: 2", "seeds:", f"  - name: {name}", "    config:"]
    lines += [f"      {key}: {value}" for key, value in config.items()]
    if column_types:
        lines.append("      column_types:")
        lines += [f"        {column}: {type_}" for column, type_ in column_types.items()]
    return "\n".join(lines) + "\n"
