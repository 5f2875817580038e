-- How well the depth judge's units and their claim / premise labels agree with human spans (e.g.
-- SubstanReview), one row per (study, judge configuration, dataset, split), every repeat pooled: the
-- rows of int_judge_validation_scores, one per matching criterion, as columns with suffixes _iou
-- (character IoU >= var('span_match_iou'), default 0.5) and _overlap (a shared character).
-- Definitions of every ratio: quality_judge_validation.yml.
with

judgments as (

    select * from {{ ref('int_judge_validation_judgments') }}

),

scores as (

    select * from {{ ref('int_judge_validation_scores') }}

),

groups as (

    select
        concat_ws('|', study_id, judge_config, dataset, dataset_split) as judge_validation_id,
        cast({{ var('span_match_iou', 0.5) }} as double) as span_match_iou,
        study_id,
        judge_config,
        dataset,
        dataset_split,
        any_value(judge_provider) as judge_provider,
        any_value(judge_model) as judge_model,
        count(distinct review_key) filter (where is_judged) as n_reviews,
        count(*) filter (where is_judged) as n_judgments,
        count(*) filter (where is_judged and null_reason is not null) as n_null_judgments,
        count(*) filter (where not is_judged) as n_not_judged

    from judgments
    group by study_id, judge_config, dataset, dataset_split

),

-- the counts that do not depend on the criterion, then each criterion's matches and ratios
final as (

    select
        groups.*,
        max(scores.n_gold_spans) as n_gold_spans,
        max(scores.n_gold_spans_unseen) as n_gold_spans_unseen,
        max(scores.n_gold_claims) as n_gold_claims,
        max(scores.n_gold_premises) as n_gold_premises,
        max(scores.n_units) as n_units,
        max(scores.n_unit_claims) as n_unit_claims,
        max(scores.n_unit_premises) as n_unit_premises,
        max(scores.n_units_matched) filter (where scores.criterion = 'iou') as n_units_matched_iou,
        max(scores.n_gold_matched) filter (where scores.criterion = 'iou') as n_gold_matched_iou,
        max(scores.n_pairs) filter (where scores.criterion = 'iou') as n_pairs_iou,
        max(scores.role_accuracy) filter (where scores.criterion = 'iou') as role_accuracy_iou,
        max(scores.span_precision) filter (where scores.criterion = 'iou') as span_precision_iou,
        max(scores.span_recall) filter (where scores.criterion = 'iou') as span_recall_iou,
        max(scores.span_f1) filter (where scores.criterion = 'iou') as span_f1_iou,
        max(scores.claim_precision) filter (where scores.criterion = 'iou') as claim_precision_iou,
        max(scores.claim_recall) filter (where scores.criterion = 'iou') as claim_recall_iou,
        max(scores.claim_f1) filter (where scores.criterion = 'iou') as claim_f1_iou,
        max(scores.premise_precision) filter (where scores.criterion = 'iou') as premise_precision_iou,
        max(scores.premise_recall) filter (where scores.criterion = 'iou') as premise_recall_iou,
        max(scores.premise_f1) filter (where scores.criterion = 'iou') as premise_f1_iou,
        max(scores.claim_all_precision) filter (where scores.criterion = 'iou') as claim_all_precision_iou,
        max(scores.claim_all_recall) filter (where scores.criterion = 'iou') as claim_all_recall_iou,
        max(scores.claim_all_f1) filter (where scores.criterion = 'iou') as claim_all_f1_iou,
        max(scores.premise_all_precision) filter (where scores.criterion = 'iou') as premise_all_precision_iou,
        max(scores.premise_all_recall) filter (where scores.criterion = 'iou') as premise_all_recall_iou,
        max(scores.premise_all_f1) filter (where scores.criterion = 'iou') as premise_all_f1_iou,
        max(scores.n_units_matched) filter (where scores.criterion = 'overlap') as n_units_matched_overlap,
        max(scores.n_gold_matched) filter (where scores.criterion = 'overlap') as n_gold_matched_overlap,
        max(scores.n_pairs) filter (where scores.criterion = 'overlap') as n_pairs_overlap,
        max(scores.role_accuracy) filter (where scores.criterion = 'overlap') as role_accuracy_overlap,
        max(scores.span_precision) filter (where scores.criterion = 'overlap') as span_precision_overlap,
        max(scores.span_recall) filter (where scores.criterion = 'overlap') as span_recall_overlap,
        max(scores.span_f1) filter (where scores.criterion = 'overlap') as span_f1_overlap,
        max(scores.claim_precision) filter (where scores.criterion = 'overlap') as claim_precision_overlap,
        max(scores.claim_recall) filter (where scores.criterion = 'overlap') as claim_recall_overlap,
        max(scores.claim_f1) filter (where scores.criterion = 'overlap') as claim_f1_overlap,
        max(scores.premise_precision) filter (where scores.criterion = 'overlap') as premise_precision_overlap,
        max(scores.premise_recall) filter (where scores.criterion = 'overlap') as premise_recall_overlap,
        max(scores.premise_f1) filter (where scores.criterion = 'overlap') as premise_f1_overlap,
        max(scores.claim_all_precision) filter (where scores.criterion = 'overlap') as claim_all_precision_overlap,
        max(scores.claim_all_recall) filter (where scores.criterion = 'overlap') as claim_all_recall_overlap,
        max(scores.claim_all_f1) filter (where scores.criterion = 'overlap') as claim_all_f1_overlap,
        max(scores.premise_all_precision) filter (where scores.criterion = 'overlap') as premise_all_precision_overlap,
        max(scores.premise_all_recall) filter (where scores.criterion = 'overlap') as premise_all_recall_overlap,
        max(scores.premise_all_f1) filter (where scores.criterion = 'overlap') as premise_all_f1_overlap

    from groups
    left join scores
        on
            groups.study_id = scores.study_id
            and groups.judge_config = scores.judge_config
            and groups.dataset = scores.dataset
            and groups.dataset_split = scores.dataset_split
    group by all

)

select * from final
