"""Do two judges rank the systems alike? Per study, judge, metric and pair of judge configurations (by
their names in the study): Kendall's τ-b between the two rankings over the papers both scored every system
on, with a percentile bootstrap interval over papers — metrics.quality.panel.ranking_agreement."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.quality.panel import ranking_agreement

    cfg = (dbt.config.get("meta") or {}).get
    return ranking_agreement(dbt.ref("int_quality_panel_metrics").df(), n_resamples=int(cfg("n_boot")),
                             seed=int(cfg("seed")))
