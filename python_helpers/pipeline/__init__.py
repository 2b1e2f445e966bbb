"""The product's day-by-day pipeline: generate, dbt seed, snapshot, run and test, then reconcile.

:mod:`~python_helpers.pipeline.run` drives the days (``python -m python_helpers.pipeline``,
``make demo``) and :mod:`~python_helpers.pipeline.reconcile` checks each snapshot run against
the generator's manifest, key by key.
"""
