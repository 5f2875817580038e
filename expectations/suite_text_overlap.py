"""Suite `text_overlap`: one row per study × source × reviewer, ROUGE-1, ROUGE-L and BLEU-4 in [0, 1],
counts that nest (reviews ≥ compared; pairs ≥ pairs with a BLEU), the measures null exactly when no
review was compared (with a reason), and BERTScore null and flagged (no weights on this machine)."""

MODEL = "text_overlap"
KEY = "text_overlap_id"
STAGE = "statistics"
COUNTS = ("n_reviews", "n_reviews_compared", "n_papers_compared", "n_pairs", "n_pairs_bleu")
MEASURES = ("rouge_1", "rouge_l", "bleu_4")
COLUMNS = [KEY, "study_id", "source", "reviewer", "is_reference", "bertscore_f1", "bertscore_status", "null_reason",
           *COUNTS, *MEASURES]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        at_least("n_reviews", "n_reviews_compared"),
        at_least("n_pairs", "n_pairs_bleu"),
        at_least("n_pairs", "n_reviews_compared"),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="rouge_1", row_condition=Column("n_reviews_compared") > 0),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="null_reason",
                                                     row_condition=Column("n_reviews_compared") == 0),
        gx.expectations.ExpectColumnValuesToBeNull(column="bertscore_f1"),
    ]
