"""Studies partition the assets that ingest and call models: each study's runs, materializations
and lineage are browsable on their own in the Dagster UI. `peerlake run NAME` adds the partition."""

from dagster import DynamicPartitionsDefinition

studies = DynamicPartitionsDefinition(name="studies")


def study_of(context) -> str:
    """The study this step materializes (the run's partition key)."""
    return context.partition_key
