"""Synthetic change data for the SCD2 snapshots: day 1, then each day's changes, reproducibly.

``python -m python_helpers.generate`` is the command line; this package is the Python API
used by the pipeline and the tests.
"""

from python_helpers.generator.frames import DayData, generate_day
from python_helpers.generator.output import write_day_folders, write_seed_files, write_tables
from python_helpers.generator.spec import (
    CHANGE_TYPES,
    CHANGES_TABLE,
    DELETED,
    INSERTED,
    SOURCE_TABLE,
    UNCHANGED,
    UPDATED,
    DayPlan,
    GeneratorError,
    GeneratorSpec,
    InvalidGeneratorArgument,
)

__all__ = [
    "CHANGES_TABLE",
    "CHANGE_TYPES",
    "DELETED",
    "INSERTED",
    "SOURCE_TABLE",
    "UNCHANGED",
    "UPDATED",
    "DayData",
    "DayPlan",
    "GeneratorError",
    "GeneratorSpec",
    "InvalidGeneratorArgument",
    "generate_day",
    "write_day_folders",
    "write_seed_files",
    "write_tables",
]
