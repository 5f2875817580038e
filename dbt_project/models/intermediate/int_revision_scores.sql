-- One row per Scorer score a revision cell uses: for every cell and every paper whose outcome is ok,
-- the Scorer's `repeats` standard reviews of the original (shared by all the Scorer's cells) and of
-- the final manuscript. Scores come from int_ai_reviews_parsed (the standard review's parser), so a
-- review that did not parse has a null score and the paper is incomplete for that cell.
-- One review per slot: a paper re-ingested (a new package under the same id) or a final scored before
-- its reviews had sessions of their own leaves older reviews with the same paper, configuration and
-- sample; the newest review event fills the slot (the crossover always reads the newest version).
with

cells as (

    select * from {{ ref('int_revision_cells') }}

),

outcomes as (

    select * from {{ ref('int_revision_outcomes') }}
    where status = 'ok'

),

reviews as (

    select * from {{ ref('int_ai_reviews_parsed') }}

),

sides as (

    select unnest(['original', 'final']) as side

),

samples as (

    select unnest(range(coalesce(max(repeats), 0))) as sample_index
    from cells

),

slots as (

    select
        cells.study_id,
        cells.cell,
        cells.writer,
        cells.selector,
        cells.scorer,
        cells.condition,
        cells.scorer_model,
        cells.scorer_config,
        cells.repeats,
        outcomes.paper_id,
        outcomes.final_paper_id,
        outcomes.unchanged_final,
        outcomes.venue_year,
        sides.side,
        case when sides.side = 'original' then outcomes.paper_id else outcomes.final_paper_id end
            as scored_paper_id,
        samples.sample_index
    from cells
    inner join outcomes
        on cells.study_id = outcomes.study_id and cells.condition = outcomes.condition
    cross join sides
    inner join samples on cells.repeats > samples.sample_index

),

final as (

    select
        slots.study_id || '|' || slots.cell || '|' || slots.paper_id || '|' || slots.side || '|'
        || slots.sample_index as revision_score_id,
        slots.study_id,
        slots.cell,
        slots.writer,
        slots.selector,
        slots.scorer,
        slots.condition,
        slots.scorer_model,
        slots.scorer_config,
        slots.paper_id,
        slots.final_paper_id,
        slots.unchanged_final,
        slots.venue_year,
        slots.side,
        slots.sample_index,
        slots.repeats,
        cast(reviews.overall_score as integer) as score,
        reviews.request_key,
        reviews.llm_call_id
    from slots
    left join reviews
        on
            slots.scored_paper_id = reviews.paper_id
            and slots.scorer_config = reviews.reviewer_config
            and slots.sample_index = reviews.sample_index
    qualify row_number() over (
        partition by slots.study_id, slots.cell, slots.paper_id, slots.side, slots.sample_index
        order by reviews.occurred_at desc nulls last, reviews.llm_call_id desc nulls last
    ) = 1

)

select * from final
