"""Per study, condition, Scorer pair and direction stratum: the stratum's size and its first paper by
SHA-256 of the paper id, with the first accepted block of 70–750 characters (else the first accepted)
("Can We Believe AI Peer Review?"). metrics.revision.outcomes.cases_table."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.revision.outcomes import cases_table

    return cases_table(dbt.ref("revision_gains").df(), dbt.ref("int_revision_outcomes").df())
