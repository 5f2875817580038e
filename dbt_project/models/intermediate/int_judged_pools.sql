-- One row per (study, flaws judge configuration, pool, repeat) holding the newest pool judgment of
-- that repeat (step pool: the pool's members, its flaws and who raised them). A pool the study lists
-- with no judgment under the study's configuration gets one row with null_reason 'not_judged'.
-- A pool is pool:<paper_id>|<system>|s<sample>: the paper's human reviews plus ONE review of it by the
-- system under test (PRISM: N = humans + 1), so a system's second sample is a second pool and never
-- changes the first. <sample> is the review's sample index, "<index>-<k>" for the k-th other review of
-- the system sharing that index (see int_judged_pool_members). A key without |s<sample> (written
-- before pools were per sample) names all of the system's reviews: pool_sample null.
with

scopes as (

    select * from {{ ref('int_judging_scopes') }}
    where subject_kind = 'pool' and judge = 'flaws'

),

judgments as (

    select * from {{ ref('int_judgments_latest') }}
    where judge = 'flaws' and step = 'pool'

),

joined as (

    select
        scopes.study_id,
        scopes.judge,
        scopes.judge_config,
        scopes.judge_provider,
        scopes.judge_model,
        scopes.repeats,
        scopes.subject_key as pool_key,
        regexp_extract(scopes.subject_key, '^pool:([^|]*)\|', 1) as pool_paper_id,
        regexp_extract(scopes.subject_key, '^pool:[^|]*\|(.*?)(?:\|s[0-9]+(?:-[0-9]+)?)?$', 1) as pool_system,
        nullif(regexp_extract(scopes.subject_key, '\|s([0-9]+(?:-[0-9]+)?)$', 1), '') as pool_sample,
        judgments.repeat_index,
        judgments.judgment_id,
        judgments.status,
        judgments.null_reason as judgment_null_reason,
        judgments.units,
        judgments.dropped

    from scopes
    left join judgments
        on
            scopes.judge_config = judgments.judge_config
            and scopes.subject_key = judgments.subject_key
            and judgments.repeat_index between 0 and scopes.repeats - 1

),

final as (

    select
        concat_ws(
            '|', study_id, judge_config, pool_key, coalesce(cast(repeat_index as varchar), 'none')
        ) as judged_pool_id,
        * exclude (judgment_null_reason),
        case
            when judgment_id is null then 'not_judged'
            when status != 'ok' then coalesce(judgment_null_reason, 'status:' || status)
        end as null_reason

    from joined

)

select * from final
