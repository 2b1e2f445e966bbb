"""``python -m python_helpers.pipeline``: the day-by-day pipeline (see :mod:`.run`)."""

import sys

from python_helpers.pipeline.run import main

if __name__ == "__main__":
    sys.exit(main())
