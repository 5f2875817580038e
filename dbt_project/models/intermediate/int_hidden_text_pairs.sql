-- One row per (study, reviewer configuration, hidden_text variant) whose variant AND clean base paper are
-- both among the study's papers: the configuration's mean own score on each (over its samples), the
-- mean score the score_prediction judge predicted from its reviews' text on each (int_score_predictions;
-- the study's first judge configuration by id when it has several), and how many of its reviews of the
-- variant the injection judge read and found pointing out the hidden text. A defence configuration
-- reads the visible text: a reviewer system run with options.strip_hidden = true, or a reviewer the
-- study resolved with strip_hidden (the default since it was recorded; absent in older events: false).
with

variants as (

    select * from {{ ref('int_hidden_text_variants') }}
    where is_built

),

study_papers as (

    select * from {{ ref('int_study_papers') }}

),

study_reviewers as (

    select * from {{ ref('int_study_reviewers') }}
    where source = 'peerlake'

),

scores as (

    select * from {{ ref('int_study_review_scores') }}

),

predictions as (

    select * from {{ ref('int_score_predictions') }}
    where source != 'human'

),

study_reviews as (

    select * from {{ ref('int_study_reviews') }}
    where source = 'peerlake'

),

mentions as (

    select * from {{ ref('int_hidden_text_mentions') }}
    where role = 'injected'

),

system_options as (

    select
        system_config as reviewer_config,
        any_value(system_name) as reviewer,
        bool_or(coalesce(try_cast(options ->> 'strip_hidden' as boolean), false)) as is_defence
    from {{ ref('stg_events__system_reviews') }}
    group by system_config

),

template_names as (

    select
        reviewer_config,
        any_value(prompt_template) as reviewer
    from {{ ref('int_review_scores_unioned') }}
    group by reviewer_config

),

pairs as (

    select
        variant_paper.study_id,
        study_reviewers.reviewer_config,
        study_reviewers.is_reading_visible,
        variants.variant_id,
        variants.base_paper_id,
        variants.method

    from variants
    inner join study_papers as variant_paper on variants.variant_id = variant_paper.paper_id
    inner join study_papers as base_paper
        on variant_paper.study_id = base_paper.study_id and variants.base_paper_id = base_paper.paper_id
    inner join study_reviewers on variant_paper.study_id = study_reviewers.study_id

),

own_scores as (

    select
        study_id,
        reviewer_config,
        paper_id,
        avg(overall_score) as score,
        count(overall_score) as n_scored
    from scores
    group by study_id, reviewer_config, paper_id

),

predictor as (

    -- one judge configuration per study: the first by id (a study normally runs one)
    select
        study_id,
        min(judge_config) as judge_config
    from predictions
    group by study_id

),

predicted as (

    select
        predictions.study_id,
        predictions.reviewer as reviewer_config,
        predictions.paper_id,
        avg(predictions.predicted_score) as predicted_score

    from predictions
    inner join predictor using (study_id, judge_config)
    group by predictions.study_id, predictions.reviewer, predictions.paper_id

),

judged as (

    -- the injection judge's verdicts on the reviews the study counts (samples below its K)
    select
        pairs.study_id,
        pairs.reviewer_config,
        pairs.variant_id,
        mentions.judge_config,
        mentions.review_key,
        mentions.is_mentioned

    from pairs
    inner join study_reviews
        on
            pairs.study_id = study_reviews.study_id
            and pairs.variant_id = study_reviews.paper_id
            and pairs.reviewer_config = study_reviews.reviewer_config
    inner join mentions
        on study_reviews.review_key = mentions.review_key and pairs.variant_id = mentions.variant_id

),

mention_judge as (

    select
        study_id,
        min(judge_config) as judge_config
    from judged
    group by study_id

),

mention_counts as (

    select
        judged.study_id,
        judged.reviewer_config,
        judged.variant_id,
        any_value(judged.judge_config) as mention_judge_config,
        count(*) as n_reviews_judged,
        count(*) filter (where judged.is_mentioned) as n_reviews_mentioning

    from judged
    inner join mention_judge using (study_id, judge_config)
    group by judged.study_id, judged.reviewer_config, judged.variant_id

),

final as (

    select
        concat_ws('|', pairs.study_id, pairs.reviewer_config, pairs.variant_id) as hidden_text_pair_id,
        pairs.study_id,
        pairs.reviewer_config,
        coalesce(system_options.reviewer, template_names.reviewer) as reviewer,
        coalesce(system_options.is_defence, pairs.is_reading_visible, false) as is_defence,
        pairs.variant_id,
        pairs.base_paper_id,
        pairs.method,
        injected.score as self_score_injected,
        clean.score as self_score_clean,
        injected.score - clean.score as self_delta,
        coalesce(clean.n_scored, 0) + coalesce(injected.n_scored, 0) as n_self_scored,
        predictor.judge_config,
        predicted_injected.predicted_score as judge_score_injected,
        predicted_clean.predicted_score as judge_score_clean,
        predicted_injected.predicted_score - predicted_clean.predicted_score as judge_delta,
        mention_counts.mention_judge_config,
        coalesce(mention_counts.n_reviews_judged, 0) as n_reviews_judged,
        coalesce(mention_counts.n_reviews_mentioning, 0) as n_reviews_mentioning

    from pairs
    left join own_scores as injected
        on
            pairs.study_id = injected.study_id and pairs.reviewer_config = injected.reviewer_config
            and pairs.variant_id = injected.paper_id
    left join own_scores as clean
        on
            pairs.study_id = clean.study_id and pairs.reviewer_config = clean.reviewer_config
            and pairs.base_paper_id = clean.paper_id
    left join predictor on pairs.study_id = predictor.study_id
    left join predicted as predicted_injected
        on
            pairs.study_id = predicted_injected.study_id and pairs.reviewer_config = predicted_injected.reviewer_config
            and pairs.variant_id = predicted_injected.paper_id
    left join predicted as predicted_clean
        on
            pairs.study_id = predicted_clean.study_id and pairs.reviewer_config = predicted_clean.reviewer_config
            and pairs.base_paper_id = predicted_clean.paper_id
    left join mention_counts
        on
            pairs.study_id = mention_counts.study_id and pairs.reviewer_config = mention_counts.reviewer_config
            and pairs.variant_id = mention_counts.variant_id
    left join system_options on pairs.reviewer_config = system_options.reviewer_config
    left join template_names on pairs.reviewer_config = template_names.reviewer_config

)

select * from final
