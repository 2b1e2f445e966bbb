"""The demo's day-by-day pipeline: generate a day, `dbt build` it, then reconcile.

:mod:`~python_helpers.pipeline.run` drives the days (``python -m python_helpers.pipeline``,
``make demo``) and :mod:`~python_helpers.pipeline.reconcile` checks each snapshot run against
the generator's manifest, key by key;
:mod:`~python_helpers.pipeline.placeholders` writes the header-only seeds a fresh clone parses
with (``make setup``).
"""
