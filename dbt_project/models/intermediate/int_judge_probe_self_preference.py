"""Every quality row (int_quality_review_metrics) flagged is_same_family when its judge and the model that
wrote the review are of one family (judging.probes.model_family); null where either is unknown."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.quality.probes import self_preference_rows

    metrics = dbt.ref("int_quality_review_metrics")
    # Only the review calls a judged peerlake review names are read into pandas (a review's key is
    # 'peerlake:' + its request key): at 1 M review calls with few judged, reading them all was 3 s.
    judged = metrics.filter("source = 'peerlake'").project("review_key").distinct().set_alias("judged")
    calls = (dbt.ref("stg_events__llm_calls").filter("purpose = 'review'").project("request_key, model")
             .set_alias("calls").join(judged, "'peerlake:' || calls.request_key = judged.review_key", how="semi"))
    return self_preference_rows(metrics.df(), calls.df())
