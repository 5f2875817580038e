-- One row per (depth unit, gold span of the same review) that share at least one character, with
-- their character intersection-over-union: |A ∩ B| / |A ∪ B| over [start, end) ranges.
with

units as (

    select * from {{ ref('int_judge_validation_units') }}

),

gold as (

    select * from {{ ref('int_judge_validation_gold_spans') }}

),

overlapping as (

    select
        units.validation_unit_id,
        units.judged_review_id,
        units.unit_role,
        gold.gold_span_id,
        gold.gold_role,
        least(units.unit_end, gold.gold_end) - greatest(units.unit_start, gold.gold_start) as intersection_chars,
        (units.unit_end - units.unit_start) + (gold.gold_end - gold.gold_start) as summed_chars

    from units
    inner join gold
        on
            units.review_key = gold.review_key
            and units.dataset = gold.dataset
            and units.unit_start < gold.gold_end
            and units.unit_end > gold.gold_start

),

final as (

    select
        concat_ws('|', validation_unit_id, gold_span_id) as validation_match_id,
        validation_unit_id,
        judged_review_id,
        unit_role,
        gold_span_id,
        gold_role,
        intersection_chars,
        summed_chars - intersection_chars as union_chars,
        intersection_chars / (summed_chars - intersection_chars) as iou

    from overlapping

)

select * from final
