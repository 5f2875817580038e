-- One row per (study, review): the reviews the score-prediction experiment reads in each study, with
-- or without a judgment: the reviews the study counts (int_study_reviews: human reviews of its papers,
-- variants included, its reviewer configurations' samples below K, its imported systems' reviews) as
-- the judge reads them. review_event_id is the event holding the review's text (text_overlap reads it).
with

study_reviews as (

    select * from {{ ref('int_study_reviews') }}

),

system_reviews as (

    select * from {{ ref('stg_events__system_reviews') }}

),

newest as (

    -- as the experiment judges read them (judging.reviews): a reviewer system's answered reviews
    -- only, and of several reviews in one (paper, reviewer, sample) slot the newest (event ids are
    -- ULIDs: time-ordered); human reviews are one per key already
    select study_reviews.*
    from study_reviews
    left join system_reviews on study_reviews.review_event_id = system_reviews.system_review_id
    where system_reviews.status is null or system_reviews.status = 'ok'
    qualify study_reviews.source = 'human' or row_number() over (
        partition by
            study_reviews.study_id,
            study_reviews.source,
            study_reviews.reviewer_config,
            study_reviews.paper_id,
            study_reviews.sample_index
        order by study_reviews.review_event_id desc
    ) = 1

),

final as (

    select
        study_id || '|' || review_key as score_prediction_review_id,
        study_id,
        review_key,
        paper_id,
        source,
        reviewer_config as reviewer,
        sample_index,
        review_event_id
    from newest

)

select * from final
