-- One row per (human reference span, another annotator of the same review): that annotator's label
-- of the span, the label of their own span with the highest character IoU with it (at least
-- var('span_match_iou')), else 'none'. The annotators' agreement on these is the human ceiling a
-- judge card puts beside the judge's agreement (SubstanReview's annotation_IAA files). The items of the
-- text-matched judges (int_judge_card_text_items: DISAPERE stance, RevUtil ratings) are the same item
-- for every person, so each person's own label of a reference item is theirs (no matching needed). A
-- DISAPERE annotator who labelled the sentence but not as an originality statement has stance 'none',
-- as the judge with no claim there has: the ceiling is not only over the sentences both people saw as
-- originality statements.
with

spans as (

    select * from {{ ref('int_judge_card_human_spans') }}

),

reference as (

    select * from spans
    where annotator is null

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

)

select * from final
