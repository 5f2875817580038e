"""Two judge configurations of one judge on the same reviews, by their names in the study: Krippendorff's α
(interval), Pearson r with its Fisher interval, Spearman ρ, mean difference — metrics.quality.panel.
panel_agreement. quality_judge_agreement pairs the same configurations by hash, without α."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.quality.panel import panel_agreement

    return panel_agreement(dbt.ref("int_quality_panel_metrics").df())
