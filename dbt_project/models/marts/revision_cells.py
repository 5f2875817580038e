"""Per study, revision cell and venue-year ('all' too): the mean gain over the complete papers with a paired
paper-bootstrap percentile 95% interval (resamples and seed from the dbt vars, recorded), +/0/− counts,
papers dropped as incomplete or blocked, and the mean gain-noise SD. metrics.revision.gains.cells_table."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.revision.gains import cells_table

    cfg = (dbt.config.get("meta") or {}).get
    return cells_table(dbt.ref("revision_gains").df(), dbt.ref("int_revision_cells").df(),
                       dbt.ref("int_revision_outcomes").df(), n_resamples=int(cfg("n_boot")), seed=int(cfg("seed")))
