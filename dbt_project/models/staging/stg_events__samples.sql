-- One row per sample_drawn event: who drew which papers, when, with what seed and quotas.
with

source as (

    select * from {{ source('events', 'sample_drawn') }}

),

renamed as (

    select
        cast(sample_id as varchar) as sample_id,
        cast(event_id as varchar) as sample_drawn_id,
        cast(occurred_at as timestamptz) as drawn_at,
        cast(schema_version as integer) as schema_version,
        cast(drawn_by as varchar) as drawn_by,
        cast(seed as bigint) as seed,
        cast(strata as varchar) as strata,
        cast(size as integer) as sample_size,
        cast(venue as varchar) as venue,
        cast(parent_sample_id as varchar) as parent_sample_id,
        cast(quotas_json as json) as quotas,
        cast(paper_ids_json as json) as paper_ids

    from source

)

select * from renamed
