-- One row per (study, review, repeat) of the focus judge (judging/focus.py, step label): the newest
-- judgment of that repeat, or one row with repeat_index null and null_reason 'not_judged'.
-- The reviews a study counts: the human reviews of its papers, its reviewer and system
-- configurations' samples below K, its imported systems (as int_study_review_scores). Reviews of
-- experiment variants (contradiction, hidden text) count only when judged (focus.include_variants).
-- When a study_resolved event lists the focus judge (judges_json), only its configurations and
-- repeats 0..repeats-1 count; otherwise the newest focus judgment of each (review, repeat).
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

studies as (

    select * from {{ ref('int_studies_latest') }}

),

variants as (

    select distinct variant_id as paper_id from {{ ref('stg_events__paper_variants') }}
    where is_built

),

judgments as (

    select * from {{ ref('int_judgments_latest') }}
    where judge = 'focus' and step = 'label'

),

system_names as (

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

focus_scopes as (

    select
        study_id,
        unnest(  -- noqa: AL03
            from_json(judges, '[{"judge": "VARCHAR", "judge_config": "VARCHAR", "repeats": "INTEGER"}]'),
            recursive := true
        )
    from studies

),

scoped_configs as (

    select
        study_id,
        judge_config,
        greatest(coalesce(max(repeats), 1), 1) as repeats
    from focus_scopes
    where judge = 'focus'
    group by study_id, judge_config

),

study_reviews as (

    select distinct
        study_papers.study_id,
        review_keys.review_key,
        review_keys.paper_id,
        review_keys.source,
        case when review_keys.source = 'human' then 'human' else review_keys.system end as reviewer_config,
        review_keys.paper_id in (select variants.paper_id from variants) as is_variant

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
            and (study_reviewers.samples is null or review_keys.sample_index < study_reviewers.samples)
        )

),

candidates as (

    select
        study_reviews.*,
        judgments.judgment_id,
        judgments.judge_config,
        judgments.repeat_index,
        judgments.status,
        judgments.null_reason as judgment_null_reason,
        judgments.units,
        judgments.inputs,
        judgments.recorded_at

    from study_reviews
    left join judgments on study_reviews.review_key = judgments.subject_key
    left join scoped_configs
        on
            study_reviews.study_id = scoped_configs.study_id
            and judgments.judge_config = scoped_configs.judge_config
    where
        judgments.judgment_id is null
        or (
            scoped_configs.study_id is not null
            and judgments.repeat_index between 0 and scoped_configs.repeats - 1
        )
        or not exists (
            select 1 from scoped_configs as s
            where s.study_id = study_reviews.study_id
        )

),

judged as (

    -- the newest judgment per (study, review, repeat) among the configurations that count
    select * from candidates
    where judgment_id is not null
    qualify row_number() over (
        partition by study_id, review_key, repeat_index order by recorded_at desc, judgment_id desc
    ) = 1

),

not_judged as (

    select study_reviews.*
    from study_reviews
    where
        not study_reviews.is_variant
        and not exists (
            select 1 from judged
            where judged.study_id = study_reviews.study_id and judged.review_key = study_reviews.review_key
        )

),

final as (

    select
        study_id,
        review_key,
        paper_id,
        source,
        reviewer_config,
        is_variant,
        judgment_id,
        judge_config,
        repeat_index,
        status = 'ok' as is_ok,
        case when status != 'ok' then coalesce(judgment_null_reason, 'status:' || status) end as null_reason,
        units,
        inputs ->> 'taxonomy' as taxonomy,
        inputs ->> 'taxonomy_sha256' as taxonomy_sha256,
        from_json(inputs -> 'targets', '["VARCHAR"]') as targets,
        from_json(inputs -> 'aspects', '["VARCHAR"]') as aspects
    from judged
    union all by name
    select
        study_id,
        review_key,
        paper_id,
        source,
        reviewer_config,
        is_variant,
        false as is_ok,
        'not_judged' as null_reason
    from not_judged

)

select
    concat_ws(
        '|', final.study_id, final.review_key, coalesce(cast(final.repeat_index as varchar), 'none')
    ) as focus_judgment_id,
    final.*,
    coalesce(system_names.reviewer_label, template_names.reviewer_label, final.reviewer_config) as reviewer_label,
    coalesce(json_array_length(final.units), 0) as n_items
from final
left join system_names on final.reviewer_config = system_names.reviewer_config
left join template_names on final.reviewer_config = template_names.reviewer_config
