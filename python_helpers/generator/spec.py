"""What to generate: the validated generator specification and each day's exact row counts.

Everything here is plain Python (no Spark), so that bad arguments are rejected before a JVM
starts and before anything is written.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

SOURCE_TABLE = "cdc_source"
CHANGES_TABLE = "cdc_changes"

INSERTED = "inserted"
UPDATED = "updated"
UNCHANGED = "unchanged"
DELETED = "deleted"
CHANGE_TYPES = (INSERTED, UPDATED, UNCHANGED, DELETED)

DEFAULT_SEED = 42
DEFAULT_BUSINESS_DATE = date(2024, 1, 1)
SHARE_TOLERANCE = 1e-9
# Positions are permuted with long arithmetic (a * pos + b < records**2 must fit in 63 bits).
MAX_RECORDS = 1_000_000_000
MAX_COLUMNS = 1_000
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


class GeneratorError(ValueError):
    """Base class of the generator's errors: the CLI turns them into exit status 2."""


class InvalidGeneratorArgument(GeneratorError):
    """An argument breaks a rule; ``argument`` names it so that the message can point at it."""

    def __init__(self, argument: str, rule: str) -> None:
        self.argument = argument
        self.rule = rule
        super().__init__(f"{argument}: {rule}")


# The last day the generator makes: ten years of days.
MAX_DAY = 3660


def round_half_up(value: float | Decimal) -> int:
    """Python's round() rounds half to even; counts of rows read better rounded half up."""
    return math.floor(value + (Decimal("0.5") if isinstance(value, Decimal) else 0.5))


def share_of(rows: int, *shares: float) -> int:
    """``round_half_up(sum(shares) * rows)``, in decimal: the shares as written (their
    shortest text), so that 0.08 + 0.47 of 10 rows is 5.5, rounded to 6; in binary floating
    point the sum is 0.5499999999999999 and gave 5."""
    return round_half_up(sum((Decimal(str(share)) for share in shares), Decimal(0)) * rows)


@dataclass(frozen=True)
class DayPlan:
    """Exact row counts of one day: how the previous day's rows fare, and how many are new.

    ``deleted + updated + unchanged == previous_rows`` and
    ``updated + unchanged + inserted == rows``.
    """

    day: int
    business_date: date
    previous_rows: int
    deleted: int
    updated: int
    unchanged: int
    inserted: int

    @property
    def survivors(self) -> int:
        return self.updated + self.unchanged

    @property
    def rows(self) -> int:
        return self.survivors + self.inserted

    def counts(self) -> dict[str, int]:
        """Manifest rows per change type."""
        return {
            INSERTED: self.inserted,
            UPDATED: self.updated,
            UNCHANGED: self.unchanged,
            DELETED: self.deleted,
        }


@dataclass(frozen=True)
class GeneratorSpec:
    """The anchor's arguments (same order and meaning) plus the seed and day 1's date.

    Day 1 holds ``no_init_recs`` rows. Every later day starts from the previous day's N rows:
    ``round(pct_del * N)`` are deleted, ``round(pct_upd * N)`` updated, the rest (which is
    ``round(pct_unchanged * N)`` up to rounding) unchanged, and new keys top the day up to
    ``no_incr_recs`` rows. Validated on construction: an invalid spec never exists.
    """

    no_init_recs: int
    no_incr_recs: int
    no_keys: int
    no_nonkeys: int
    pct_del: float
    pct_upd: float
    pct_unchanged: float
    seed: int = DEFAULT_SEED
    business_date: date = field(default=DEFAULT_BUSINESS_DATE)

    def __post_init__(self) -> None:
        self._validate()

    def _validate(self) -> None:
        for name in ("no_init_recs", "no_incr_recs"):
            value = getattr(self, name)
            _require_int(name, value)
            if value < 1:
                raise InvalidGeneratorArgument(name, f"must be at least 1 record, got {value}")
            if value > MAX_RECORDS:
                raise InvalidGeneratorArgument(
                    name, f"must be at most {MAX_RECORDS:,} records, got {value:,}"
                )
        _require_int("no_keys", self.no_keys)
        if not 1 <= self.no_keys <= MAX_COLUMNS:
            raise InvalidGeneratorArgument(
                "no_keys", f"must be between 1 and {MAX_COLUMNS} key columns, got {self.no_keys}"
            )
        _require_int("no_nonkeys", self.no_nonkeys)
        if not 1 <= self.no_nonkeys <= MAX_COLUMNS:
            raise InvalidGeneratorArgument(
                "no_nonkeys",
                f"must be between 1 and {MAX_COLUMNS} non-key columns (an update changes "
                f"a non-key value), got {self.no_nonkeys}",
            )
        for name in ("pct_del", "pct_upd", "pct_unchanged"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InvalidGeneratorArgument(name, f"must be a number, got {value!r}")
            if not math.isfinite(value) or not 0.0 <= value <= 1.0:
                raise InvalidGeneratorArgument(name, f"must be a share in [0, 1], got {value}")
        total = self.pct_del + self.pct_upd + self.pct_unchanged
        if abs(total - 1.0) > SHARE_TOLERANCE:
            raise InvalidGeneratorArgument(
                "pct_del + pct_upd + pct_unchanged",
                f"the shares must sum to 1 (tolerance {SHARE_TOLERANCE:g}), got {total!r}",
            )
        _require_int("seed", self.seed)
        if not LONG_MIN <= self.seed <= LONG_MAX:
            raise InvalidGeneratorArgument("seed", f"must fit in 64 bits, got {self.seed}")
        if not isinstance(self.business_date, date):
            raise InvalidGeneratorArgument(
                "business_date", f"must be a date, got {self.business_date!r}"
            )
        # Day 2 keeps the survivors of day 1; later days start from no_incr_recs rows and
        # always have room (survivors <= no_incr_recs), so day 2 is the one to check.
        survivors = self._counts(2)[2]  # without its date: day 1 alone may be 9999-12-31
        if self.no_incr_recs < survivors:
            raise InvalidGeneratorArgument(
                "no_incr_recs",
                f"day 2 keeps {survivors} of day 1's {self.no_init_recs} rows "
                f"(updated + unchanged), so no_incr_recs must be at least {survivors}, "
                f"got {self.no_incr_recs}",
            )

    @property
    def key_columns(self) -> list[str]:
        return [f"key_{i}" for i in range(1, self.no_keys + 1)]

    @property
    def value_columns(self) -> list[str]:
        return [f"col_{i}" for i in range(1, self.no_nonkeys + 1)]

    @property
    def source_columns(self) -> list[str]:
        return [*self.key_columns, *self.value_columns, "updated_at"]

    @property
    def manifest_columns(self) -> list[str]:
        return [*self.key_columns, "change_type", "day", "business_date"]

    def date_of(self, day: int) -> date:
        """Day ``day``'s business date: day 1 is ``business_date``, one day per day after."""
        check_day(day)
        try:
            return self.business_date + timedelta(days=day - 1)
        except OverflowError:
            raise InvalidGeneratorArgument(
                "business_date",
                f"day {day} would fall after {date.max.isoformat()} "
                f"(day 1 is {self.business_date.isoformat()}): give an earlier date",
            ) from None

    def rows_on(self, day: int) -> int:
        check_day(day)
        return self.no_init_recs if day == 1 else self.no_incr_recs

    def plan(self, day: int) -> DayPlan:
        """Exact counts for ``day``.

        Rounding is cumulative (deleted, then deleted + updated) so that the three counts always
        add up to the previous day's rows, never go negative and each stays within one row of
        its share; unchanged takes the remainder.
        """
        business_date = self.date_of(day)
        if day == 1:
            return DayPlan(1, business_date, 0, 0, 0, 0, self.no_init_recs)
        previous, deleted, survivors, updated = self._counts(day)
        unchanged = survivors - updated
        inserted = self.no_incr_recs - survivors
        return DayPlan(day, business_date, previous, deleted, updated, unchanged, inserted)

    def _counts(self, day: int) -> tuple[int, int, int, int]:
        """Day ``day``'s (>= 2) previous rows, deleted, survivors and updated."""
        previous = self.rows_on(day - 1)
        deleted = share_of(previous, self.pct_del)
        deleted_or_updated = share_of(previous, self.pct_del, self.pct_upd)
        deleted = min(deleted, previous)
        deleted_or_updated = min(max(deleted_or_updated, deleted), previous)
        return previous, deleted, previous - deleted, deleted_or_updated - deleted


def check_day(day: int) -> None:
    """Days count from 1 (day 1 is the initial load), up to MAX_DAY."""
    if isinstance(day, bool) or not isinstance(day, int):
        raise InvalidGeneratorArgument("day", f"must be an integer, got {day!r}")
    if day < 1:
        raise InvalidGeneratorArgument(
            "day", f"must be at least 1 (day 1 is the initial load), got {day}"
        )
    if day > MAX_DAY:
        raise InvalidGeneratorArgument(
            "day",
            f"must be at most {MAX_DAY} (ten years of days): day N is recomputed from day 1, "
            f"so its cost grows with N; got {day}",
        )


def _require_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidGeneratorArgument(name, f"must be an integer, got {value!r}")
