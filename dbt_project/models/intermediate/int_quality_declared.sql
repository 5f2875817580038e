-- One row per (study, judge configuration, review, metric) of the judges whose metrics are SQL over their
-- units (int_quality_declared_repeats): the mean over the repeats that have a value, its SD across repeats
-- (a card score's within-review spread, quality_judge_repeatability), and the review's reason when no
-- repeat of it was judged (the first repeat's reason speaks for it, as judged_review_null does).
with

repeats as (

    select * from {{ ref('int_quality_declared_repeats') }}

),

final as (

    select
        {{ judged_review_head('quality_declared_id', 'value', by=['metric']) }},
        avg(value) as value,
        stddev_samp(value) as value_sd,
        case
            when count(*) filter (where null_reason is null) = 0
                then arg_min(null_reason, coalesce(repeat_index, -1))
        end as null_reason,
        any_value(metric_null_reason) as metric_null_reason

    from repeats
    group by study_id, judge_config, review_key, metric

)

select * from final
