-- One row per (study, review, repeat) of the focus judge (judging/focus.py, step label): the newest
-- judgment of that repeat, or one row with repeat_index null and null_reason 'not_judged'.
-- The reviews a study counts (int_study_reviews): the human reviews of its papers, its reviewer and
-- system configurations' samples below K, its imported systems. Reviews of experiment variants
-- (contradiction, hidden text) count only when judged (focus.include_variants): see not_judged.
-- When a study_resolved event lists the focus judge (int_experiment_judges), only its configurations and
-- repeats 0..repeats-1 count; otherwise the newest focus judgment of each (review, repeat).
with

study_reviews as (

    -- reviewer_config is 'human' for a human review
    select
        study_id,
        review_key,
        paper_id,
        source,
        reviewer_config,
        reviewer_label,
        is_variant
    from {{ ref('int_study_reviews') }}

),

judgments as (

    select * from {{ ref('int_judgments_latest') }}
    where judge = 'focus' and step = 'label'

),

scoped_configs as (

    select
        study_id,
        judge_config,
        max(n_repeats) as repeats
    from {{ ref('int_experiment_judges') }}
    where judge = 'focus'
    group by study_id, judge_config

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

    -- a variant's review counts only when judged (focus.include_variants): no not_judged row for it
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
        * exclude (status, judgment_null_reason, inputs, recorded_at),
        status = 'ok' as is_ok,
        case when status != 'ok' then coalesce(judgment_null_reason, 'status:' || status) end as null_reason,
        inputs ->> 'taxonomy' as taxonomy,
        inputs ->> 'taxonomy_sha256' as taxonomy_sha256,
        from_json(inputs -> 'targets', '["VARCHAR"]') as targets,
        from_json(inputs -> 'aspects', '["VARCHAR"]') as aspects
    from judged
    union all by name
    select
        *,
        false as is_ok,
        'not_judged' as null_reason
    from not_judged

)

select
    concat_ws(
        '|', final.study_id, final.review_key, coalesce(cast(final.repeat_index as varchar), 'none')
    ) as focus_judgment_id,
    final.*,
    coalesce(json_array_length(final.units), 0) as n_items
from final
