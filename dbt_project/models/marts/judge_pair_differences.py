"""What changes with the judge, on the same reviews: per study, metric, system and pair of judge
configurations, the paired difference (y − x) of per-paper means with a paper-bootstrap interval,
Wilcoxon signed-rank and Holm across metrics — metrics.quality.panel.judge_pair_differences."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.quality.panel import judge_pair_differences

    cfg = (dbt.config.get("meta") or {}).get
    return judge_pair_differences(dbt.ref("int_quality_panel_metrics").df(), n_resamples=int(cfg("n_boot")),
                                  seed=int(cfg("seed")))
