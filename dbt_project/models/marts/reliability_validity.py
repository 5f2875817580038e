"""Validity against humans per reviewer configuration, overall and per venue-year: Pearson,
Spearman, MAE, RMSE of mean AI vs mean human score; acceptance AUC (ties ½), with and without
withdrawn papers."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.stats.validity import validity_table

    return validity_table(dbt.ref("int_validity_papers").df())
