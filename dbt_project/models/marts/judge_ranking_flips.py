"""Every pairwise system difference under each of two judge configurations, and the ones whose sign flips
between them (is_flipped) — metrics.quality.panel.ranking_flips."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.quality.panel import ranking_flips

    return ranking_flips(dbt.ref("int_quality_panel_metrics").df())
