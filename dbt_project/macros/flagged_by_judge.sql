{#- A PRISM quality mart's rows with judge_flag = 'judge_unvalidated' where the row's judge configuration
    fails a [judging.require] check of its study (judge_card_checks): a study that says on_fail = "block"
    publishes nothing new then (the gate), one that says "flag" publishes the rows so marked. One place
    for the four quality marts. -#}
{% macro flagged_by_judge(quality_relation) %}
with

quality as (

    select * from {{ quality_relation }}

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
{% endmacro %}
