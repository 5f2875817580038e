"""Per (study, reviewer configuration): within-paper variance V̂, SD sqrt(V̂) and the number of
disjoint score pairs M the certified budget may use (N·⌊n_min/2⌋; see metrics.stats.budgets).
The one implementation of these statistics lives in metrics.stats (tested with pytest)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from metrics.stats.tables import variance_table

    scores = dbt.ref("int_study_review_scores").filter("is_parsed").df()
    return variance_table(scores)
