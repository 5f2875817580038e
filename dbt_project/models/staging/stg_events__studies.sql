-- One row per study_resolved event: which papers and reviewers a study covered when it ran.
with

source as (

    select * from {{ source('events', 'study_resolved') }}

),

renamed as (

    select
        cast(event_id as varchar) as study_resolved_id,
        cast(occurred_at as timestamptz) as resolved_at,
        cast(schema_version as integer) as schema_version,
        cast(study_id as varchar) as study_id,
        cast(study_sha256 as varchar) as study_sha256,
        cast(asset as varchar) as resolved_by_asset,
        cast(paper_source as varchar) as paper_source,
        cast(paper_ids_json as json) as paper_ids,
        cast(reviewers_json as json) as reviewers,
        cast(external_systems_json as json) as external_systems,
        -- v2: the judges a judgments asset ran ([] for every other asset and for v1 events)
        cast(coalesce(judges_json, '[]') as json) as judges

    from source

)

select * from renamed
