"""Python helpers for the SCD2 lakehouse dbt project: runtime, generator, pipeline."""
