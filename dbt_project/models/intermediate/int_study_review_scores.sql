-- One row per (study, source, paper, reviewer configuration, sample): the reviews each study counts.
-- A review shared by two studies (same request, replayed) appears once in each, so the demo's
-- numbers and a user's never mix, and each study is measured on exactly its own papers and samples.
with

review_scores as (

    select * from {{ ref('int_review_scores_unioned') }}

),

study_papers as (

    select * from {{ ref('int_study_papers') }}

),

study_reviewers as (

    select * from {{ ref('int_study_reviewers') }}

),

scoped as (

    select
        study_papers.study_id,
        review_scores.*

    from review_scores
    inner join study_papers using (paper_id)
    inner join study_reviewers
        on
            study_papers.study_id = study_reviewers.study_id
            and review_scores.source = study_reviewers.source
            and (
                review_scores.reviewer_config = study_reviewers.reviewer_config
                or (review_scores.source = 'external' and study_reviewers.reviewer_config = '*')
            )
    -- the study asks for K samples: sample K+1 made for another study is not part of this one
    where study_reviewers.samples is null or review_scores.sample_index < study_reviewers.samples
    -- '*' and a named system may both match one external review
    qualify row_number() over (
        partition by study_papers.study_id, review_scores.review_score_id order by 1
    ) = 1

),

final as (

    select
        md5(concat_ws('|', study_id, review_score_id)) as review_score_id,
        review_score_id as review_slot_id,
        * exclude (review_score_id)

    from scoped

)

select * from final
