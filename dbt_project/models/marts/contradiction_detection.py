"""Contradiction detection accuracy per study, judge configuration, reviewer configuration, item set
(all | validated), ensemble size k and distance (and 'all'), with Wilson 95% intervals (n = items).
Computed by metrics.stats.detection.detection_table."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.stats.detection import detection_table

    frame = dbt.ref("int_contradiction_detections").df()
    return detection_table(frame[frame["role"] == "detection"])
