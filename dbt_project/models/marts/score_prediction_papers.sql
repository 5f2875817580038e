-- One row per (study, judge configuration, reviewer, paper): a paper's predicted score = the mean of
-- its reviews' predictions by that reviewer (the source: "a paper with several reviews gets the mean
-- prediction"), beside the paper's human mean rating (its human reviews' ratings on the venue's
-- scale), its venue, year and acceptance. reviewer 'human' is the reference row: the predictor reading
-- the human reviews. Variants (no human reviews of their own) carry base_paper_id and a null target.
with

predictions as (

    select * from {{ ref('int_score_predictions') }}

),

human_reviews as (

    select * from {{ ref('fct_human_reviews') }}

),

papers as (

    select * from {{ ref('dim_papers') }}
    where is_latest_version

),

variants as (

    select * from {{ ref('stg_events__paper_variants') }}
    where is_built
    qualify row_number() over (partition by variant_id order by paper_variant_id desc) = 1

),

human_means as (

    select
        paper_id,
        -- a rating off the venue's scale is a data error, not a rating; an unknown scale is kept
        avg(rating) filter (where is_rating_on_scale is distinct from false) as human_score_mean,
        count(rating) filter (where is_rating_on_scale is distinct from false) as n_human_ratings

    from human_reviews
    group by paper_id

),

per_paper as (

    select
        study_id,
        judge_config,
        source,
        reviewer,
        paper_id,
        count(*) as n_reviews,
        count(predicted_score) as n_reviews_predicted,
        avg(predicted_score) as predicted_score,
        any_value(rubric) filter (where rubric is not null) as rubric,
        any_value(venue) filter (where venue is not null) as predicted_venue,
        any_value(venue_year) filter (where venue_year is not null) as predicted_year,
        -- every review null: the first review's reason stands for the paper
        case when count(predicted_score) = 0 then min(null_reason) end as null_reason,
        avg(chars_judged) as review_chars_mean

    from predictions
    group by study_id, judge_config, source, reviewer, paper_id

),

final as (

    select
        concat_ws(
            '|', per_paper.study_id, per_paper.judge_config, per_paper.source, per_paper.reviewer,
            per_paper.paper_id
        ) as score_prediction_paper_id,
        per_paper.* exclude (predicted_venue, predicted_year, review_chars_mean),  -- noqa: RF02
        coalesce(papers.venue, per_paper.predicted_venue) as venue,
        coalesce(papers.year, per_paper.predicted_year) as venue_year,
        papers.acceptance_label,
        papers.status as paper_status,
        variants.base_paper_id,
        variants.variant_kind,
        variants.variant_id is not null as is_variant,
        human_means.human_score_mean,
        coalesce(human_means.n_human_ratings, 0) as n_human_ratings,
        -- mean length of the reviewer's reviews of the paper as the predictor read them (the length baseline)
        per_paper.review_chars_mean

    from per_paper
    left join papers using (paper_id)
    left join variants on per_paper.paper_id = variants.variant_id
    left join human_means using (paper_id)

)

select * from final
