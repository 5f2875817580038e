-- One row per (study, judge configuration, repeat, human reference span) of a review the judge read
-- that far: the human's label beside the judge's. The judge's label is its unit's value of the span's
-- dimension (e.g. role) for the unit with the highest character IoU with the span, at least
-- var('span_match_iou') (default 0.5, as quality_judge_validation); 'none' when no unit matches.
-- Span items are of judges whose units carry their extent (start + text: the depth judge); the items of
-- the novelty, constructiveness and flaw judges, matched by text, are int_judge_card_text_items, unioned
-- here. label_mapping(_sha256): the mapping that made the human label (null: the dataset's own). This is
-- the (human, judge) pair table of judge_cards and of prediction-powered comparisons.
-- DISAPERE's aspect is compared only with a depth judge on prism-reference (its mapping's taxonomy; the
-- default). A depth span a person entered in the browser (datasets entered_*) is compared with the judges of
-- that study only, and only where the judge read the text the span indexes (the hash its judgment recorded):
-- one row per (judged review, repeat, person's span), item_id the span's item (shared by two people who
-- chose the same offsets, so the ceiling sets them side by side). An entered aspect is compared only with
-- configurations on the taxonomy of the one whose judgment was labelled (the aspects the person chose from).
with

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
        -- the judge read a prefix of long reviews: a span starting beyond it could not be found
        coalesce(cast(inputs ->> 'chars_judged' as integer), cast(inputs ->> 'chars' as integer)) as chars_judged,
        inputs ->> 'text_sha256' as text_sha256,
        coalesce(inputs ->> 'depth_taxonomy', 'prism-reference') as depth_taxonomy

    from {{ ref('int_judged_reviews') }}
    where is_judged and null_reason is null

),

unit_rows as (

    select
        judged_review_id,
        unnest(from_json(units, '["JSON"]')) as unit

    from judged

),

unit_spans as (

    select
        judged_review_id,
        unit,
        cast(unit ->> 'start' as integer) as unit_start,
        cast(unit ->> 'start' as integer) + length(unit ->> 'text') as unit_end

    from unit_rows
    where unit ->> 'start' is not null and unit ->> 'text' is not null

),

config_taxonomies as (

    select distinct
        judge_config,
        depth_taxonomy

    from judged

),

spanned as (

    select distinct judged.judge_config
    from judged
    inner join unit_spans on judged.judged_review_id = unit_spans.judged_review_id

),

reference as (

    -- the adjudicated spans, and each span a person entered for depth (no adjudication: each is compared)
    select * from {{ ref('int_judge_card_human_spans') }}
    where annotator is null or (study_id is not null and judge = 'depth')

),

items as (

    select
        judged.judged_review_id,
        judged.study_id,
        judged.judge,
        judged.judge_config,
        judged.judge_provider,
        judged.judge_model,
        judged.repeat_index,
        reference.dataset,
        reference.dimension,
        judged.review_key,
        reference.human_span_id as span_id,
        coalesce(reference.item_id, reference.human_span_id) as item_id,
        reference.label as human_label,
        reference.span_start,
        reference.span_end,
        reference.label_mapping,
        reference.label_mapping_sha256

    from judged
    inner join reference
        on
            judged.review_key = reference.review_key
            and (
                reference.study_id is null
                or (
                    judged.study_id = reference.study_id
                    and judged.judge = reference.judge
                    and judged.text_sha256 = reference.text_sha256
                )
            )
    left join config_taxonomies as labelled on reference.judge_config = labelled.judge_config
    where
        judged.judge_config in (select spanned.judge_config from spanned)
        and (judged.chars_judged is null or reference.span_start < judged.chars_judged)
        and not (
            reference.dataset = 'disapere' and reference.dimension = 'aspect'
            and judged.depth_taxonomy != 'prism-reference'
        )
        and (
            reference.study_id is null or reference.dimension != 'aspect'
            or judged.depth_taxonomy = labelled.depth_taxonomy
        )

),

matched_overlaps as (

    select
        items.judged_review_id,
        items.span_id,
        json_extract_string(unit_spans.unit, '$.' || items.dimension) as unit_label,
        (least(unit_spans.unit_end, items.span_end) - greatest(unit_spans.unit_start, items.span_start))
        / (
            (unit_spans.unit_end - unit_spans.unit_start) + (items.span_end - items.span_start)
            - (least(unit_spans.unit_end, items.span_end) - greatest(unit_spans.unit_start, items.span_start))
        ) as iou,
        unit_spans.unit_start

    from items
    inner join unit_spans
        on
            items.judged_review_id = unit_spans.judged_review_id
            and items.span_end > unit_spans.unit_start
            and items.span_start < unit_spans.unit_end

),

best as (

    select *
    from matched_overlaps
    where iou >= {{ var('span_match_iou', 0.5) }}
    qualify row_number() over (
        partition by judged_review_id, span_id order by iou desc, unit_start asc
    ) = 1

),

final as (

    select
        concat_ws('|', items.judged_review_id, items.span_id) as judge_card_item_id,
        items.study_id,
        items.judge,
        items.judge_config,
        items.judge_provider,
        items.judge_model,
        items.repeat_index,
        items.dataset,
        items.dimension,
        items.review_key,
        items.item_id,
        items.human_label,
        coalesce(best.unit_label, 'none') as judge_label,
        best.iou as match_iou,
        items.label_mapping,
        items.label_mapping_sha256

    from items
    left join best on items.judged_review_id = best.judged_review_id and items.span_id = best.span_id

    union all

    select * from {{ ref('int_judge_card_text_items') }}

)

select * from final
