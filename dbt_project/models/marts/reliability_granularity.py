"""Reliability §5: forced-decimal vs integer scores of the same model — mean shift, within-paper SD
and MAE against humans, with paired paper-bootstrap 95% intervals."""


def model(dbt, session):
    dbt.config(materialized="table")
    from metrics.distribution.tables import granularity_table

    cfg = (dbt.config.get("meta") or {}).get
    return granularity_table(dbt.ref("int_granularity_papers").df(), n_boot=int(cfg("n_boot")),
                             seed=int(cfg("seed")))
