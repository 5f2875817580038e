-- One row per (label row of a human-labelled dataset, judge dimension) a judge card compares a judge
-- with: DISAPERE sentences (depth role and aspect; novelty stance of originality sentences), RevUtil comments
-- (constructiveness actionability, specificity, justification, tone) and ReviewCritique segments (flaw
-- validity), each the judge's label under the dataset's label mapping. Only the mapping of each dataset's
-- newest import counts (a re-import under an edited mapping writes rows beside the old ones: one card
-- never mixes two mappings), and per (item, person) the newest row. is_reference: the dataset's own final
-- label (DISAPERE final_dataset, RevUtil's majority, ReviewCritique's experts); annotator: the person, null
-- for an aggregate. A label that maps to nothing is no row. DISAPERE's aspects are depth's aspect on the
-- prism-reference taxonomy (the mapping's [dimensions.aspect]); a sentence that is no argument unit is
-- aspect 'none', as for role, and an argument unit with no aspect is not compared.
--
-- Labels entered in the browser (`peerlake label STUDY`, stg_events__entered_labels) are rows too, of
-- dataset entered_blind or entered_judge_shown (a person who saw the judge's labels may lean on them: their
-- agreement is never pooled with blind labels), with the study they were entered in (study_id: they reach
-- only its cards), the judged text's hash, and no mapping (the label is the judge's own choice). The newest
-- label per (study, judge, review, dimension, person) counts: a person may relabel. A whole-review label's
-- item_id is the review's, the same for every person; a span's is the review's and its offsets, so two
-- people who chose the same span label the same item. is_reference is false: each person is compared.
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

entered as (

    select * from {{ ref('stg_events__entered_labels') }}
    qualify row_number() over (
        partition by study_id, judge, item_key, dimension, annotator order by entered_at desc, entered_label_id desc
    ) = 1

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
        'depth' as judge,
        'aspect' as dimension,
        item_key,
        review_key,
        annotator,
        is_reference,
        sentence_text as item_text,
        judged_start,
        judged_end,
        case when is_argument_unit then depth_aspect else 'none' end as label,
        label_mapping,
        label_mapping_sha256
    from disapere
    where is_argument_unit is not null and (depth_aspect is not null or not is_argument_unit)

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
        long.imported_at,
        cast(null as varchar) as study_id,
        cast(null as varchar) as judge_config,
        cast(null as varchar) as text_sha256,
        cast(null as boolean) as is_judge_shown

    from long
    inner join newest_mapping
        on long.dataset = newest_mapping.dataset and long.label_mapping_sha256 = newest_mapping.label_mapping_sha256
    qualify row_number() over (
        partition by long.dataset, long.dimension, long.item_key, long.is_reference, coalesce(long.annotator, '')
        order by long.imported_at desc, long.human_label_id desc
    ) = 1

),

entered_rows as (

    select
        concat_ws('|', entered_label_id, dimension) as human_label_row_id,
        case when is_judge_shown then 'entered_judge_shown' else 'entered_blind' end as dataset,
        judge,
        dimension,
        item_key,
        review_key,
        annotator,
        false as is_reference,
        span_text as item_text,
        judged_start,
        judged_end,
        label,
        entered_at,
        study_id,
        judge_config,
        text_sha256,
        is_judge_shown

    from entered

),

unioned as (

    select * from final

    union all

    select
        human_label_row_id,
        dataset,
        judge,
        dimension,
        concat_ws(':', dataset, study_id, judge, item_key)
        || case when judged_start is null then '' else '@' || judged_start || '-' || judged_end end as item_id,
        item_key,
        review_key,
        annotator,
        is_reference,
        item_text,
        judged_start,
        judged_end,
        label,
        cast(null as varchar) as label_mapping,
        cast(null as varchar) as label_mapping_sha256,
        entered_at as imported_at,
        study_id,
        judge_config,
        text_sha256,
        is_judge_shown

    from entered_rows

)

select * from unioned
