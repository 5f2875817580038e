-- One row per (study, review): the reviews the score-prediction experiment reads in each study, with
-- or without a judgment: the human reviews of its papers (variants included), its reviewer
-- configurations' reviews (template and system; samples below the study's K) and its imported
-- systems' reviews. review_event_id is the event holding the review's text (text_overlap reads it).
with

study_papers as (

    select * from {{ ref('int_study_papers') }}

),

study_reviewers as (

    select * from {{ ref('int_study_reviewers') }}

),

system_reviews as (

    select * from {{ ref('stg_events__system_reviews') }}

),

review_keys as (

    -- as the experiment judges read them (judging.reviews): a reviewer system's answered reviews
    -- only, and of several reviews in one (paper, reviewer, sample) slot the newest (event ids are
    -- ULIDs: time-ordered); human reviews are one per key already
    select review_keys.*
    from {{ ref('int_judging_review_keys') }} as review_keys
    left join system_reviews on review_keys.review_event_id = system_reviews.system_review_id
    where system_reviews.status is null or system_reviews.status = 'ok'
    qualify review_keys.source = 'human' or row_number() over (
        partition by review_keys.source, review_keys.system, review_keys.paper_id, review_keys.sample_index
        order by review_keys.review_event_id desc
    ) = 1

),

scoped as (

    select
        study_papers.study_id,
        review_keys.review_key,
        review_keys.paper_id,
        review_keys.source,
        review_keys.system as reviewer,
        review_keys.sample_index,
        review_keys.review_event_id

    from review_keys
    inner join study_papers using (paper_id)
    left join study_reviewers
        on
            study_papers.study_id = study_reviewers.study_id
            and review_keys.source = study_reviewers.source
            and (
                review_keys.system = study_reviewers.reviewer_config
                or (review_keys.source = 'external' and study_reviewers.reviewer_config = '*')
            )
    where
        review_keys.source = 'human'
        or (
            study_reviewers.study_id is not null
            and (study_reviewers.samples is null or review_keys.sample_index < study_reviewers.samples)
        )
    -- '*' and a named system may both match one external review
    qualify row_number() over (partition by study_papers.study_id, review_keys.review_key order by 1) = 1

)

select
    study_id || '|' || review_key as score_prediction_review_id,
    *
from scoped
