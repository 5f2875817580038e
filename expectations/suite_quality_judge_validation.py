"""Suite `quality_judge_validation`: precision, recall, F1 and accuracy are shares, the counts are counts
and nest (matched ≤ all; the reviews judged ≤ the judgments), and the IoU threshold is in (0, 1]."""

MODEL = "quality_judge_validation"
KEY = "judge_validation_id"
STAGE = "statistics"
COUNTS = ("n_reviews", "n_judgments", "n_null_judgments", "n_not_judged", "n_gold_spans", "n_gold_spans_unseen",
          "n_units", "n_units_matched_iou", "n_units_matched_overlap", "n_gold_matched_iou",
          "n_gold_matched_overlap")
RATIOS = tuple(f"{name}_{m}_{c}" for name in ("span", "claim", "premise", "claim_all", "premise_all")
               for m in ("precision", "recall", "f1") for c in ("iou", "overlap"))
SHARES = (*RATIOS, "role_accuracy_iou", "role_accuracy_overlap")
COLUMNS = [KEY, "span_match_iou", "study_id", "judge_config", "judge_model", "dataset", "dataset_split",
           *COUNTS, *SHARES]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx

    from peerlake.expectations import shared

    return [
        gx.expectations.ExpectColumnValuesToBeBetween(column="span_match_iou", min_value=0, max_value=1,
                                                      strict_min=True),
        shared.at_least("n_judgments", "n_reviews"),
        shared.at_least("n_judgments", "n_null_judgments"),
        shared.at_least("n_units", "n_units_matched_overlap"),
        # IoU >= t > 0 implies a shared character: the looser criterion matches at least as much
        shared.at_least("n_units_matched_overlap", "n_units_matched_iou"),
        shared.at_least("n_gold_spans", "n_gold_matched_overlap"),
        shared.at_least("n_gold_matched_overlap", "n_gold_matched_iou"),
    ]
