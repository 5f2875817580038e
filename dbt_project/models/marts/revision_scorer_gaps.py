"""Per study and venue-year ('all' too): the gap between two Scorers on one final manuscript (e.g. LLL − LLH)
and its change when the Selector changes ((LHL − LHH) − (LLL − LLH)), with paired paper-bootstrap 95%
intervals from the same draw as revision_cells. metrics.revision.gains.scorer_gaps_table."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.revision.gains import scorer_gaps_table

    cfg = (dbt.config.get("meta") or {}).get
    return scorer_gaps_table(dbt.ref("revision_gains").df(), n_resamples=int(cfg("n_boot")), seed=int(cfg("seed")))
