-- One row per (study, judge configuration, requirement of [judging.require]): the judge card's value
-- against the threshold (the judge's own, [judging.require.<judge>], or the study's common one). Not
-- measured fails (a judge without human labels is unvalidated, never valid); failure names the check
-- for the gate and the CLI. Definitions: judge_card_checks.yml.
with

requirements as (

    select * from {{ ref('int_judge_card_requirements') }}

),

cards as (

    select * from {{ ref('judge_cards') }}
    where status = 'measured'

),

probes as (

    select * from {{ ref('judge_probes') }}
    where probe in ('comment_order', 'pool_order', 'candidate_order') and shift is not null

),

kappa as (

    select
        study_id,
        judge_config,
        'kappa_min' as requirement,
        min(estimate) as measured,
        arg_min(concat_ws(' ', dataset, dimension), estimate) as measured_on

    from cards
    where statistic = 'human_kappa'
    group by study_id, judge_config

),

retest as (

    select
        study_id,
        judge_config,
        'retest_alpha_min' as requirement,
        min(estimate) as measured,
        arg_min(concat_ws(' ', dataset, dimension), estimate) as measured_on

    from cards
    where statistic = 'retest_alpha'
    group by study_id, judge_config

),

position_shift as (

    select
        study_id,
        judge_config,
        'position_shift_max' as requirement,
        max(abs(shift)) as measured,
        arg_max(concat_ws(' ', probe, dimension), abs(shift)) as measured_on

    from probes
    group by study_id, judge_config

),

measured as (

    select * from kappa
    union all
    select * from retest
    union all
    select * from position_shift

),

checked as (

    select
        requirements.*,
        measured.measured,
        measured.measured_on,
        case
            when measured.measured is null then 'not_measured'
            when requirements.requirement = 'position_shift_max' and measured.measured <= requirements.threshold
                then 'pass'
            when requirements.requirement != 'position_shift_max' and measured.measured >= requirements.threshold
                then 'pass'
            else 'fail'
        end as check_status,
        -- where a judge's human labels come from (docs/judges/human-labels.md)
        case requirements.judge
            when 'depth' then 'peerlake ingest labels --format disapere, or validate-judges substanreview'
            when 'novelty' then 'peerlake ingest labels --format disapere'
            when 'constructiveness' then 'peerlake ingest labels --format revutil'
            when 'flaws' then 'peerlake ingest labels --format reviewcritique'
            else 'peerlake ingest labels'
        end as labels_hint

    from requirements
    left join measured
        on
            requirements.study_id = measured.study_id
            and requirements.judge_config = measured.judge_config
            and requirements.requirement = measured.requirement

),

final as (

    select
        judge_card_requirement_id as judge_card_check_id,
        study_id,
        judge,
        judge_config,
        requirement,
        threshold,
        measured,
        measured_on,
        check_status,
        on_fail,
        case
            when check_status = 'not_measured'
                then concat(
                    'judge ', judge, ' ', judge_config, ' in study ', study_id, ' - ', requirement, ' ',
                    threshold, ' - not measured (',
                    case requirement
                        when 'kappa_min' then concat('no human labels of reviews it judged: ', labels_hint)
                        when 'retest_alpha_min' then 'no repeats: [judging] repeats >= 2'
                        else 'no position probe: peerlake probe-judges'
                    end, ')'
                )
            when check_status = 'fail'
                then concat(
                    'judge ', judge, ' ', judge_config, ' in study ', study_id, ' - ', requirement, ' - ',
                    round(measured, 3), ' (', measured_on, ') ',
                    case when requirement = 'position_shift_max' then '> ' else '< ' end, threshold
                )
        end as failure,
        check_status != 'pass' as is_judge_unvalidated

    from checked

)

select * from final
