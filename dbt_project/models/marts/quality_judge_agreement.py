"""Two judge configurations on the same reviews (e.g. PRISM's released answers against
peerlake's own judge), per study, judge and metric: means, differences, exact-agreement share, Pearson
and Spearman (metrics.quality.agreement; null with a reason below 3 reviews or for a constant side)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.quality.agreement import agreement_table

    return agreement_table(dbt.ref("int_quality_review_metrics").df())
