"""Reliability §6: how well a one-call logprob probe (Quick), probe + two reviews (Standard) and
1/2/3/5 direct reviews estimate a paper's score distribution — held-out risk, Standard − 2 and − 3
reviews with paired intervals, and acceptance AUC (per input combination, with and without withdrawn)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.distribution.fitting import distribution_table

    cfg = (dbt.config.get("meta") or {}).get
    return distribution_table(dbt.ref("int_score_probes_parsed").df(), dbt.ref("int_study_review_scores").df(),
                              dbt.ref("int_paper_context").df(), n_splits=int(cfg("n_splits")),
                              n_boot=int(cfg("n_boot")), seed=int(cfg("seed")))
