"""Synthetic change-data generator: ``python -m python_helpers.generate --help``.

A thin, stable entry point: the generator itself lives in :mod:`python_helpers.generator`
(``generator/``, the Python API). It also runs as a plain script, which is how spark-submit
starts it::

    .venv/bin/spark-submit --master local[2] python_helpers/generate.py 10000 10000 5 10 0.2 0.4 0.4

Python then puts this file's folder first on ``sys.path``: the shim below swaps it for the
project root, so that ``python_helpers`` imports and the helpers' package names (``runtime``,
``pipeline``...) cannot shadow installed packages. Executors need none of this code (no Python
UDFs).
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:
    _here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]
    sys.path.insert(0, str(_here.parent))

from python_helpers.generator.cli import main

if __name__ == "__main__":
    sys.exit(main())
