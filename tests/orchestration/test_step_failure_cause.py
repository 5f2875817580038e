"""A failed step is said by its root cause (Dagster's failure event's `cause` chain), not the executor's
DagsterExecutionStepExecutionError, and with the first error its asset logged, in one line (issue 46)."""

from dagster import DagsterEventType, DagsterInstance, asset, materialize

from peerlake.orchestration.runner import STEP_LINE, _pipeline_run


@asset
def reviews(context):
    context.log.error("review of demo-001 sample 0 failed: openai/gpt-4.1-mini call 8e565d802c67 failed on "
                      "attempt 1 (not retryable): " + "x" * 200 + " HTTP401: Incorrect API key provided")
    try:
        {}["OPENAI_API_KEY"]
    except KeyError as exc:
        raise RuntimeError("all 2 reviews failed (see the units' errors)") from exc


def test_the_root_cause_and_the_first_logged_error_make_the_line():
    instance = DagsterInstance.ephemeral()
    result = materialize([reviews], instance=instance, raise_on_error=False)
    (failure,) = [e for e in result.all_events if e.event_type == DagsterEventType.STEP_FAILURE]
    assert failure.event_specific_data.error.cls_name == "DagsterExecutionStepExecutionError"

    (step,) = _pipeline_run(False, result.run_id, result.all_events, instance).failed_steps
    line, whole = step.split("\n", 1)
    assert line.startswith("reviews: 'OPENAI_API_KEY' (KeyError); first error logged: review of demo-001 sample 0 "
                           "failed: open … xxx"), line  # the logged error's middle elided, its specific end kept
    assert line.endswith(" HTTP401: Incorrect API key provided") and len(line) <= STEP_LINE, line
    assert "DagsterExecutionStepExecutionError" not in line and "DagsterExecutionStepExecutionError" in whole
