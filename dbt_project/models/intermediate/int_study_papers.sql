-- One row per (study, paper): the papers a study covers, from its newest resolution. The asset that
-- reviews (ai_reviews) speaks for the paper set; the others resolve the same set in the same run.
with

studies as (

    select * from {{ ref('int_studies_latest') }}

),

newest as (

    select *
    from studies
    qualify row_number() over (
        partition by study_id order by resolved_at desc, study_resolved_id desc
    ) = 1

),

final as (

    select distinct
        study_id,
        unnest(from_json(paper_ids, '["VARCHAR"]')) as paper_id

    from newest

)

select
    study_id || '|' || paper_id as study_paper_id,
    *
from final
