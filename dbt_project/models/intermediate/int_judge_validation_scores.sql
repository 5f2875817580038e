-- One row per (study, judge configuration, dataset, split, matching criterion): the counts and ratios
-- of quality_judge_validation before they are pivoted into columns. Criteria: 'iou' -- a unit and a gold
-- span match when their character IoU >= var('span_match_iou') (default 0.5); 'overlap' -- when they
-- share a character. Every repeat of a review is pooled; definitions in quality_judge_validation.yml.
with

slots as (

    select * from {{ ref('int_judge_validation_judgments') }}

),

judgments as (

    select * from slots
    where is_judged

),

gold_spans as (

    select * from {{ ref('int_judge_validation_gold_spans') }}

),

units as (

    select * from {{ ref('int_judge_validation_units') }}

),

matches as (

    select * from {{ ref('int_judge_validation_matches') }}

),

criteria as (

    select 'iou' as criterion
    union all
    select 'overlap' as criterion

),

-- every row of int_judge_validation_matches shares a character; 'iou' keeps the close ones
matched as (

    select
        matches.*,
        criteria.criterion

    from matches
    cross join criteria
    where criteria.criterion = 'overlap' or matches.iou >= {{ var('span_match_iou', 0.5) }}

),

-- the gold spans of each judged (review, repeat); one starting beyond what the judge read is unseen
gold as (

    select
        judgments.judged_review_id,
        gold_spans.gold_span_id,
        gold_spans.gold_role,
        criteria.criterion,
        judgments.chars_judged is null or gold_spans.gold_start < judgments.chars_judged as is_seen

    from judgments
    inner join gold_spans
        on judgments.review_key = gold_spans.review_key and judgments.dataset = gold_spans.dataset
    cross join criteria

),

gold_flags as (

    select
        gold.judged_review_id,
        gold.gold_span_id,
        gold.criterion,
        any_value(gold.gold_role) as gold_role,
        any_value(gold.is_seen) as is_seen,
        count(matched.validation_match_id) > 0 as is_matched,
        coalesce(bool_or(matched.unit_role = gold.gold_role), false) as is_role_matched

    from gold
    left join matched
        on
            gold.judged_review_id = matched.judged_review_id
            and gold.gold_span_id = matched.gold_span_id
            and gold.criterion = matched.criterion
    group by gold.judged_review_id, gold.gold_span_id, gold.criterion

),

unit_flags as (

    select
        units.judged_review_id,
        units.validation_unit_id,
        criteria.criterion,
        any_value(units.unit_role) as unit_role,
        count(matched.validation_match_id) > 0 as is_matched,
        coalesce(bool_or(matched.gold_role = units.unit_role), false) as is_role_matched

    from units
    cross join criteria
    left join matched
        on units.validation_unit_id = matched.validation_unit_id and criteria.criterion = matched.criterion
    group by units.judged_review_id, units.validation_unit_id, criteria.criterion

),

-- every group a study covered, judged or not (its counts are then 0, its ratios null)
groups as (

    select distinct
        slots.study_id,
        slots.judge_config,
        slots.dataset,
        slots.dataset_split,
        criteria.criterion

    from slots
    cross join criteria

),

gold_counts as (

    select
        judgments.study_id,
        judgments.judge_config,
        judgments.dataset,
        judgments.dataset_split,
        gold_flags.criterion,
        count(*) filter (where gold_flags.is_seen) as n_gold_spans,
        count(*) filter (where not gold_flags.is_seen) as n_gold_spans_unseen,
        count(*) filter (where gold_flags.is_seen and gold_flags.gold_role = 'claim') as n_gold_claims,
        count(*) filter (where gold_flags.is_seen and gold_flags.gold_role = 'premise') as n_gold_premises,
        count(*) filter (where gold_flags.is_seen and gold_flags.is_matched) as n_gold_matched,
        count(*) filter (
            where gold_flags.is_seen and gold_flags.gold_role = 'claim' and gold_flags.is_role_matched
        ) as n_gold_claims_role_matched,
        count(*) filter (
            where gold_flags.is_seen and gold_flags.gold_role = 'premise' and gold_flags.is_role_matched
        ) as n_gold_premises_role_matched

    from gold_flags
    inner join judgments on gold_flags.judged_review_id = judgments.judged_review_id
    group by
        judgments.study_id, judgments.judge_config, judgments.dataset, judgments.dataset_split, gold_flags.criterion

),

unit_counts as (

    select
        judgments.study_id,
        judgments.judge_config,
        judgments.dataset,
        judgments.dataset_split,
        unit_flags.criterion,
        count(*) as n_units,
        count(*) filter (where unit_flags.unit_role = 'claim') as n_unit_claims,
        count(*) filter (where unit_flags.unit_role = 'premise') as n_unit_premises,
        count(*) filter (where unit_flags.is_matched) as n_units_matched,
        count(*) filter (where unit_flags.unit_role = 'claim' and unit_flags.is_role_matched)
            as n_unit_claims_role_matched,
        count(*) filter (where unit_flags.unit_role = 'premise' and unit_flags.is_role_matched)
            as n_unit_premises_role_matched

    from unit_flags
    inner join judgments on unit_flags.judged_review_id = judgments.judged_review_id
    group by
        judgments.study_id, judgments.judge_config, judgments.dataset, judgments.dataset_split, unit_flags.criterion

),

-- matched (unit, gold span) pairs whose gold span has a role: the labels judged alone
pair_counts as (

    select
        judgments.study_id,
        judgments.judge_config,
        judgments.dataset,
        judgments.dataset_split,
        matched.criterion,
        count(*) as n_pairs,
        count(*) filter (where matched.unit_role = matched.gold_role) as n_pairs_agreeing,
        count(*) filter (where matched.unit_role = 'claim') as n_pairs_labelled_claim,
        count(*) filter (where matched.gold_role = 'claim') as n_pairs_gold_claim,
        count(*) filter (where matched.unit_role = 'claim' and matched.gold_role = 'claim') as n_pairs_both_claim,
        count(*) filter (where matched.unit_role = 'premise') as n_pairs_labelled_premise,
        count(*) filter (where matched.gold_role = 'premise') as n_pairs_gold_premise,
        count(*) filter (where matched.unit_role = 'premise' and matched.gold_role = 'premise') as n_pairs_both_premise

    from matched
    inner join judgments on matched.judged_review_id = judgments.judged_review_id
    where matched.gold_role is not null
    group by
        judgments.study_id, judgments.judge_config, judgments.dataset, judgments.dataset_split, matched.criterion

),

counts as (

    select
        groups.*,
        coalesce(columns(gold_counts.* exclude (study_id, judge_config, dataset, dataset_split, criterion)), 0),
        coalesce(columns(unit_counts.* exclude (study_id, judge_config, dataset, dataset_split, criterion)), 0),
        coalesce(columns(pair_counts.* exclude (study_id, judge_config, dataset, dataset_split, criterion)), 0)

    from groups
    left join gold_counts using (study_id, judge_config, dataset, dataset_split, criterion)
    left join unit_counts using (study_id, judge_config, dataset, dataset_split, criterion)
    left join pair_counts using (study_id, judge_config, dataset, dataset_split, criterion)

),

-- a ratio with an empty denominator is null
ratios as (

    select
        *,
        n_units_matched / nullif(n_units, 0) as span_precision,
        n_gold_matched / nullif(n_gold_spans, 0) as span_recall,
        n_pairs_agreeing / nullif(n_pairs, 0) as role_accuracy,
        n_pairs_both_claim / nullif(n_pairs_labelled_claim, 0) as claim_precision,
        n_pairs_both_claim / nullif(n_pairs_gold_claim, 0) as claim_recall,
        n_pairs_both_premise / nullif(n_pairs_labelled_premise, 0) as premise_precision,
        n_pairs_both_premise / nullif(n_pairs_gold_premise, 0) as premise_recall,
        n_unit_claims_role_matched / nullif(n_unit_claims, 0) as claim_all_precision,
        n_gold_claims_role_matched / nullif(n_gold_claims, 0) as claim_all_recall,
        n_unit_premises_role_matched / nullif(n_unit_premises, 0) as premise_all_precision,
        n_gold_premises_role_matched / nullif(n_gold_premises, 0) as premise_all_recall

    from counts

),

-- F1 = 2PR / (P + R): 0 when both are 0, null when either is (null + x = 0 is not true)
final as (

    select
        concat_ws('|', study_id, judge_config, dataset, dataset_split, criterion) as judge_validation_score_id,
        *,
        case
            when span_precision + span_recall = 0 then 0.0
            else 2 * span_precision * span_recall / (span_precision + span_recall)
        end as span_f1,
        case
            when claim_precision + claim_recall = 0 then 0.0
            else 2 * claim_precision * claim_recall / (claim_precision + claim_recall)
        end as claim_f1,
        case
            when premise_precision + premise_recall = 0 then 0.0
            else 2 * premise_precision * premise_recall / (premise_precision + premise_recall)
        end as premise_f1,
        case
            when claim_all_precision + claim_all_recall = 0 then 0.0
            else 2 * claim_all_precision * claim_all_recall / (claim_all_precision + claim_all_recall)
        end as claim_all_f1,
        case
            when premise_all_precision + premise_all_recall = 0 then 0.0
            else 2 * premise_all_precision * premise_all_recall / (premise_all_precision + premise_all_recall)
        end as premise_all_f1

    from ratios

)

select * from final
