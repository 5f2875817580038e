-- One row per (study, judge configuration, review): the score the score_prediction judge predicted
-- from the review's text (numbers stripped, the venue's rubric), averaged over the judge's repeats.
-- The reviews are the study's: its papers (variants included) × human reviews, its reviewer
-- configurations (template and system, samples below K) and its imported systems. The judge
-- configurations are the ones the study's newest resolutions list for 'score_prediction'
-- (int_experiment_judges; a configuration listed with no repeats counts every repeat); a study
-- that lists none counts every score_prediction configuration found on its reviews. A review in
-- scope with no judgment is a row with predicted_score null and null_reason 'not_judged'.
with

study_reviews as (

    select * from {{ ref('int_score_prediction_reviews') }}

),

judgments as (

    select * from {{ ref('int_judgments_latest') }}
    where judge = 'score_prediction' and step = 'predict'

),

listed_configs as (

    select distinct
        study_id,
        judge_config,
        repeats

    from {{ ref('int_experiment_judges') }}
    where judge = 'score_prediction'

),

seen_configs as (

    -- a study whose resolutions list no score_prediction judge: every configuration on its reviews
    select distinct
        study_reviews.study_id,
        judgments.judge_config,
        cast(null as integer) as repeats

    from study_reviews
    inner join judgments on study_reviews.review_key = judgments.subject_key
    anti join listed_configs on study_reviews.study_id = listed_configs.study_id

),

configs as (

    select * from listed_configs
    union all by name
    select * from seen_configs

),

predictions as (

    select
        judgment_id,
        judge_config,
        subject_key as review_key,
        repeat_index,
        status,
        null_reason,
        inputs,
        units -> 0 ->> 'rubric' as rubric,
        try_cast(units -> 0 ->> 'predicted_score' as double) as predicted_score,
        try_cast(units -> 0 ->> 'scale_min' as double) as scale_min,
        try_cast(units -> 0 ->> 'scale_max' as double) as scale_max,
        try_cast(units -> 0 ->> 'n_numbers_removed' as integer) as n_numbers_removed,
        coalesce(try_cast(dropped ->> 'out_of_scale' as integer), 0) as n_out_of_scale

    from judgments

),

joined as (

    select
        study_reviews.* exclude (score_prediction_review_id, review_event_id),  -- noqa: RF02
        configs.judge_config,
        predictions.judgment_id,
        predictions.repeat_index,
        predictions.predicted_score,
        predictions.rubric,
        predictions.scale_min,
        predictions.scale_max,
        predictions.n_numbers_removed,
        predictions.n_out_of_scale,
        predictions.inputs ->> 'venue' as venue,
        try_cast(predictions.inputs ->> 'year' as integer) as venue_year,
        -- the argument text the predictor read, in characters: the trivial length baseline's predictor
        try_cast(predictions.inputs ->> 'chars_judged' as integer) as chars_judged,
        case
            when predictions.judgment_id is null then 'not_judged'
            when predictions.status != 'ok' then coalesce(predictions.null_reason, 'status:' || predictions.status)
        end as repeat_null_reason

    from study_reviews
    inner join configs using (study_id)
    left join predictions
        on
            configs.judge_config = predictions.judge_config
            and study_reviews.review_key = predictions.review_key
            -- a listed configuration counts its first `repeats` repeats; a seen one every repeat
            and (configs.repeats is null or predictions.repeat_index between 0 and configs.repeats - 1)

),

final as (

    select
        concat_ws('|', study_id, judge_config, review_key) as score_prediction_id,
        study_id,
        judge_config,
        review_key,
        any_value(paper_id) as paper_id,
        any_value(source) as source,
        any_value(reviewer) as reviewer,
        any_value(sample_index) as sample_index,
        any_value(venue) as venue,
        any_value(venue_year) as venue_year,
        any_value(rubric) as rubric,
        any_value(scale_min) as scale_min,
        any_value(scale_max) as scale_max,
        avg(predicted_score) as predicted_score,
        stddev_samp(predicted_score) as predicted_score_sd,
        count(judgment_id) as n_repeats,
        count(predicted_score) as n_repeats_scored,
        cast(coalesce(sum(n_out_of_scale), 0) as integer) as n_out_of_scale,
        max(n_numbers_removed) as n_numbers_removed,
        case
            when avg(predicted_score) is null then
                arg_min(repeat_null_reason, coalesce(repeat_index, -1)) filter (where repeat_null_reason is not null)
        end as null_reason,
        coalesce(list(judgment_id order by repeat_index) filter (where judgment_id is not null), [])
            as judgment_ids,
        max(chars_judged) as chars_judged

    from joined
    group by study_id, judge_config, review_key

)

select * from final
