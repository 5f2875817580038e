"""Per study and Scorer pair, for the original means and for each condition's gains: the noise-adjusted
correlation ρ_adj = c / sqrt((v_x − e_x)(v_y − e_y)) (as "Can We Believe AI Peer Review?",
not clipped) with a paper-bootstrap
interval and the counts of undefined and out-of-range resamples. metrics.revision.agreement."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.revision.agreement import noise_adjusted_table

    cfg = (dbt.config.get("meta") or {}).get
    return noise_adjusted_table(dbt.ref("revision_gains").df(), n_resamples=int(cfg("n_boot")),
                                seed=int(cfg("seed")))
