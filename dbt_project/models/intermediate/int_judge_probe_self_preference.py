"""Every quality row (int_quality_review_metrics) flagged is_same_family when its judge and the model that
wrote the review are of one family (judging.probes.model_family); null where either is unknown."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.quality.probes import self_preference_rows

    calls = dbt.ref("stg_events__llm_calls").filter("purpose = 'review'").project("request_key, model").df()
    return self_preference_rows(dbt.ref("int_quality_review_metrics").df(), calls)
