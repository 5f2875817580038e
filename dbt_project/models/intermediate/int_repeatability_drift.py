"""Per reviewer configuration: late − early rounds with a paired paper-bootstrap 95% interval
(10,000 resamples, fixed seed). The statistics live in metrics.stats (tested with pytest)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from metrics.stats.tables import drift_table

    scores = dbt.ref("int_study_review_scores").filter("is_parsed").df()
    return drift_table(scores)
