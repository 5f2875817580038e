-- One row per (study, revision asset): the newest study_resolved event of revision_manuscripts (the
-- outcome keys it used) and of revision_scores (the cells it scored). The revision models scope by it,
-- so a changed setting's new run replaces the old instead of mixing with it.
with

studies as (

    select * from {{ ref('stg_events__studies') }}

),

final as (

    select
        study_id || '|' || resolved_by_asset as revision_run_id,
        study_id,
        resolved_by_asset,
        judges,
        resolved_at
    from studies
    where resolved_by_asset in ('revision_manuscripts', 'revision_scores')
    qualify row_number() over (
        partition by study_id, resolved_by_asset order by resolved_at desc, study_resolved_id desc
    ) = 1

)

select * from final
