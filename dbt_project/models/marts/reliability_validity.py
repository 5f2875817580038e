"""Validity against humans per reviewer configuration, overall and per venue-year: Pearson,
Spearman, MAE, RMSE of mean AI vs mean human score; acceptance AUC (ties ½), with and without
withdrawn papers. Recomputed only for the (study, configuration) keys whose papers changed
(metrics.stats.memo): the papers are hashed per key in DuckDB, and only the changed keys' rows are
read into pandas — at 1 M review calls, a study added beside an unchanged one recomputes that study."""

KEYS = ["study_id", "reviewer_config"]


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.stats.memo import previous_table, recompute_changed_relation
    from peerlake.metrics.stats.validity import validity_table

    return recompute_changed_relation(dbt.ref("int_validity_papers"), KEYS, validity_table,
                                      previous_table(session, dbt.this), session=session)
