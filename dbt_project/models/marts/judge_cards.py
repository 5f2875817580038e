"""The judge card of each judge configuration (as "Reliability without Validity" asks of LLM judges):
test–retest α and ICC, Cohen's κ / Krippendorff's α against human labels with the annotators' α beside
it, and agreement between two configurations, each with a 95 % interval, n and its method
(metrics.quality.card_table)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.quality.card_table import card_table

    cfg = (dbt.config.get("meta") or {}).get
    scopes = dbt.ref("int_judging_scopes").project("study_id, judge, judge_config, judge_provider, judge_model") \
        .distinct().df()
    scores = dbt.ref("int_judge_card_score_repeats").project(
        "study_id, judge, judge_config, subject_key, repeat_index, metric, score_value as value").df()
    return card_table(scopes, scores, dbt.ref("int_judge_card_items").df(),
                      dbt.ref("int_judge_card_annotator_items").df(), dbt.ref("quality_judge_agreement").df(),
                      n_resamples=int(cfg("n_resamples")), seed=int(cfg("seed")))
