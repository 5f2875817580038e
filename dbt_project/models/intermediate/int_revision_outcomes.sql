-- One row per (study, paper, Writer/Selector condition) of the revision crossover: the outcomes the
-- study's newest `revision_manuscripts` run used (its study_resolved event names their keys), so a
-- changed setting's new outcomes replace the old instead of mixing with them.
with

outcomes as (

    select * from {{ ref('stg_events__revision_outcomes') }}

),

newest_runs as (

    select
        study_id,
        judges
    from {{ ref('int_revision_runs') }}
    where resolved_by_asset = 'revision_manuscripts'

),

used_keys as (

    select
        study_id,
        unnest(from_json(judges -> 0 -> 'outcome_keys', '["VARCHAR"]')) as outcome_key
    from newest_runs

),

papers as (

    select * from {{ ref('int_paper_context') }}

),

decided as (

    select outcomes.*
    from outcomes
    inner join used_keys
        on outcomes.study_id = used_keys.study_id and outcomes.outcome_key = used_keys.outcome_key

),

diff_rows as (

    select
        outcome_key,
        unnest(  -- noqa: AL03
            from_json(diffs, '[{"diff_id": "VARCHAR", "accepted": "BOOLEAN"}]'), recursive := true
        )
    from decided

),

diff_lists as (

    -- an outcome without diffs has no row here: its lists are empty (coalesced below)
    select
        outcome_key,
        list(diff_id order by diff_id) as candidate_diff_ids,
        list(diff_id order by diff_id) filter (where accepted) as accepted_diff_ids
    from diff_rows
    group by outcome_key

),

final as (

    select
        decided.study_id || '|' || decided.paper_id || '|' || decided.writer || decided.selector
            as revision_outcome_row_id,
        decided.study_id,
        decided.paper_id,
        coalesce(papers.venue_year, 'unknown') as venue_year,
        decided.writer,
        decided.selector,
        decided.writer || decided.selector as condition,
        decided.writer_model,
        decided.selector_model,
        decided.spec_id,
        decided.status,
        decided.blocked_reason,
        decided.n_candidates,
        decided.n_accepted,
        decided.n_reasons_truncated,
        coalesce(diff_lists.accepted_diff_ids, cast([] as varchar[])) as accepted_diff_ids,
        coalesce(diff_lists.candidate_diff_ids, cast([] as varchar[])) as candidate_diff_ids,
        decided.diffs as diffs_json,
        decided.checks as checks_json,
        decided.n_image_entries,
        decided.n_images_rehashed,
        decided.final_paper_id,
        -- A final the Selector left unchanged (nothing accepted): how its gain is measured. zero_noise =
        -- the final is the original itself (its gain is 0, no noise); rescore = a version of its own,
        -- scored in new sessions ([revision] unchanged_final; the outcome's final id says which).
        case
            when decided.status <> 'ok' or decided.n_accepted > 0 then null
            when decided.final_paper_id = decided.paper_id then 'zero_noise'
            else 'rescore'
        end as unchanged_final,
        decided.writer_request_key,
        decided.selector_request_key,
        decided.feedback_request_key,
        decided.outcome_key,
        decided.revision_outcome_id

    from decided
    left join diff_lists on decided.outcome_key = diff_lists.outcome_key
    left join papers on decided.paper_id = papers.paper_id

)

select * from final
