"""The detection judge's audit per study and judge configuration: specificity on reviews of the
unmodified papers, sensitivity on human-verified detections, overall and per reviewer configuration.
Computed by metrics.stats.detection.audit_table."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.stats.detection import audit_table

    return audit_table(dbt.ref("int_contradiction_detections").df())
