"""Suite `cost_estimate_accuracy`: one row per run × purpose / template / model, counts and costs ≥ 0,
each estimate's interval ordered (lo ≤ estimate ≤ hi), and a ratio only where there is an estimate."""

MODEL = "cost_estimate_accuracy"
KEY = "estimate_accuracy_id"
STAGE = "statistics"
COLUMNS = ["estimate_accuracy_id", "dagster_run_id", "study_id", "purpose", "prompt_template", "provider", "model",
           "est_calls", "actual_calls", "est_input_tokens", "est_input_tokens_lo", "est_input_tokens_hi",
           "actual_input_tokens", "est_output_tokens", "est_output_tokens_lo", "est_output_tokens_hi",
           "actual_output_tokens", "est_cost_usd", "est_cost_lo_usd", "est_cost_hi_usd", "actual_cost_usd",
           "calls_ratio", "input_tokens_ratio", "output_tokens_ratio", "cost_ratio", "is_output_tokens_in_interval",
           "is_cost_in_interval"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""

    from peerlake.expectations.shared import at_least

    return [
        *[at_least(hi, lo, ignore_missing=True) for lo, hi in (
            ("est_cost_lo_usd", "est_cost_usd"), ("est_cost_usd", "est_cost_hi_usd"),
            ("est_output_tokens_lo", "est_output_tokens"), ("est_output_tokens", "est_output_tokens_hi"),
            ("est_input_tokens_lo", "est_input_tokens"), ("est_input_tokens", "est_input_tokens_hi"))],
    ]
