-- Per study and model: what the study paid for, and what it used without paying (replays).
-- A paid call belongs to the study whose run made it (llm_call.study); a call shared by two
-- studies is paid once, by the first, and shows up as a replay in the other. Calls made outside any
-- study (study_id null) are reported under '(no study)'.
with

llm_calls as (

    select * from {{ ref('fct_llm_calls') }}

),

review_scores as (

    select * from {{ ref('int_study_review_scores') }}

),

paid as (

    select
        coalesce(study_id, '(no study)') as study_id,
        provider,
        model,
        count(*) as n_attempts,
        count(*) filter (where is_ok) as n_paid_calls,
        count(*) filter (where not is_ok) as n_failed_attempts,
        cast(sum(input_tokens) as bigint) as input_tokens,
        cast(sum(output_tokens) as bigint) as output_tokens,
        sum(cost_usd) as cost_usd,
        count(*) filter (where is_ok and not has_known_cost) as n_paid_calls_cost_unknown

    from llm_calls
    group by all

),

used as (

    -- the review answers a study counts, and who paid for each of them
    select
        review_scores.study_id,
        llm_calls.provider,
        llm_calls.model,
        count(*) as n_review_calls_used,
        count(*) filter (
            where llm_calls.study_id is distinct from review_scores.study_id
        ) as n_review_calls_replayed,
        sum(llm_calls.cost_usd) filter (
            where llm_calls.study_id is distinct from review_scores.study_id
        ) as replayed_cost_usd

    from review_scores
    inner join llm_calls using (llm_call_id)
    where review_scores.source = 'peerlake'
    group by all

),

final as (

    select
        md5(concat_ws('|', study_id, provider, model)) as study_cost_id,
        study_id,
        provider,
        model,
        coalesce(paid.n_attempts, 0) as n_attempts,
        coalesce(paid.n_paid_calls, 0) as n_paid_calls,
        coalesce(paid.n_failed_attempts, 0) as n_failed_attempts,
        paid.input_tokens,
        paid.output_tokens,
        paid.cost_usd,
        coalesce(paid.n_paid_calls_cost_unknown, 0) as n_paid_calls_cost_unknown,
        coalesce(used.n_review_calls_used, 0) as n_review_calls_used,
        coalesce(used.n_review_calls_replayed, 0) as n_review_calls_replayed,
        -- what the replays would have cost had this study paid for them itself
        used.replayed_cost_usd as replayed_cost_usd_saved

    from paid
    full outer join used using (study_id, provider, model)

)

select * from final
