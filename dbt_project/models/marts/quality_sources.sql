-- Per study, source of reviews (humans; each system under test) and quality metric: how many of the
-- source's reviews were judged, how many have a value of the metric, and its mean over them. A review's
-- value is first averaged as quality_reviews averages it (over the flaw pools it sits in), so this is the
-- mean of quality_reviews' column over the source's rows: the report's "judged reviews" table, paired with
-- humans or not. The headline judge configurations only (int_judge_configs.is_headline).
with

metrics as (

    select
        *,
        coalesce(system, source) as reviewed_by

    from {{ ref('int_quality_headline_metrics') }}

),

per_review as (

    select
        study_id,
        reviewed_by,
        review_key,
        judge,
        metric,
        any_value(source) as source,
        any_value(system) as system,
        avg(value) as value

    from metrics
    group by study_id, reviewed_by, review_key, judge, metric

),

judged as (

    select
        study_id,
        reviewed_by,
        count(distinct review_key) as n_reviews_judged

    from metrics
    group by study_id, reviewed_by

),

final as (

    select
        concat_ws('|', per_review.study_id, per_review.reviewed_by, per_review.judge, per_review.metric)
            as quality_source_id,
        per_review.study_id,
        per_review.reviewed_by,
        any_value(per_review.source) as source,
        any_value(per_review.system) as system,
        per_review.judge,
        per_review.metric,
        any_value(judged.n_reviews_judged) as n_reviews_judged,
        count(per_review.value) as n_values,
        avg(per_review.value) as mean_value

    from per_review
    inner join judged
        on per_review.study_id = judged.study_id and per_review.reviewed_by = judged.reviewed_by
    group by per_review.study_id, per_review.reviewed_by, per_review.judge, per_review.metric

)

select * from final
