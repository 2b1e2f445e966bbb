"""The lakehouse runtime: what every process that touches the lakehouse runs on.

:mod:`~python_helpers.runtime.lakehouse` is the one definition of the Spark/Iceberg
configuration, the lakehouse's paths and the jar provisioning (``python -m
python_helpers.runtime.lakehouse --provision --write-defaults``, run by ``make setup``), with
:mod:`~python_helpers.runtime.relocate` rebuilding Iceberg's shaded Jackson jar;
:mod:`~python_helpers.runtime.session` is the production Spark session factory and
:mod:`~python_helpers.runtime.dbt_invoke` runs dbt in-process on that session.
"""
