-- One row per (study, flaws judge configuration, pool, review): the reviews a pool's scores are for.
-- Expected from the study (its flaws review keys of the pool's paper that are human or by the pool's
-- system), plus any member a pool judgment recorded, so a review the judge left out still shows up.
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
        pool_system

    from pools

),

expected as (

    select
        pool_scopes.*,
        review_scopes.subject_key as review_key

    from pool_scopes
    inner join review_scopes
        on
            pool_scopes.study_id = review_scopes.study_id
            and pool_scopes.judge_config = review_scopes.judge_config
    inner join review_keys
        on
            review_scopes.subject_key = review_keys.review_key
            and pool_scopes.pool_paper_id = review_keys.paper_id
            and (review_keys.source = 'human' or pool_scopes.pool_system = review_keys.system)

),

recorded as (

    select distinct
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
