"""Per (reviewer configuration, k ∈ {1, 2}, gap bin): pairs grouped by the gap of their first-half
means, compared with blocks drawn only from the second half of the rounds."""


def model(dbt, session):
    dbt.config(materialized="table")
    from metrics.stats.tables import close_pair_table

    scores = dbt.ref("int_study_review_scores").filter("is_parsed").df()
    context = dbt.ref("int_paper_context").df()
    return close_pair_table(scores, context)
