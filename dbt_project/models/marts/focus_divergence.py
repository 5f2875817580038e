"""Per study and reviewer configuration: KL(P_human ‖ P_system) of the four focus distributions
{strength, weakness} × {target, aspect} (natural log, ε = 1e-6 added then renormalized) and their mean;
null with a reason when a side has no items. Computed by metrics.stats.divergence.focus_divergence_table."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.stats.divergence import focus_divergence_table

    return focus_divergence_table(dbt.ref("focus_distributions").df())
