"""Reliability §5: forced-decimal vs integer scores of the same model (the integer control on its
first five rounds) — mean shift, within-paper SD and MAE against humans, with paired paper-bootstrap
95% intervals."""


def model(dbt, session):
    dbt.config(materialized="table")
    from metrics.distribution.granularity import granularity_table

    cfg = (dbt.config.get("meta") or {}).get
    # Pairs, H_i and invalid counts from int_granularity_papers; the scores themselves, so the
    # integer control can be cut to exactly its first five rounds.
    return granularity_table(dbt.ref("int_granularity_papers").df(), dbt.ref("int_study_review_scores").df(),
                             n_boot=int(cfg("n_boot")), seed=int(cfg("seed")))
