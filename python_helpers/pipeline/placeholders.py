"""``python -m python_helpers.pipeline.placeholders``: header-only seed files for the demo, so
that the project parses before any day is generated (``make setup`` runs it; it never
overwrites a generated day)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from python_helpers.pipeline.run import PipelineError, PipelineOptions, build_spec
from python_helpers.runtime.lakehouse import PROJECT_ROOT

if TYPE_CHECKING:
    from python_helpers.generator import GeneratorSpec


def demo_spec(**columns: int) -> GeneratorSpec:
    """The demo's generator spec (the pipeline's defaults), ``no_keys``/``no_nonkeys`` as given:
    only its columns matter for placeholders."""
    return build_spec(replace(PipelineOptions(), **columns))


def main(argv: Sequence[str] | None = None) -> int:
    from python_helpers.generator.output import DEFAULT_SEEDS_DIR, write_seed_placeholders

    defaults = PipelineOptions()
    parser = argparse.ArgumentParser(
        prog="python -m python_helpers.pipeline.placeholders", description=__doc__
    )
    parser.add_argument(
        "--seeds-dir",
        type=Path,
        default=PROJECT_ROOT / DEFAULT_SEEDS_DIR,
        help="folder of the generated seeds (default: %(default)s); left alone when it holds "
        "a generated day",
    )
    parser.add_argument(
        "--keys",
        type=int,
        default=defaults.no_keys,
        help="key columns, as the pipeline's --keys (default %(default)s)",
    )
    parser.add_argument(
        "--nonkeys",
        type=int,
        default=defaults.no_nonkeys,
        help="non-key columns, as the pipeline's --nonkeys (default %(default)s)",
    )
    args = parser.parse_args(argv)
    try:
        spec = demo_spec(no_keys=args.keys, no_nonkeys=args.nonkeys)
    except PipelineError as exc:
        parser.error(str(exc))  # exits 2, naming the option
    for path in write_seed_placeholders(args.seeds_dir, spec):
        print(f"placeholder  {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
