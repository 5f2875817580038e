-- The histogram of all parsed scores per study and reviewer configuration: one row per score bin 1..10
-- (a decimal score counts in the bin of its integer part; 10 is its own bin), empty bins included.
with

review_scores as (

    select * from {{ ref('int_study_review_scores') }}

),

parsed as (

    select
        study_id,
        reviewer_config,
        cast(floor(overall_score) as integer) as score_bin
    from review_scores
    where is_parsed

),

bins as (

    select
        configs.study_id,
        configs.reviewer_config,
        cast(b.score_bin as integer) as score_bin

    from (select distinct
        study_id,
        reviewer_config
    from parsed) as configs
    cross join range(1, 11) as b (score_bin)

),

counted as (

    select
        bins.study_id,
        bins.reviewer_config,
        bins.score_bin,
        count(parsed.score_bin) as n_scores

    from bins
    left join parsed using (study_id, reviewer_config, score_bin)
    group by bins.study_id, bins.reviewer_config, bins.score_bin

),

final as (

    select
        study_id || '|' || reviewer_config || '|' || cast(score_bin as varchar) as score_histogram_id,
        study_id,
        reviewer_config,
        score_bin,
        n_scores,
        n_scores / sum(n_scores) over (partition by study_id, reviewer_config) as share_of_scores

    from counted

)

select * from final
