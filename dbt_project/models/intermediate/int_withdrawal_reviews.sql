-- One row per (study, review of a withdrawn paper the study counts): the study's papers that have a
-- withdrawal note, and their reviews as orchestration.experiments.study_reviews hands them to the
-- judge: the newest review per (paper, source, reviewer configuration, sample); a template reviewer's
-- or system's samples below the study's K; the study's imported systems ('*': all); and the human
-- reviews (the judge reads those only when the study's [withdrawals] sources include "human": the
-- mart keeps the human row only where it was judged).
with

review_keys as (

    select * from {{ ref('int_judging_review_keys') }}

),

study_papers as (

    select * from {{ ref('int_study_papers') }}

),

study_reviewers as (

    select * from {{ ref('int_study_reviewers') }}

),

notes as (

    select * from {{ ref('int_withdrawal_notes') }}

),

system_names as (

    select distinct
        system_config as reviewer_config,
        system_name as reviewer_label

    from {{ ref('stg_events__system_reviews') }}

),

template_names as (

    select
        reviewer_config,
        any_value(prompt_template || ' · ' || model) as reviewer_label

    from {{ ref('int_ai_reviews_parsed') }}
    group by reviewer_config

),

newest as (

    -- a re-ingested paper is reviewed anew in the same slot: the newest review is the one judged
    select *
    from review_keys
    qualify row_number() over (
        partition by paper_id, source, system, coalesce(cast(sample_index as varchar), review_key)
        order by review_event_id desc
    ) = 1

),

scoped as (

    select
        study_papers.study_id,
        newest.review_key,
        newest.paper_id,
        newest.source,
        newest.system as reviewer_config,
        newest.sample_index,
        notes.withdrawal_note_id

    from newest
    inner join study_papers on newest.paper_id = study_papers.paper_id
    inner join notes on newest.paper_id = notes.paper_id
    where
        newest.source = 'human'
        or exists (
            select 1
            from study_reviewers
            where
                study_reviewers.study_id = study_papers.study_id
                and study_reviewers.source = newest.source
                and (
                    study_reviewers.reviewer_config = newest.system
                    or (newest.source = 'external' and study_reviewers.reviewer_config = '*')
                )
                and (study_reviewers.samples is null or newest.sample_index < study_reviewers.samples)
        )

),

final as (

    select
        scoped.study_id || '|' || scoped.review_key as withdrawal_review_id,
        scoped.*,
        case
            when scoped.source = 'human' then 'human'
            when scoped.source = 'external' then scoped.reviewer_config
            else coalesce(system_names.reviewer_label, template_names.reviewer_label, scoped.reviewer_config)
        end as reviewer_label

    from scoped
    left join system_names on scoped.reviewer_config = system_names.reviewer_config
    left join template_names on scoped.reviewer_config = template_names.reviewer_config

)

select * from final
