-- int_quality_review_metrics for the headline judge configurations only (int_judge_configs.is_headline):
-- one configuration per (study, judge), what quality_reviews and quality_comparison read. The same rows
-- as int_quality_review_metrics for a study with one configuration per judge.
with

metrics as (

    select * from {{ ref('int_quality_review_metrics') }}

),

headline as (

    select
        study_id,
        judge_config

    from {{ ref('int_judge_configs') }}
    where is_headline

),

final as (

    select metrics.*

    from metrics
    inner join headline
        on metrics.study_id = headline.study_id and metrics.judge_config = headline.judge_config

)

select * from final
