-- The newest resolution of each study per asset that resolved it (reviews, decimal reviews,
-- probes): a study that was edited or re-run is measured as it stands now.
with

studies as (

    select * from {{ ref('stg_events__studies') }}

),

final as (

    select *
    from studies
    qualify row_number() over (
        partition by study_id, resolved_by_asset
        order by resolved_at desc, study_resolved_id desc
    ) = 1

)

select * from final
