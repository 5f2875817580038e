-- Flaws found, and in what order, per (study, judge configuration, pool, review, repeat). The pool's
-- valid flaws are its ground truth G_c (critical) and G_m (minor).
--   recall_critical = |found ∩ G_c| / |G_c| (null when G_c is empty); recall_minor likewise.
--   weighted: flaw i weighs W_i = (distinct reviews raising i) / (pool members);
--     recall_critical_weighted = sum(W_i, i in found ∩ G_c) / sum(W_i, i in G_c) (the 1 / members cancels).
--   hallucination_rate = invalid flaws raised / flaws raised (null when it raised none).
--   From the order step's mentions, w = 2 critical, 1 minor, as PRISM's cps_metrics: per review section s
--   (the field the mention's anchor sits in), mentions sorted by (position, list order), i from 0 within s:
--     CPS = sum_s sum_i w_{s,i} / log2(i + 2); ICPS = the same with each section's weights sorted
--     descending; ncps = CPS / ICPS, and 0 when ICPS = 0 (no mention: PRISM's rule).
--   ncps_whole_review ranks the review's mentions as one list (i from 0 over the review; 0 when none);
--   ncps_null_when_none is ncps but null when the review mentions no valid flaw (peerlake's former rule).
-- Quote rules: every figure above keeps every raise the extractor made (PRISM's rule: its raw_arguments are
-- never checked), a raise whose quote judging.flaws could not place in the review included (verbatim
-- 'unplaced', counted in n_raises_unplaced). The *_verbatim columns are the verbatim variant (peerlake's
-- former rule): only raises whose quote is verbatim (strict or normalized typography) count, so a flaw
-- with no such raise is no flaw of the pool, and a mention of it is no mention.
with

pools as (

    select * from {{ ref('int_judged_pools') }}

),

members as (

    select * from {{ ref('int_judged_pool_members') }}

),

review_keys as (

    select * from {{ ref('int_judging_review_keys') }}

),

order_judgments as (

    select * from {{ ref('int_judgments_latest') }}
    where judge = 'flaws' and step = 'order'

),

pool_rows as (

    select
        judged_pool_id,
        unnest(  -- noqa: AL03
            from_json(
                units,
                '[{"kind": "VARCHAR", "review_key": "VARCHAR", "flaw_id": "VARCHAR", "is_valid": "BOOLEAN",
                   "severity": "VARCHAR", "verbatim": "VARCHAR"}]'
            ),
            recursive := true
        )

    from pools
    where null_reason is null

),

recorded_members as (

    select distinct
        judged_pool_id,
        review_key

    from pool_rows
    where kind = 'member'

),

pool_sizes as (

    -- N: the reviews the extractor read (PRISM: the humans + 1)
    select
        judged_pool_id,
        count(*) as n_pool_members

    from recorded_members
    group by judged_pool_id

),

quote_rules as (

    select unnest(['prism', 'verbatim']) as quote_rule

),

raise_rows as (

    -- each raise under each quote rule. A raise recorded before parser flaws-3 had its quote verbatim
    -- (the only kind kept then; flaws-1 rows have no `verbatim` key)
    select
        quote_rules.quote_rule,
        pool_rows.judged_pool_id,
        pool_rows.flaw_id,
        pool_rows.review_key,
        pool_rows.is_valid,
        pool_rows.severity,
        coalesce(pool_rows.verbatim = 'unplaced', false) as is_unplaced

    from pool_rows
    cross join quote_rules
    where
        pool_rows.kind = 'raise'
        and (quote_rules.quote_rule = 'prism' or coalesce(pool_rows.verbatim, 'strict') in ('strict', 'normalized'))

),

raises as (

    -- a flaw raised by one review counts once for it, however many quotes it has
    select
        quote_rule,
        judged_pool_id,
        flaw_id,
        review_key,
        bool_and(is_unplaced) as is_unplaced

    from raise_rows
    group by all

),

flaws as (

    select
        quote_rule,
        judged_pool_id,
        flaw_id,
        bool_and(is_valid) as is_valid,
        any_value(severity) as severity

    from raise_rows
    group by quote_rule, judged_pool_id, flaw_id

),

flaw_raisers as (

    select
        flaws.*,
        count(raises.review_key) as n_raisers

    from flaws
    inner join raises using (quote_rule, judged_pool_id, flaw_id)
    group by all

),

ground_truth as (

    select
        quote_rule,
        judged_pool_id,
        count(*) filter (where is_valid and severity = 'critical') as n_critical_flaws,
        count(*) filter (where is_valid and severity = 'minor') as n_minor_flaws,
        count(*) filter (where not is_valid) as n_invalid_flaws,
        sum(n_raisers) filter (where is_valid and severity = 'critical') as critical_raisers,
        sum(n_raisers) filter (where is_valid and severity = 'minor') as minor_raisers

    from flaw_raisers
    group by quote_rule, judged_pool_id

),

unplaced as (

    -- the pool's raises kept without a placed quote (PRISM's rule only keeps them)
    select
        judged_pool_id,
        count(*) filter (where is_unplaced) as n_pool_raises_unplaced

    from raises
    where quote_rule = 'prism'
    group by judged_pool_id

),

found as (

    select
        raises.quote_rule,
        raises.judged_pool_id,
        raises.review_key,
        count(*) as n_flaws_raised,
        count(*) filter (where raises.is_unplaced) as n_raises_unplaced,
        count(*) filter (where flaw_raisers.is_valid and flaw_raisers.severity = 'critical') as n_critical_found,
        count(*) filter (where flaw_raisers.is_valid and flaw_raisers.severity = 'minor') as n_minor_found,
        count(*) filter (where not flaw_raisers.is_valid) as n_invalid_raised,
        sum(flaw_raisers.n_raisers) filter (where flaw_raisers.is_valid and flaw_raisers.severity = 'critical')
            as critical_raisers_found,
        sum(flaw_raisers.n_raisers) filter (where flaw_raisers.is_valid and flaw_raisers.severity = 'minor')
            as minor_raisers_found

    from raises
    inner join flaw_raisers using (quote_rule, judged_pool_id, flaw_id)
    group by raises.quote_rule, raises.judged_pool_id, raises.review_key

),

mentions as (

    select
        judgment_id as order_judgment_id,
        unnest(  -- noqa: AL03
            from_json(
                units,
                '[{"flaw_id": "VARCHAR", "severity": "VARCHAR", "position": "INTEGER", "section": "VARCHAR",
                   "flaw_verbatim": "BOOLEAN"}]'
            ),
            recursive := true
        ),
        -- the judge's own list order breaks ties between mentions at one position
        generate_subscripts(from_json(units, '["JSON"]'), 1) as list_index

    from order_judgments
    where is_ok

),

weighted_mentions as (

    -- under the verbatim rule a flaw with no verbatim raise is no flaw of the pool: its mention goes
    -- (flaw_verbatim: judging.flaws; a mention recorded before parser flaws-3 is of a verbatim flaw)
    select
        quote_rules.quote_rule,
        mentions.order_judgment_id,
        case mentions.severity when 'critical' then 2 else 1 end as weight,
        -- an order judgment recorded before mentions had a section (parser flaws-1) is one section
        coalesce(mentions.section, '') as section,
        mentions.position,
        mentions.list_index

    from mentions
    cross join quote_rules
    where quote_rules.quote_rule = 'prism' or coalesce(mentions.flaw_verbatim, true)

),

ranked_mentions as (

    select
        *,
        row_number() over (
            partition by quote_rule, order_judgment_id, section order by position, list_index
        ) - 1 as text_rank,
        row_number() over (
            partition by quote_rule, order_judgment_id, section order by weight desc, position asc, list_index asc
        ) - 1 as ideal_rank,
        row_number() over (
            partition by quote_rule, order_judgment_id order by position, list_index
        ) - 1 as review_text_rank,
        row_number() over (
            partition by quote_rule, order_judgment_id order by weight desc, position asc, list_index asc
        ) - 1 as review_ideal_rank

    from weighted_mentions

),

order_scores as (

    select
        quote_rule,
        order_judgment_id,
        count(*) as n_mentions,
        sum(weight / log2(text_rank + 2)) as cps,
        sum(weight / log2(ideal_rank + 2)) as icps,
        sum(weight / log2(review_text_rank + 2)) as cps_whole_review,
        sum(weight / log2(review_ideal_rank + 2)) as icps_whole_review

    from ranked_mentions
    group by quote_rule, order_judgment_id

),

pool_reviews as (

    -- each review of a pool in each judged repeat of the pool (or the pool's not_judged row)
    select
        pools.* exclude (units, null_reason),  -- noqa: RF02
        members.review_key,
        pools.null_reason as pool_null_reason,
        recorded_members.review_key is not null as is_recorded_member,
        pool_sizes.n_pool_members

    from pools
    inner join members using (study_id, judge_config, pool_key)
    left join recorded_members
        on
            pools.judged_pool_id = recorded_members.judged_pool_id
            and members.review_key = recorded_members.review_key
    left join pool_sizes on pools.judged_pool_id = pool_sizes.judged_pool_id

),

joined as (

    select
        pool_reviews.*,
        quote_rules.quote_rule,
        unplaced.n_pool_raises_unplaced,
        order_judgments.judgment_id as order_judgment_id,
        order_judgments.status as order_status,
        order_judgments.null_reason as order_null_reason,
        order_judgments.inputs as order_inputs,
        ground_truth.n_critical_flaws,
        ground_truth.n_minor_flaws,
        ground_truth.n_invalid_flaws,
        ground_truth.critical_raisers,
        ground_truth.minor_raisers,
        found.n_flaws_raised,
        found.n_raises_unplaced,
        found.n_critical_found,
        found.n_minor_found,
        found.n_invalid_raised,
        found.critical_raisers_found,
        found.minor_raisers_found,
        order_scores.n_mentions,
        order_scores.cps,
        order_scores.icps,
        order_scores.cps_whole_review,
        order_scores.icps_whole_review

    from pool_reviews
    cross join quote_rules
    left join unplaced on pool_reviews.judged_pool_id = unplaced.judged_pool_id
    left join ground_truth
        on
            pool_reviews.judged_pool_id = ground_truth.judged_pool_id
            and quote_rules.quote_rule = ground_truth.quote_rule
    left join found
        on
            pool_reviews.judged_pool_id = found.judged_pool_id
            and pool_reviews.review_key = found.review_key
            and quote_rules.quote_rule = found.quote_rule
    left join order_judgments
        on
            pool_reviews.judge_config = order_judgments.judge_config
            and pool_reviews.repeat_index = order_judgments.repeat_index
            and order_judgments.subject_key = pool_reviews.pool_key || '|' || pool_reviews.review_key
    left join order_scores
        on
            order_judgments.judgment_id = order_scores.order_judgment_id
            and quote_rules.quote_rule = order_scores.quote_rule

),

scored as (

    select
        *,
        case
            when pool_null_reason is not null then pool_null_reason
            -- the study expects the review in this pool but the pool judgment did not include it
            when not is_recorded_member then 'not_in_pool'
        end as null_reason,
        -- the order step answered for this review (with or without mentions): its nCPS is a number
        order_judgment_id is not null and order_status = 'ok' as is_ordered

    from joined

),

final as (

    select
        concat_ws(
            '|', scored.study_id, scored.judge_config, scored.pool_key, scored.review_key,
            coalesce(cast(scored.repeat_index as varchar), 'none')
        ) as flaws_repeat_id,
        scored.study_id,
        scored.judge,
        scored.judge_config,
        scored.judge_provider,
        scored.judge_model,
        scored.repeats,
        scored.pool_key,
        scored.pool_paper_id,
        scored.pool_system,
        scored.pool_sample,
        scored.review_key,
        coalesce(review_keys.paper_id, scored.pool_paper_id) as paper_id,
        coalesce(
            review_keys.source, scored.order_inputs ->> 'source', split_part(scored.review_key, ':', 1)
        ) as source,
        array_to_string(from_json(scored.order_inputs -> 'fields', '["VARCHAR"]'), ',') as fields_used,
        scored.repeat_index,
        scored.judgment_id as pool_judgment_id,
        scored.order_judgment_id,
        scored.quote_rule,
        scored.null_reason,
        -- counts of a scored row: zero, not null, where the pool has none
        case when scored.null_reason is null then coalesce(scored.n_critical_flaws, 0) end as n_critical_flaws,
        case when scored.null_reason is null then coalesce(scored.n_minor_flaws, 0) end as n_minor_flaws,
        case when scored.null_reason is null then coalesce(scored.n_invalid_flaws, 0) end as n_invalid_flaws,
        case when scored.null_reason is null then coalesce(scored.n_flaws_raised, 0) end as n_flaws_raised,
        -- flaws this review raised only by a quote judging.flaws could not place (kept: PRISM's rule)
        case when scored.null_reason is null then coalesce(scored.n_raises_unplaced, 0) end as n_raises_unplaced,
        case
            when scored.null_reason is null then coalesce(scored.n_pool_raises_unplaced, 0)
        end as n_pool_raises_unplaced,
        case when scored.null_reason is null then coalesce(scored.n_critical_found, 0) end as n_critical_found,
        case when scored.null_reason is null then coalesce(scored.n_minor_found, 0) end as n_minor_found,
        case when scored.null_reason is null then coalesce(scored.n_invalid_raised, 0) end as n_invalid_raised,
        case when scored.null_reason is null then coalesce(scored.n_mentions, 0) end as n_mentions,
        case when scored.null_reason is null then scored.n_pool_members end as n_pool_members,
        -- what a cap cut in the pool judgment (judging.flaws: over_max_flaws, over_max_raisers)
        case
            when scored.null_reason is null then coalesce(try_cast(scored.dropped ->> 'over_max_flaws' as integer), 0)
        end as n_flaws_over_cap,
        case
            when scored.null_reason is null then coalesce(try_cast(scored.dropped ->> 'over_max_raisers' as integer), 0)
        end as n_raisers_over_cap,
        case
            when scored.null_reason is null and scored.n_critical_flaws > 0 then
                coalesce(scored.n_critical_found, 0) / scored.n_critical_flaws
        end as recall_critical,
        case
            when scored.null_reason is null and scored.n_minor_flaws > 0 then
                coalesce(scored.n_minor_found, 0) / scored.n_minor_flaws
        end as recall_minor,
        case
            when scored.null_reason is null and scored.n_critical_flaws > 0 then
                coalesce(scored.critical_raisers_found, 0) / scored.critical_raisers
        end as recall_critical_weighted,
        case
            when scored.null_reason is null and scored.n_minor_flaws > 0 then
                coalesce(scored.minor_raisers_found, 0) / scored.minor_raisers
        end as recall_minor_weighted,
        case
            when scored.null_reason is null and scored.n_flaws_raised > 0 then
                scored.n_invalid_raised / scored.n_flaws_raised
        end as hallucination_rate,
        case when scored.null_reason is null and scored.is_ordered then coalesce(scored.cps, 0) end as cps,
        case when scored.null_reason is null and scored.is_ordered then coalesce(scored.icps, 0) end as icps,
        case
            when scored.null_reason is null and scored.is_ordered then coalesce(scored.cps / nullif(scored.icps, 0), 0)
        end as ncps,
        case
            when scored.null_reason is null and scored.is_ordered then coalesce(scored.cps_whole_review, 0)
        end as cps_whole_review,
        case
            when scored.null_reason is null and scored.is_ordered then coalesce(scored.icps_whole_review, 0)
        end as icps_whole_review,
        case
            when scored.null_reason is null and scored.is_ordered then
                coalesce(scored.cps_whole_review / nullif(scored.icps_whole_review, 0), 0)
        end as ncps_whole_review,
        case
            when scored.null_reason is null and scored.is_ordered then scored.cps / nullif(scored.icps, 0)
        end as ncps_null_when_none,
        case
            when scored.null_reason is not null then scored.null_reason
            when scored.order_judgment_id is null then 'order_not_judged'
            when scored.order_status != 'ok' then coalesce(scored.order_null_reason, 'status:' || scored.order_status)
        end as ncps_null_reason

    from scored
    left join review_keys on scored.review_key = review_keys.review_key

),

prism as (

    select * exclude (quote_rule) from final
    where quote_rule = 'prism'

),

verbatim as (

    select * from final
    where quote_rule = 'verbatim'

)

select
    prism.*,
    verbatim.n_critical_flaws as n_critical_flaws_verbatim,
    verbatim.n_minor_flaws as n_minor_flaws_verbatim,
    verbatim.n_flaws_raised as n_flaws_raised_verbatim,
    verbatim.recall_critical as recall_critical_verbatim,
    verbatim.recall_minor as recall_minor_verbatim,
    verbatim.recall_critical_weighted as recall_critical_weighted_verbatim,
    verbatim.recall_minor_weighted as recall_minor_weighted_verbatim,
    verbatim.hallucination_rate as hallucination_rate_verbatim,
    verbatim.n_mentions as n_mentions_verbatim,
    verbatim.ncps as ncps_verbatim,
    -- the system under test: a human review is scored once per pool, against that pool's system
    case when prism.source = 'human' then 'human' else prism.pool_system end as system
from prism
inner join verbatim on prism.flaws_repeat_id = verbatim.flaws_repeat_id
