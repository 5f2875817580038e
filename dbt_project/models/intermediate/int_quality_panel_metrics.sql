-- int_quality_review_metrics with each judge configuration's name in its study (int_judge_configs): the
-- input of the judge panel marts (metrics.quality.panel), every configuration of every judge.
with

metrics as (

    select * from {{ ref('int_quality_review_metrics') }}

),

configs as (

    select * from {{ ref('int_judge_configs') }}

),

final as (

    select
        metrics.study_id,
        metrics.judge,
        metrics.judge_config,
        configs.judge_label,
        metrics.metric,
        metrics.review_key,
        metrics.paper_id,
        metrics.source,
        metrics.system,
        metrics.pool_key,
        metrics.value

    from metrics
    inner join configs
        on metrics.study_id = configs.study_id and metrics.judge_config = configs.judge_config

)

select * from final
