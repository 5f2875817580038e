-- One row per hidden_text variant (the newest paper_variant event per variant key): the method, where
-- the text went, whether it reached the variant's package and whether the visibility check flagged it
-- (details_json keys: ingest.hidden_text), and the variant's flagged records as ingest counted them.
with

variants as (

    select * from {{ ref('stg_events__paper_variants') }}
    where variant_kind = 'hidden_text'
    qualify row_number() over (partition by variant_key order by recorded_at desc, paper_variant_id desc) = 1

),

ingested as (

    select
        paper_id,
        n_hidden_records
    from {{ ref('stg_events__papers') }}
    qualify row_number() over (partition by paper_id order by ingested_at desc, paper_ingested_id desc) = 1

),

final as (

    select
        variants.variant_key,
        variants.variant_id,
        variants.base_paper_id,
        variants.experiment_config,
        variants.details ->> 'method' as method,
        variants.details ->> 'anchor' as anchor,
        try_cast(variants.details ->> 'page' as integer) as page,
        try_cast(variants.details ->> 'font_pt' as double) as font_pt,
        variants.is_built,
        variants.not_built_reason,
        try_cast(variants.details ->> 'in_package' as boolean) as is_in_package,
        try_cast(variants.details ->> 'detector_flagged' as boolean) as is_detector_flagged,
        try_cast(variants.details ->> 'n_flagged' as integer) as n_flagged,
        try_cast(variants.details ->> 'n_flagged_not_injected' as integer) as n_flagged_not_injected,
        ingested.n_hidden_records

    from variants
    left join ingested on variants.variant_id = ingested.paper_id

)

select * from final
