"""How many new reviews per paper are enough, per reviewer configuration and tolerance ε:
Chebyshev planning budget from V̂, certified budget from the KL upper bound U (M = N·⌊n_min/2⌋
disjoint pairs, valid with unequal reviews per paper), range-only budget."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.stats.budgets import budget_table

    # Settings come from the model's YAML (config.meta, filled from dbt vars).
    cfg = (dbt.config.get("meta") or {}).get
    tolerances = [float(t) for t in str(cfg("tolerances")).split(",")]
    return budget_table(dbt.ref("int_repeatability_variance").df(), tolerances,
                        alpha=float(cfg("alpha")), beta=float(cfg("beta")),
                        scale_min=float(cfg("scale_min")), scale_max=float(cfg("scale_max")),
                        n_configs=int(cfg("n_configs")))
