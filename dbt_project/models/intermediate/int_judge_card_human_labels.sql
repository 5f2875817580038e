-- One row per (label row of a human-labelled dataset, judge dimension) a judge card compares a judge
-- with: DISAPERE sentences (depth role; novelty stance of originality sentences), RevUtil comments
-- (constructiveness actionability, specificity, justification, tone) and ReviewCritique segments (flaw
-- validity), each the judge's label under the dataset's label mapping. Only the mapping of each dataset's
-- newest import counts (a re-import under an edited mapping writes rows beside the old ones: one card
-- never mixes two mappings), and per (item, person) the newest row. is_reference: the dataset's own final
-- label (DISAPERE final_dataset, RevUtil's majority, ReviewCritique's experts); annotator: the person, null
-- for an aggregate. A label that maps to nothing is no row.
with

disapere as (

    select * from {{ ref('stg_events__disapere_labels') }}

),

revutil as (

    select * from {{ ref('stg_events__revutil_labels') }}

),

reviewcritique as (

    select * from {{ ref('stg_events__reviewcritique_labels') }}

),

revutil_dimensions as (

    select dimensions.dimension
    from (values ('actionability'), ('specificity'), ('justification'), ('tone')) as dimensions (dimension)

),

revutil_long as (

    select
        revutil.*,
        revutil_dimensions.dimension,
        case revutil_dimensions.dimension
            when 'actionability' then revutil.actionability
            when 'specificity' then revutil.specificity
            when 'justification' then revutil.justification
            when 'tone' then revutil.tone_professional
        end as rating

    from revutil
    cross join revutil_dimensions

),

long as (

    -- role: a sentence that is no argument unit is 'none', as the depth judge's 'none' (no unit there)
    select
        human_label_id,
        imported_at,
        'disapere' as dataset,
        'depth' as judge,
        'role' as dimension,
        item_key,
        review_key,
        annotator,
        is_reference,
        sentence_text as item_text,
        judged_start,
        judged_end,
        case when is_argument_unit then depth_role else 'none' end as label,
        label_mapping,
        label_mapping_sha256
    from disapere
    where is_argument_unit is not null and (depth_role is not null or not is_argument_unit)

    union all

    select
        human_label_id,
        imported_at,
        'disapere' as dataset,
        'novelty' as judge,
        'stance' as dimension,
        item_key,
        review_key,
        annotator,
        is_reference,
        sentence_text as item_text,
        judged_start,
        judged_end,
        novelty_stance as label,
        label_mapping,
        label_mapping_sha256
    from disapere
    where novelty_stance is not null

    union all

    select
        human_label_id,
        imported_at,
        'revutil' as dataset,
        'constructiveness' as judge,
        dimension,
        item_key,
        review_key,
        annotator,
        is_reference,
        comment_text as item_text,
        judged_start,
        judged_end,
        cast(rating as varchar) as label,
        label_mapping,
        label_mapping_sha256
    from revutil_long
    where rating is not null

    union all

    select
        human_label_id,
        imported_at,
        'reviewcritique' as dataset,
        'flaws' as judge,
        'validity' as dimension,
        item_key,
        review_key,
        cast(null as varchar) as annotator,
        is_reference,
        segment_text as item_text,
        judged_start,
        judged_end,
        case when is_valid_flaw then 'valid' else 'invalid' end as label,
        label_mapping,
        label_mapping_sha256
    from reviewcritique
    where is_valid_flaw is not null

),

newest_mapping as (

    select
        dataset,
        arg_max(label_mapping_sha256, imported_at) as label_mapping_sha256

    from long
    group by dataset

),

final as (

    select
        concat_ws('|', long.human_label_id, long.dimension) as human_label_row_id,
        long.dataset,
        long.judge,
        long.dimension,
        -- the item, the same for every person who labelled it
        concat_ws(':', long.dataset, long.item_key) as item_id,
        long.item_key,
        long.review_key,
        long.annotator,
        long.is_reference,
        long.item_text,
        long.judged_start,
        long.judged_end,
        long.label,
        long.label_mapping,
        long.label_mapping_sha256,
        long.imported_at

    from long
    inner join newest_mapping
        on long.dataset = newest_mapping.dataset and long.label_mapping_sha256 = newest_mapping.label_mapping_sha256
    qualify row_number() over (
        partition by long.dataset, long.dimension, long.item_key, long.is_reference, coalesce(long.annotator, '')
        order by long.imported_at desc, long.human_label_id desc
    ) = 1

)

select * from final
