"""Suite `cost_by_study`: every attempt counted once as paid or failed, token sums and costs ≥ 0, and
a study never replays more answers than it uses."""

MODEL = "cost_by_study"
KEY = "study_cost_id"
STAGE = "statistics"
COLUMNS = ["study_cost_id", "study_id", "provider", "model", "n_attempts", "n_paid_calls", "n_failed_attempts",
           "input_tokens", "output_tokens", "cost_usd", "n_paid_calls_cost_unknown", "n_review_calls_used",
           "n_review_calls_replayed", "replayed_cost_usd_saved"]


def derive(frame):
    """Attempts counted as neither paid nor failed."""
    frame["n_attempts_unaccounted"] = frame["n_attempts"] - frame["n_paid_calls"] - frame["n_failed_attempts"]
    return frame


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx

    from peerlake.expectations.shared import at_least

    return [
        gx.expectations.ExpectColumnValuesToBeBetween(column="n_attempts_unaccounted", min_value=0, max_value=0),
        at_least("n_paid_calls", "n_paid_calls_cost_unknown"),
        at_least("n_review_calls_used", "n_review_calls_replayed"),
    ]
