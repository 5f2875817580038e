"""Each judge configuration's ranking of the systems whose reviews it judged, per study and quality metric
(humans are the system "human"): the mean over papers of a system's per-paper mean, its rank (1 = highest,
ties share the smaller rank) — metrics.quality.panel.system_means. With a judge panel, one ranking per
member: does the verdict survive the judge?"""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.quality.panel import system_means

    return system_means(dbt.ref("int_quality_panel_metrics").df())
