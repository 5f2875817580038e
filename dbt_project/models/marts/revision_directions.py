"""Per study, Writer/Selector condition and Scorer pair: the 3×3 table of gain directions, Pearson of gains,
same / strict-reversal / at-least-one-zero shares, mean gains, gain-noise SDs and the mean cross-Scorer
difference. metrics.revision.agreement.directions_table."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.revision.agreement import directions_table

    return directions_table(dbt.ref("revision_gains").df())
