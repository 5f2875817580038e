"""Suite `call_replays`: each (call, study) replay row's first replay is no later than its last (the count of
at least one is a dbt column check)."""

MODEL = "fct_call_replays"
KEY = "call_replay_id"
STAGE = "statistics"
COLUMNS = [KEY, "llm_call_id", "study_id", "n_replays", "first_replayed_at", "last_replayed_at"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    from peerlake.expectations.shared import at_least

    return [at_least("last_replayed_at", "first_replayed_at")]
