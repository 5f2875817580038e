"""Per (reviewer configuration, k): same / tie / reverse counts over every paper pair within a
venue-year and every partition of the n rounds into two k-blocks (exact enumeration)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from metrics.stats.tables import rank_table

    scores = dbt.ref("int_study_review_scores").filter("is_parsed").df()
    context = dbt.ref("int_paper_context").df()
    return rank_table(scores, context)
