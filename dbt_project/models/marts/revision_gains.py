"""Per study, revision cell and original paper: the Scorer's gain (mean final − mean original score), its
direction from the integer sums, and its noise; is_complete false (null statistics) unless both sides have
`repeats` parsed scores. Computed by metrics.revision.gains.gains_table from int_revision_scores."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.revision.gains import gains_table

    return gains_table(dbt.ref("int_revision_scores").df())
