"""Per study and Writer/Selector condition: papers, blocked and why, failed checks, candidate and edited
blocks, image entries, images re-hashed, Selector reasons truncated ("Can We Believe AI Peer Review?").
metrics.revision.outcomes.validation_table."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.revision.outcomes import validation_table

    return validation_table(dbt.ref("int_revision_outcomes").df())
