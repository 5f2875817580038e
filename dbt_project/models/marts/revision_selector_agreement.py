"""Per study, Writer and Selector pair: candidates, accepts per Selector, both accept / differ / both reject,
papers with identical decisions and the mean per-paper Jaccard of the accepted sets (1 when both accept
nothing). metrics.revision.outcomes.selector_agreement_table."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.revision.outcomes import selector_agreement_table

    return selector_agreement_table(dbt.ref("int_revision_outcomes").df())
