-- One row per (study, flaws judge configuration, pool, review): the reviews a pool's scores are for.
-- Expected from the study (its flaws review keys of the pool's paper that are human, or the one review
-- of the pool's system in the pool's sample slot), plus any member a pool judgment recorded, so a review
-- the judge left out still shows up. A system review's slot is its sample index, "<index>-<k>" for the
-- k-th other review (by review key) of the system and paper sharing that index, as judging.flaws.pools
-- ranks them.
with

pools as (

    select * from {{ ref('int_judged_pools') }}

),

review_scopes as (

    select * from {{ ref('int_judging_scopes') }}
    where subject_kind = 'review' and judge = 'flaws'

),

review_keys as (

    select * from {{ ref('int_judging_review_keys') }}

),

pool_scopes as (

    select distinct
        study_id,
        judge_config,
        pool_key,
        pool_paper_id,
        pool_system,
        pool_sample

    from pools

),

scoped_reviews as (

    select
        review_scopes.study_id,
        review_scopes.judge_config,
        review_keys.review_key,
        review_keys.paper_id,
        review_keys.source,
        review_keys.system,
        coalesce(review_keys.sample_index, 0) as sample_index,
        row_number() over (
            partition by
                review_scopes.study_id, review_scopes.judge_config, review_keys.paper_id, review_keys.source = 'human',
                review_keys.system, coalesce(review_keys.sample_index, 0)
            order by review_keys.review_key
        ) - 1 as slot_rank

    from review_scopes
    inner join review_keys on review_scopes.subject_key = review_keys.review_key

),

slotted_reviews as (

    select
        *,
        case
            when source != 'human' then
                cast(sample_index as varchar) || case when slot_rank > 0 then '-' || slot_rank else '' end
        end as pool_sample

    from scoped_reviews

),

expected as (

    select
        pool_scopes.* exclude (pool_sample),  -- noqa: RF02
        slotted_reviews.review_key

    from pool_scopes
    inner join slotted_reviews
        on
            pool_scopes.study_id = slotted_reviews.study_id
            and pool_scopes.judge_config = slotted_reviews.judge_config
            and pool_scopes.pool_paper_id = slotted_reviews.paper_id
            and (
                slotted_reviews.source = 'human'
                or (
                    pool_scopes.pool_system = slotted_reviews.system
                    -- a key without a sample (older runs) holds every review of its system
                    and (pool_scopes.pool_sample is null or pool_scopes.pool_sample = slotted_reviews.pool_sample)
                )
            )

),

recorded as (

    -- distinct over an unnest in the same select drops rows on DuckDB 2.0.1 (a pool of members a, b kept only
    -- a): the unnest runs in a subquery, the distinct over its rows
    select distinct *
    from (
        select
            study_id,
            judge_config,
            pool_key,
            pool_paper_id,
            pool_system,
            unnest(  -- noqa: AL03
                from_json(units, '[{"kind": "VARCHAR", "review_key": "VARCHAR"}]'), recursive := true
            )

        from pools
        where null_reason is null
    ) as members

),

final as (

    select
        study_id,
        judge_config,
        pool_key,
        pool_paper_id,
        pool_system,
        review_key

    from expected
    union
    select
        study_id,
        judge_config,
        pool_key,
        pool_paper_id,
        pool_system,
        review_key

    from recorded
    where kind = 'member' and review_key is not null

)

select
    concat_ws('|', study_id, judge_config, pool_key, review_key) as pool_member_id,
    *
from final
