-- One row per (study, review the study counts): every review of the study's papers (built variants
-- included) that its judges can read (int_judging_review_keys): the human reviews, its template
-- reviewers' and reviewer systems' samples below the study's K, and its imported systems' reviews
-- ('*': every imported system), each with its reviewer's label (a system's newest name, a template
-- reviewer's template and model, an imported system's name, 'human'). An experiment narrows this set
-- in its own model where it must (e.g. the newest review per slot, no human reviews, no variants
-- unless judged): the narrowing stays visible there.
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

system_names as (

    -- a reviewer system's name as it was last recorded
    select
        system_config as reviewer_config,
        any_value(system_name order by recorded_at desc) as reviewer_label
    from {{ ref('stg_events__system_reviews') }}
    group by system_config

),

template_names as (

    select
        reviewer_config,
        any_value(prompt_template || ' · ' || model) as reviewer_label
    from {{ ref('int_ai_reviews_parsed') }}
    group by reviewer_config

),

variants as (

    select distinct variant_id as paper_id from {{ ref('stg_events__paper_variants') }}
    where is_built

),

scoped as (

    select
        study_papers.study_id,
        review_keys.review_key,
        review_keys.paper_id,
        review_keys.source,
        -- 'human' for a human review (int_judging_review_keys names its system so)
        review_keys.system as reviewer_config,
        review_keys.sample_index,
        review_keys.review_event_id

    from review_keys
    inner join study_papers on review_keys.paper_id = study_papers.paper_id
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
            -- the study asks for K samples: sample K+1 made for another study is not part of this one
            and (study_reviewers.samples is null or review_keys.sample_index < study_reviewers.samples)
        )
    -- '*' and a named system may both match one external review; a review key recorded by two
    -- events (a replayed request) is one review: its newest event is the one the judges read
    qualify row_number() over (
        partition by study_papers.study_id, review_keys.review_key order by review_keys.review_event_id desc
    ) = 1

),

final as (

    select
        scoped.study_id || '|' || scoped.review_key as study_review_id,
        scoped.*,
        case
            when scoped.source in ('human', 'external') then scoped.reviewer_config
            else coalesce(system_names.reviewer_label, template_names.reviewer_label, scoped.reviewer_config)
        end as reviewer_label,
        scoped.paper_id in (select variants.paper_id from variants) as is_variant

    from scoped
    left join system_names on scoped.reviewer_config = system_names.reviewer_config
    left join template_names on scoped.reviewer_config = template_names.reviewer_config

)

select * from final
