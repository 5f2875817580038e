-- One row per paper_variant event: a manuscript made from another for an experiment (a
-- contradiction inserted, hidden text injected), built or not. Rename and cast only.
with

source as (

    select * from {{ source('events', 'paper_variant') }}

),

renamed as (

    select
        cast(event_id as varchar) as paper_variant_id,
        cast(occurred_at as timestamptz) as recorded_at,
        cast(schema_version as integer) as schema_version,
        cast(variant_key as varchar) as variant_key,
        cast(variant_id as varchar) as variant_id,
        cast(kind as varchar) as variant_kind,
        cast(base_paper_id as varchar) as base_paper_id,
        cast(base_package_sha256 as varchar) as base_package_sha256,
        cast(experiment_config as varchar) as experiment_config,
        cast(built as boolean) as is_built,
        cast(reason as varchar) as not_built_reason,
        cast(pdf_sha256 as varchar) as pdf_sha256,
        cast(package_sha256 as varchar) as package_sha256,
        cast(details_json as json) as details,
        cast(judgment_keys_json as json) as judgment_keys,
        cast(request_keys_json as json) as request_keys,
        -- the study whose run built it: a label only, variants are shared between studies
        cast(study as varchar) as recorded_for_study

    from source

)

select * from renamed
