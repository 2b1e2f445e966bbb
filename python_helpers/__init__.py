"""Python helpers for the SCD2 lakehouse dbt project, grouped by role.

- :mod:`python_helpers.runtime`: the lakehouse runtime (Spark/Iceberg configuration, jars,
  paths, the Spark session factory, dbt run in-process);
- :mod:`python_helpers.generator`: the synthetic change-data generator (its command line is
  ``python -m python_helpers.generate``);
- :mod:`python_helpers.pipeline`: the day-by-day pipeline and its reconciliation
  (``python -m python_helpers.pipeline``, ``make demo``);
- :mod:`python_helpers.operations`: operating services on the lakehouse (the Spark Thrift
  Server, ``python -m python_helpers.operations.thrift``);
- :mod:`python_helpers.tooling`: development tooling (benchmarks, ``python -m
  python_helpers.tooling.bench``; throw-away dbt projects for tests and benchmarks).
"""
