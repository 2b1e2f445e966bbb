"""``python -m python_helpers.generator.placeholders``: header-only seed files, so that the
project parses before any day is generated (``make setup`` runs it; it never overwrites a
generated day)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from python_helpers.generator.output import write_seed_placeholders
from python_helpers.generator.spec import GeneratorSpec
from python_helpers.runtime.lakehouse import PROJECT_ROOT

DEFAULT_KEYS = 5  # the demo's defaults: the pipeline's --keys/--nonkeys, var cdc_no_keys
DEFAULT_NONKEYS = 10


def placeholder_spec(
    no_keys: int = DEFAULT_KEYS, no_nonkeys: int = DEFAULT_NONKEYS
) -> GeneratorSpec:
    """A spec with the demo's row counts and shares; only its columns matter here."""
    return GeneratorSpec(10000, 10000, no_keys, no_nonkeys, 0.2, 0.4, 0.4)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m python_helpers.generator.placeholders", description=__doc__
    )
    parser.add_argument(
        "--seeds-dir",
        type=Path,
        default=PROJECT_ROOT / "seeds" / "generated",
        help="folder of the generated seeds (default: %(default)s); left alone when it holds "
        "a generated day",
    )
    parser.add_argument(
        "--keys", type=int, default=DEFAULT_KEYS, help="key columns (default %(default)s)"
    )
    parser.add_argument(
        "--nonkeys", type=int, default=DEFAULT_NONKEYS, help="non-key columns (default %(default)s)"
    )
    args = parser.parse_args(argv)
    for path in write_seed_placeholders(args.seeds_dir, placeholder_spec(args.keys, args.nonkeys)):
        print(f"placeholder  {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
