"""Suite `repeatability`: SDs and variances are non-negative, rates and shares are shares, and the
counts nest (parsed ≤ reviews; repeated papers ≤ papers and ≤ disjoint pairs)."""

MODEL = "reliability_repeatability"
KEY = "repeatability_id"
STAGE = "statistics"
SHARES = ("parse_success_rate", "share_papers_identical", "share_papers_range_le_1",
          "pairwise_agreement_mean", "share_scores_5_to_7", "share_scores_5_to_6")
VARIANCES = ("variance_hat", "within_paper_sd", "paper_variance_p10", "paper_variance_p25",
             "paper_variance_p50", "paper_variance_p75", "paper_variance_p90")
COLUMNS = ["repeatability_id", "reviewer_config", "n_reviews", "n_parsed_reviews", "n_papers", "reviews_per_paper_mean",
           "reviews_per_paper_min", "n_papers_repeated", "n_certified_pairs", *SHARES, *VARIANCES,
           "drift_ci_low", "drift_ci_high"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""

    from peerlake.expectations import shared

    def at_least(a: str, b: str):
        # Null together when a configuration has nothing to measure (no repeated paper, no drift).
        return shared.at_least(a, b, ignore_missing=True)

    return [
        at_least("n_reviews", "n_parsed_reviews"),
        at_least("n_papers", "n_papers_repeated"),
        # Every repeated paper gives at least one disjoint pair (⌊n_i/2⌋ ≥ 1 for n_i ≥ 2).
        at_least("n_certified_pairs", "n_papers_repeated"),
        at_least("reviews_per_paper_mean", "reviews_per_paper_min"),
        # Nested intervals over the same scores: [5, 6] ⊂ [5, 7], identical ⊂ range ≤ 1.
        at_least("share_scores_5_to_7", "share_scores_5_to_6"),
        at_least("share_papers_range_le_1", "share_papers_identical"),
        at_least("drift_ci_high", "drift_ci_low"),
    ]
