-- One row per (study, system configuration, paper, sample): what one reviewer system's review cost
-- to make (calls, failed attempts, tokens, USD at the lake's price table, model and wall time) and
-- how it ended. Scoped like int_study_review_scores: the study's papers, its system configurations,
-- samples below its K. Replayed calls count (the cost to make the review, whoever paid for it).
with

system_reviews as (

    select * from {{ ref('int_system_reviews') }}

),

system_calls as (

    select * from {{ ref('int_system_calls') }}

),

study_papers as (

    select * from {{ ref('int_study_papers') }}

),

study_reviewers as (

    select * from {{ ref('int_study_reviewers') }}

),

scoped as (

    select
        study_papers.study_id,
        system_reviews.*

    from system_reviews
    inner join study_papers using (paper_id)
    inner join study_reviewers
        on
            study_papers.study_id = study_reviewers.study_id
            and study_reviewers.source = 'peerlake'
            and system_reviews.system_config = study_reviewers.reviewer_config
    where study_reviewers.samples is null or system_reviews.sample_index < study_reviewers.samples

),

per_review as (

    select
        scoped.study_id,
        system_calls.system_review_id,
        count(*) as n_calls,
        count(*) filter (where not system_calls.is_answer_found) as n_calls_missing,
        -- the calls this study's runs made (and paid for); the rest it replayed from another study's
        count(*) filter (where system_calls.paid_by_study = scoped.study_id) as n_calls_made_by_study,
        cast(sum(system_calls.n_error_attempts) as bigint) as n_error_attempts,
        cast(sum(system_calls.input_tokens) as bigint) as input_tokens,
        cast(sum(system_calls.cached_input_tokens) as bigint) as cached_input_tokens,
        cast(sum(system_calls.output_tokens) as bigint) as output_tokens,
        sum(system_calls.cost_usd) as known_cost_usd,
        -- an answered call without a price (or a call not in the lake) leaves the total unknown
        count(*) filter (where system_calls.cost_usd is null) as n_calls_unpriced,
        -- rounded to the microsecond like wall_seconds: float sums in another order differ in the last bit
        round(sum(system_calls.latency_ms) / 1000.0, 6) as model_seconds

    from scoped
    inner join system_calls using (system_review_id)
    group by all

),

member_chains as (

    -- a member's calls in one (step, round) run one after another (a repair turn follows its answer)
    select
        system_review_id,
        system_step,
        system_round,
        member,
        sum(latency_ms) as chain_ms

    from system_calls
    group by all

),

step_rounds as (

    -- the members of a (step, round) run in parallel: the slowest one sets the pace
    select
        system_review_id,
        system_step,
        system_round,
        max(chain_ms) as step_ms

    from member_chains
    group by all

),

critical_path as (

    select
        system_review_id,
        round(sum(step_ms) / 1000.0, 6) as wall_seconds

    from step_rounds
    group by system_review_id

),

final as (

    select
        concat_ws(
            '|', scoped.study_id, scoped.system_config, scoped.paper_id, cast(scoped.sample_index as varchar)
        ) as system_review_cost_id,
        scoped.study_id,
        scoped.system_name,
        scoped.system_config,
        scoped.provider,
        scoped.model,
        scoped.paper_id,
        scoped.sample_index,
        scoped.system_review_id,
        scoped.status,
        scoped.null_reason,
        scoped.is_scored,
        scoped.is_parsed,
        scoped.overall_score,
        coalesce(per_review.n_calls, 0) as n_calls,
        coalesce(per_review.n_calls_missing, 0) as n_calls_missing,
        coalesce(per_review.n_error_attempts, 0) as n_error_attempts,
        per_review.input_tokens,
        per_review.cached_input_tokens,
        per_review.output_tokens,
        -- null when any call's cost is unknown: never a partial sum passed off as the whole
        case
            when per_review.n_calls is null then 0.0
            when per_review.n_calls_unpriced = 0 then per_review.known_cost_usd
        end as cost_usd,
        coalesce(per_review.n_calls_unpriced, 0) as n_calls_unpriced,
        coalesce(per_review.n_calls_unpriced, 0) = 0 as is_cost_complete,
        per_review.model_seconds,
        critical_path.wall_seconds,
        coalesce(per_review.n_calls_made_by_study, 0) as n_calls_made_by_study

    from scoped
    left join per_review using (study_id, system_review_id)
    left join critical_path using (system_review_id)

)

select * from final
