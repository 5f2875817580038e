-- One row per paper version with venue, status, human mean rating and layout counts
-- (see int_papers_described), the hidden records the visibility check flagged (null: ingested before
-- the check) and, for an experiment's variant, the paper it was made from and how.
with

papers as (

    select * from {{ ref('int_papers_described') }}

),

ingested as (

    select
        paper_ingested_id,
        n_hidden_records
    from {{ ref('stg_events__papers') }}

),

variants as (

    select
        variant_id,
        base_paper_id,
        variant_kind
    from {{ ref('stg_events__paper_variants') }}
    where is_built
    qualify row_number() over (partition by variant_id order by recorded_at desc, paper_variant_id desc) = 1

)

select
    papers.*,
    ingested.n_hidden_records,
    variants.base_paper_id,
    variants.variant_kind

from papers
left join ingested on papers.paper_version_id = ingested.paper_ingested_id
left join variants on papers.paper_id = variants.variant_id
