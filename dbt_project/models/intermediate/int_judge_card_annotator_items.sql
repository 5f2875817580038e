-- One row per (human reference span, another annotator of the same review): that annotator's label
-- of the span, the label of their own span with the highest character IoU with it (at least
-- var('span_match_iou')), else 'none'. The annotators' agreement on these is the human ceiling a
-- judge card puts beside the judge's agreement (SubstanReview's annotation_IAA files). The items of the
-- text-matched judges (int_judge_card_text_items: DISAPERE stance, RevUtil ratings) are the same item
-- for every person, so each person's own label of a reference item is theirs (no matching needed). A
-- DISAPERE annotator who labelled the sentence but not as an originality statement has stance 'none',
-- as the judge with no claim there has: the ceiling is not only over the sentences both people saw as
-- originality statements.
-- Labels entered in the browser (datasets entered_*) have no reference: a whole review's item is each
-- person's own label of it; a span's item (its offsets) is, for each person who entered a span in that
-- review on that dimension in the study, the label of their span with the highest IoU with it (at least
-- var('span_match_iou')), else 'none' (their own span is their label). The card keeps the items two
-- people labelled.
with

spans as (

    select * from {{ ref('int_judge_card_human_spans') }}

),

reference as (

    select * from spans
    where annotator is null

),

entered_spans as (

    select * from spans
    where study_id is not null

),

entered_span_items as (

    select distinct
        item_id,
        study_id,
        judge,
        dataset,
        dimension,
        review_key,
        span_start,
        span_end

    from entered_spans

),

entered_raters as (

    select distinct
        study_id,
        judge,
        dataset,
        dimension,
        review_key,
        annotator

    from entered_spans

),

entered_span_pairs as (

    select
        entered_span_items.*,
        entered_raters.annotator

    from entered_span_items
    inner join entered_raters
        on
            entered_span_items.study_id = entered_raters.study_id
            and entered_span_items.judge = entered_raters.judge
            and entered_span_items.dataset = entered_raters.dataset
            and entered_span_items.dimension = entered_raters.dimension
            and entered_span_items.review_key = entered_raters.review_key

),

entered_span_best as (

    select
        entered_span_pairs.item_id,
        entered_span_pairs.dimension,
        entered_span_pairs.annotator,
        entered_spans.label,
        (
            least(entered_spans.span_end, entered_span_pairs.span_end)
            - greatest(entered_spans.span_start, entered_span_pairs.span_start)
        )
        / (
            (entered_spans.span_end - entered_spans.span_start)
            + (entered_span_pairs.span_end - entered_span_pairs.span_start)
            - (
                least(entered_spans.span_end, entered_span_pairs.span_end)
                - greatest(entered_spans.span_start, entered_span_pairs.span_start)
            )
        ) as iou,
        entered_spans.span_start

    from entered_span_pairs
    inner join entered_spans
        on
            entered_span_pairs.study_id = entered_spans.study_id
            and entered_span_pairs.judge = entered_spans.judge
            and entered_span_pairs.dataset = entered_spans.dataset
            and entered_span_pairs.dimension = entered_spans.dimension
            and entered_span_pairs.review_key = entered_spans.review_key
            and entered_span_pairs.annotator = entered_spans.annotator
            and entered_span_pairs.span_end > entered_spans.span_start
            and entered_span_pairs.span_start < entered_spans.span_end
    qualify row_number() over (
        partition by entered_span_pairs.item_id, entered_span_pairs.dimension, entered_span_pairs.annotator
        order by iou desc, entered_spans.span_start asc
    ) = 1

),

labels as (

    select * from {{ ref('int_judge_card_human_labels') }}

),

text_labels as (

    select * from labels
    where judge in ('novelty', 'constructiveness', 'flaws')

),

text_people as (

    select
        item_id,
        dataset,
        dimension,
        review_key,
        annotator,
        label

    from text_labels
    where annotator is not null

    union

    select
        sentences.item_id,
        sentences.dataset,
        'stance' as dimension,
        sentences.review_key,
        sentences.annotator,
        'none' as label

    from labels as sentences
    where
        sentences.dataset = 'disapere'
        and sentences.dimension = 'role'
        and sentences.annotator is not null
        and not exists (
            select 1 from text_labels as stances
            where
                stances.dimension = 'stance'
                and stances.item_id = sentences.item_id
                and stances.annotator = sentences.annotator
        )

),

annotator_spans as (

    select * from spans
    where annotator is not null

),

raters as (

    select distinct
        dataset,
        dimension,
        review_key,
        annotator

    from annotator_spans

),

pairs as (

    select
        reference.human_span_id as item_id,
        reference.dataset,
        reference.dimension,
        reference.review_key,
        raters.annotator

    from reference
    inner join raters
        on
            reference.dataset = raters.dataset
            and reference.dimension = raters.dimension
            and reference.review_key = raters.review_key

),

matched_overlaps as (

    select
        reference.human_span_id as item_id,
        annotator_spans.annotator,
        annotator_spans.label,
        annotator_spans.span_start,
        (
            least(annotator_spans.span_end, reference.span_end)
            - greatest(annotator_spans.span_start, reference.span_start)
        )
        / (
            (annotator_spans.span_end - annotator_spans.span_start) + (reference.span_end - reference.span_start)
            - (
                least(annotator_spans.span_end, reference.span_end)
                - greatest(annotator_spans.span_start, reference.span_start)
            )
        ) as iou

    from reference
    inner join annotator_spans
        on
            reference.dataset = annotator_spans.dataset
            and reference.dimension = annotator_spans.dimension
            and reference.review_key = annotator_spans.review_key
            and reference.span_end > annotator_spans.span_start
            and reference.span_start < annotator_spans.span_end

),

best as (

    select *
    from matched_overlaps
    where iou >= {{ var('span_match_iou', 0.5) }}
    qualify row_number() over (partition by item_id, annotator order by iou desc, span_start asc) = 1

),

final as (

    select
        concat_ws('|', pairs.item_id, pairs.annotator) as judge_card_annotator_item_id,
        pairs.item_id,
        pairs.dataset,
        pairs.dimension,
        pairs.review_key,
        pairs.annotator,
        coalesce(best.label, 'none') as annotator_label

    from pairs
    left join best on pairs.item_id = best.item_id and pairs.annotator = best.annotator

    union all

    select
        concat_ws('|', people.item_id, people.dimension, people.annotator) as judge_card_annotator_item_id,
        people.item_id,
        people.dataset,
        people.dimension,
        people.review_key,
        people.annotator,
        people.label as annotator_label

    from text_people as people
    where
        exists (
            select 1 from text_labels as ref
            where ref.is_reference and ref.item_id = people.item_id and ref.dimension = people.dimension
        )

    union all

    select
        concat_ws('|', item_id, dimension, annotator) as judge_card_annotator_item_id,
        item_id,
        dataset,
        dimension,
        review_key,
        annotator,
        label as annotator_label

    from labels
    where study_id is not null and judged_start is null

    union all

    select
        concat_ws('|', pairs.item_id, pairs.dimension, pairs.annotator) as judge_card_annotator_item_id,
        pairs.item_id,
        pairs.dataset,
        pairs.dimension,
        pairs.review_key,
        pairs.annotator,
        case when best.iou >= {{ var('span_match_iou', 0.5) }} then best.label else 'none' end as annotator_label

    from entered_span_pairs as pairs
    left join entered_span_best as best
        on pairs.item_id = best.item_id and pairs.dimension = best.dimension and pairs.annotator = best.annotator

)

select * from final
