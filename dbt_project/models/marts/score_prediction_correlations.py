"""One row per (study, judge configuration, reviewer, venue, year): n papers, Pearson, Spearman and
Kendall τ-b of the papers' mean predicted scores against their human mean ratings; reviewer 'human' is
the reference row (metrics.stats.correlations; null with a reason below 3 papers)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.stats.correlations import correlation_table

    return correlation_table(dbt.ref("score_prediction_papers").df())
