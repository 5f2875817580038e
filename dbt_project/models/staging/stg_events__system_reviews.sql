-- One row per system_review event: the normalized review a reviewer system produced for one
-- (paper, sample), or null with a reason. Rename and cast only.
with

source as (

    select * from {{ source('events', 'system_review') }}

),

renamed as (

    select
        cast(event_id as varchar) as system_review_id,
        cast(occurred_at as timestamptz) as recorded_at,
        cast(schema_version as integer) as schema_version,
        cast(review_key as varchar) as review_key,
        cast(system as varchar) as system_name,
        cast(system_config as varchar) as system_config,
        cast(system_version as integer) as system_version,
        cast(paper_id as varchar) as paper_id,
        cast(package_sha256 as varchar) as package_sha256,
        cast(sample_index as integer) as sample_index,
        cast(provider as varchar) as provider,
        cast(model as varchar) as model,
        cast(status as varchar) as status,
        cast(null_reason as varchar) as null_reason,
        cast(review_json as json) as review,
        cast(score as double) as score,
        cast(score_scale as varchar) as score_scale,
        cast(confidence as double) as confidence,
        cast(calls_json as json) as calls,
        cast(options_json as json) as options,
        -- the study whose run recorded it: a label only, reviews are shared between studies
        cast(study as varchar) as recorded_for_study,
        status = 'ok' as is_ok

    from source

)

select * from renamed
