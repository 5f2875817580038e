-- One row per (study, judge configuration, review): see int_quality_depth.
-- judge_flag is 'judge_unvalidated' when the judge configuration fails a [judging.require] check of
-- its study (judge_card_checks): a study that says on_fail = "block" publishes nothing new then,
-- one that says "flag" publishes the rows so marked.
with

quality as (

    select * from {{ ref('int_quality_depth') }}

),

flags as (

    select
        study_id,
        judge_config,
        'judge_unvalidated' as judge_flag

    from {{ ref('judge_card_checks') }}
    where is_judge_unvalidated
    group by study_id, judge_config

),

final as (

    select
        quality.*,
        flags.judge_flag

    from quality
    left join flags on quality.study_id = flags.study_id and quality.judge_config = flags.judge_config

)

select * from final
