-- One row per (study, judge configuration, repeat, human-labelled item, dimension) of the judges whose
-- units carry text but no offsets, the item found in a review the judge read: the people's reference
-- label (int_judge_card_human_labels, is_reference) beside the judge's label of the same item.
--   novelty (DISAPERE originality sentences): the stance of the judge's first claim (claim order) whose
--     text holds the sentence or lies in it; 'none' when no claim does.
--   constructiveness (RevUtil comments): the rating of the judge's first comment (comment order) whose
--     anchor quote lies in the comment or holds it; tone read as the mapping's judge_values (0 → 0,
--     1 and 2 → 1); 'none' (no value on the ordinal scale) when no comment's anchor is there.
--   flaws (ReviewCritique segments): the validity call of the flaw (lowest flaw number) one of whose
--     raises in the review quotes inside the segment or holds it; a segment no raise quotes is no item
--     (a validity call is only made of a raised criticism).
-- Texts are compared lower-cased with whitespace runs as one space. Depth's items are spans
-- (int_judge_card_items); int_judge_card_items unions these rows.
--   labels entered in the browser (`peerlake label`, datasets entered_*), each person's compared with each
--   judgment of the study by a configuration of that judge that read the same text (its recorded hash):
--   a novelty or constructiveness span, as above (the first claim holding it or lying in it, the first
--   comment whose anchor quote lies in it or holds it; tone on the judge's own 0-2); a whole review (any
--   judge, depth's role or aspect too), the label most of the judge's units carry on the dimension (on a
--   tie, the one its first unit of those carries), 'none' when no unit carries one. Depth's spans are
--   int_judge_card_items'. One row per (judgment, person's label); item_id the item, the same for two people.
--   A depth aspect only with configurations on the taxonomy of the one labelled (the aspects chosen from).
with

labels as (

    select * from {{ ref('int_judge_card_human_labels') }}
    where is_reference and judge in ('novelty', 'constructiveness', 'flaws')

),

reference as (

    select
        *,
        lower(regexp_replace(trim(item_text), '\s+', ' ', 'g')) as item_norm

    from labels

),

entered as (

    select
        *,
        lower(regexp_replace(trim(item_text), '\s+', ' ', 'g')) as item_norm

    from {{ ref('int_judge_card_human_labels') }}
    where study_id is not null and not (judge = 'depth' and judged_start is not null)

),

judged as (

    select
        judged_review_id,
        study_id,
        judge,
        judge_config,
        judge_provider,
        judge_model,
        review_key,
        repeat_index,
        units,
        coalesce(cast(inputs ->> 'chars_judged' as integer), cast(inputs ->> 'chars' as integer)) as chars_judged

    from {{ ref('int_judged_reviews') }}
    where is_judged and null_reason is null and judge in ('novelty', 'constructiveness')

),

claims as (

    select distinct
        judged_review_id,
        claim_index as unit_index,
        lower(regexp_replace(trim(claim_text), '\s+', ' ', 'g')) as unit_norm,
        stance

    from (
        select
            judged_review_id,
            unnest(  -- noqa: AL03
                from_json(units, '[{"claim_index": "INTEGER", "claim_text": "VARCHAR", "stance": "VARCHAR"}]'),
                recursive := true
            )
        from judged
        where judge = 'novelty'
    ) as claim_rows
    where claim_text is not null and trim(claim_text) != ''

),

comments as (

    select
        judged_review_id,
        comment_index as unit_index,
        lower(regexp_replace(trim(anchor_quote), '\s+', ' ', 'g')) as unit_norm,
        actionability,
        specificity,
        justification,
        tone

    from (
        select
            judged_review_id,
            unnest(  -- noqa: AL03
                from_json(
                    units,
                    '[{"comment_index": "INTEGER", "anchor_quote": "VARCHAR", "actionability": "INTEGER",
                       "specificity": "INTEGER", "justification": "INTEGER", "tone": "INTEGER"}]'
                ),
                recursive := true
            )
        from judged
        where judge = 'constructiveness'
    ) as comment_rows
    where anchor_quote is not null and trim(anchor_quote) != ''

),

review_items as (

    -- each reference item of a review the judge read that far, beside the judge's judgment of it
    select
        judged.judged_review_id as judged_id,
        judged.study_id,
        judged.judge,
        judged.judge_config,
        judged.judge_provider,
        judged.judge_model,
        judged.repeat_index,
        judged.review_key,
        reference.dataset,
        reference.dimension,
        reference.item_id,
        reference.item_norm,
        reference.label as human_label,
        reference.label_mapping,
        reference.label_mapping_sha256

    from judged
    inner join reference on judged.review_key = reference.review_key and judged.judge = reference.judge
    where judged.chars_judged is null or reference.judged_start is null or reference.judged_start < judged.chars_judged

),

novelty_matches as (

    select
        review_items.judged_id,
        review_items.item_id,
        review_items.dimension,
        claims.stance as judge_label

    from review_items
    inner join claims
        on
            review_items.judged_id = claims.judged_review_id
            and (
                contains(claims.unit_norm, review_items.item_norm)
                or contains(review_items.item_norm, claims.unit_norm)
            )
    where review_items.judge = 'novelty'
    qualify row_number() over (
        partition by review_items.judged_id, review_items.item_id, review_items.dimension order by claims.unit_index
    ) = 1

),

comment_matches as (

    select
        review_items.judged_id,
        review_items.item_id,
        review_items.dimension,
        cast(case review_items.dimension
            when 'actionability' then comments.actionability
            when 'specificity' then comments.specificity
            when 'justification' then comments.justification
            when 'tone' then least(comments.tone, 1)
        end as varchar) as judge_label

    from review_items
    inner join comments
        on
            review_items.judged_id = comments.judged_review_id
            and (
                contains(review_items.item_norm, comments.unit_norm)
                or contains(comments.unit_norm, review_items.item_norm)
            )
    where review_items.judge = 'constructiveness'
    qualify row_number() over (
        partition by review_items.judged_id, review_items.item_id, review_items.dimension order by comments.unit_index
    ) = 1

),

per_review as (

    select
        review_items.* exclude (item_norm),  -- noqa: RF02
        coalesce(novelty_matches.judge_label, comment_matches.judge_label, 'none') as judge_label

    from review_items
    left join novelty_matches
        on
            review_items.judged_id = novelty_matches.judged_id
            and review_items.item_id = novelty_matches.item_id
            and review_items.dimension = novelty_matches.dimension
    left join comment_matches
        on
            review_items.judged_id = comment_matches.judged_id
            and review_items.item_id = comment_matches.item_id
            and review_items.dimension = comment_matches.dimension

),

pools as (

    select * from {{ ref('int_judged_pools') }}
    where null_reason is null

),

raises as (

    select
        judged_pool_id,
        review_key,
        flaw_id,
        is_valid,
        lower(regexp_replace(trim(quote), '\s+', ' ', 'g')) as unit_norm

    from (
        select
            judged_pool_id,
            unnest(  -- noqa: AL03
                from_json(
                    units,
                    '[{"kind": "VARCHAR", "review_key": "VARCHAR", "flaw_id": "VARCHAR", "is_valid": "BOOLEAN",
                       "quote": "VARCHAR"}]'
                ),
                recursive := true
            )
        from pools
    ) as pool_rows
    where kind = 'raise' and quote is not null and trim(quote) != '' and is_valid is not null

),

flaw_items as (

    select
        pools.judged_pool_id as judged_id,
        pools.study_id,
        pools.judge,
        pools.judge_config,
        pools.judge_provider,
        pools.judge_model,
        pools.repeat_index,
        reference.review_key,
        reference.dataset,
        reference.dimension,
        reference.item_id,
        reference.label as human_label,
        reference.label_mapping,
        reference.label_mapping_sha256,
        case when raises.is_valid then 'valid' else 'invalid' end as judge_label

    from pools
    inner join raises on pools.judged_pool_id = raises.judged_pool_id
    inner join reference
        on
            raises.review_key = reference.review_key
            and reference.judge = 'flaws'
            and (contains(reference.item_norm, raises.unit_norm) or contains(raises.unit_norm, reference.item_norm))
    qualify row_number() over (
        partition by pools.judged_pool_id, reference.item_id, reference.dimension
        order by length(raises.flaw_id), raises.flaw_id
    ) = 1

),

entered_judged as (

    select
        judged_review_id,
        study_id,
        judge,
        judge_config,
        judge_provider,
        judge_model,
        review_key,
        repeat_index,
        units,
        inputs ->> 'text_sha256' as text_sha256,
        coalesce(cast(inputs ->> 'chars_judged' as integer), cast(inputs ->> 'chars' as integer)) as chars_judged,
        inputs ->> 'depth_taxonomy' as depth_taxonomy

    from {{ ref('int_judged_reviews') }}
    where is_judged and null_reason is null and judge in (select distinct entered.judge from entered)

),

entered_taxonomies as (

    select distinct
        judge_config,
        depth_taxonomy

    from entered_judged

),

entered_units as (

    select
        judged_review_id,
        unit_index,
        unit,
        lower(regexp_replace(trim(coalesce(unit ->> 'claim_text', unit ->> 'anchor_quote', '')), '\s+', ' ', 'g'))
            as unit_norm

    from (
        select
            judged_review_id,
            generate_subscripts(from_json(units, '["JSON"]'), 1) as unit_index,
            unnest(from_json(units, '["JSON"]')) as unit
        from entered_judged
    ) as unit_rows

),

entered_items as (

    select
        entered_judged.judged_review_id as judged_id,
        entered_judged.study_id,
        entered_judged.judge,
        entered_judged.judge_config,
        entered_judged.judge_provider,
        entered_judged.judge_model,
        entered_judged.repeat_index,
        entered_judged.review_key,
        entered.dataset,
        entered.dimension,
        entered.item_id,
        entered.annotator,
        entered.human_label_row_id,
        entered.item_norm,
        entered.item_text is null as is_whole,
        entered.label as human_label,
        entered.label_mapping,
        entered.label_mapping_sha256

    from entered_judged
    inner join entered
        on
            entered_judged.study_id = entered.study_id
            and entered_judged.judge = entered.judge
            and entered_judged.review_key = entered.review_key
            and entered_judged.text_sha256 = entered.text_sha256
    left join entered_taxonomies as labelled on entered.judge_config = labelled.judge_config
    where
        (
            entered.judged_start is null or entered_judged.chars_judged is null
            or entered.judged_start < entered_judged.chars_judged
        )
        and (
            entered.dimension != 'aspect'
            or coalesce(entered_judged.depth_taxonomy, '') = coalesce(labelled.depth_taxonomy, '')
        )

),

entered_span_matches as (

    select
        entered_items.judged_id,
        entered_items.human_label_row_id,
        json_extract_string(entered_units.unit, '$.' || entered_items.dimension) as judge_label

    from entered_items
    inner join entered_units
        on
            entered_items.judged_id = entered_units.judged_review_id
            and entered_units.unit_norm != ''
            and (
                contains(entered_units.unit_norm, entered_items.item_norm)
                or contains(entered_items.item_norm, entered_units.unit_norm)
            )
    where not entered_items.is_whole
    qualify row_number() over (
        partition by entered_items.judged_id, entered_items.human_label_row_id order by entered_units.unit_index
    ) = 1

),

entered_whole_counts as (

    select
        entered_items.judged_id,
        entered_items.human_label_row_id,
        json_extract_string(entered_units.unit, '$.' || entered_items.dimension) as judge_label,
        count(*) as n_units,
        min(entered_units.unit_index) as first_unit

    from entered_items
    inner join entered_units on entered_items.judged_id = entered_units.judged_review_id
    where
        entered_items.is_whole
        and json_extract_string(entered_units.unit, '$.' || entered_items.dimension) is not null
    group by 1, 2, 3

),

entered_whole_matches as (

    select
        judged_id,
        human_label_row_id,
        judge_label

    from entered_whole_counts
    qualify row_number() over (
        partition by judged_id, human_label_row_id order by n_units desc, first_unit asc
    ) = 1

),

entered_rows as (

    select
        entered_items.* exclude (human_label_row_id, item_norm, is_whole),  -- noqa: RF02
        coalesce(entered_span_matches.judge_label, entered_whole_matches.judge_label, 'none') as judge_label

    from entered_items
    left join entered_span_matches
        on
            entered_items.judged_id = entered_span_matches.judged_id
            and entered_items.human_label_row_id = entered_span_matches.human_label_row_id
    left join entered_whole_matches
        on
            entered_items.judged_id = entered_whole_matches.judged_id
            and entered_items.human_label_row_id = entered_whole_matches.human_label_row_id

),

unioned as (

    select * from per_review
    union all by name
    select * from flaw_items
    union all by name
    select * from entered_rows

),

final as (

    select
        -- a person's label of an item two people labelled is its own row (annotator: null on the others)
        concat_ws('|', judged_id, item_id, dimension, annotator) as judge_card_item_id,
        study_id,
        judge,
        judge_config,
        judge_provider,
        judge_model,
        repeat_index,
        dataset,
        dimension,
        review_key,
        item_id,
        human_label,
        judge_label,
        cast(null as double) as match_iou,
        label_mapping,
        label_mapping_sha256

    from unioned

)

select * from final
