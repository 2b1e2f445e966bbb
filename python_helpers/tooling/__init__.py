"""Development tooling, not part of the product: benchmarks and throw-away dbt projects.

:mod:`~python_helpers.tooling.bench` writes BENCHMARKS.md (``python -m
python_helpers.tooling.bench``, ``make bench``) with :mod:`~python_helpers.tooling.bench_seed`
and :mod:`~python_helpers.tooling.bench_snapshot`; :mod:`~python_helpers.tooling.scratch`
makes throw-away copies of the dbt project for the tests and benchmarks;
:mod:`~python_helpers.tooling.private_metastore` runs a command (``make lint``'s sqlfluff) on a
throwaway metastore of its own.
"""
