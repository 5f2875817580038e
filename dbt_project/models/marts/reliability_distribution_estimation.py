"""Reliability §6: how well a one-call logprob probe (Quick), probe + two reviews (Standard) and
1/2/3/5 direct reviews estimate a paper's score distribution — held-out risk, Standard − 2 and − 3
reviews with paired intervals, and acceptance AUC (per input combination, with and without withdrawn)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.distribution.fitting import distribution_table

    cfg = (dbt.config.get("meta") or {}).get
    probes = dbt.ref("int_score_probes_parsed")
    # Only a parsed integer review by a model some parsed probe ran on can enter a row (distribution_table
    # pairs a probe with reviews of its own model), so only those are read into pandas: at 1 M reviews
    # with no probe that was 6 s of reading for an empty table. The rows are the same.
    probed = probes.filter("is_parsed").project("provider, model").distinct().set_alias("probed")
    scores = (dbt.ref("int_study_review_scores").filter("is_parsed and prompt_template = 'reviewer_scoring'")
              .set_alias("scores")
              .join(probed, "scores.provider = probed.provider and scores.model = probed.model", how="semi"))
    return distribution_table(probes.df(), scores.df(), dbt.ref("int_paper_context").df(),
                              n_splits=int(cfg("n_splits")), n_boot=int(cfg("n_boot")), seed=int(cfg("seed")))
