"""Each system against the human reviews, paired by paper, per study and quality metric —
mean difference with a paired paper-bootstrap 95% interval, Wilcoxon signed-rank, Cliff's δ unpaired (PRISM's,
with its band) and paired, Holm across the metrics of a (study, system); and the naive and
prediction-powered (PPI) differences, each side's PPI mean, and the labelled and unlabelled reviews behind them."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.quality.comparison import comparison_table
    from peerlake.metrics.quality.ppi import with_ppi

    cfg = (dbt.config.get("meta") or {}).get
    metrics = dbt.ref("int_quality_headline_metrics").df()  # one configuration per judge (int_judge_configs)
    table = comparison_table(metrics, n_resamples=int(cfg("n_boot")), seed=int(cfg("seed")))
    # beside the judge-only numbers, the prediction-powered difference where humans labelled reviews
    return with_ppi(table, metrics, dbt.ref("int_quality_ppi_labels").df())
