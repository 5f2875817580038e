"""Suite `call_system_runs`: a system run answers no more steps than it names (ok | null and the counts' ranges are
dbt column checks)."""

MODEL = "fct_call_system_runs"
KEY = "system_review_id"
STAGE = "statistics"
COLUMNS = [KEY, "system_name", "system_config", "paper_id", "status", "n_steps", "n_steps_answered"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    from peerlake.expectations.shared import at_least

    return [at_least("n_steps", "n_steps_answered")]
