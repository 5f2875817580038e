"""Each system against the human reviews, paired by paper, per study and quality metric —
mean difference with a paired paper-bootstrap 95% interval, Wilcoxon signed-rank, Cliff's δ unpaired (PRISM's,
with its band) and paired, Holm across the metrics of a (study, system)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from metrics.quality.comparison import comparison_table

    cfg = (dbt.config.get("meta") or {}).get
    return comparison_table(dbt.ref("int_quality_review_metrics").df(),
                            n_resamples=int(cfg("n_boot")), seed=int(cfg("seed")))
