"""Suite `revision_selector_agreement`: one row per (study, Writer, Selector pair); every candidate is
accepted by one, both or neither Selector (the counts add up), Jaccard is in [0, 1], and both Selectors
decided on the same Writer's diffs."""

MODEL = "revision_selector_agreement"
KEY = "revision_selector_agreement_id"
STAGE = "statistics"
COUNTS = ("n_papers", "n_papers_blocked", "n_papers_candidates_differ", "n_candidates", "n_accepted_a",
          "n_accepted_b", "n_both_accept", "n_decisions_differ", "n_both_reject", "n_identical_papers")
COLUMNS = [KEY, "study_id", "writer", "selector_a", "selector_b", "mean_jaccard", *COUNTS]


def derive(frame):
    """|A ∪ B| + both-reject − candidates, and |A| + |B| − 2|A ∩ B| − differ: both 0."""
    frame["candidate_gap"] = (frame["n_accepted_a"] + frame["n_accepted_b"] - frame["n_both_accept"]
                              + frame["n_both_reject"] - frame["n_candidates"])
    frame["differ_gap"] = (frame["n_accepted_a"] + frame["n_accepted_b"] - 2 * frame["n_both_accept"]
                           - frame["n_decisions_differ"])
    return frame


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx

    from peerlake.expectations.shared import at_least

    return [
        *[gx.expectations.ExpectColumnValuesToBeBetween(column=c, min_value=0, max_value=0)
          for c in ("candidate_gap", "differ_gap")],
        at_least("n_accepted_a", "n_both_accept"),
        at_least("n_accepted_b", "n_both_accept"),
        at_least("n_papers", "n_identical_papers"),
    ]
