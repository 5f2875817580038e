"""A failed step is one line on the terminal, naming the log file that holds Dagster's whole error; the
log file the command names gets everything the run wrote, and Dagster's warnings still reach the
terminal."""

import logging
from pathlib import Path

from peerlake.console import report_run, run_quietly
from peerlake.orchestration.runner import PipelineRun

TRACE = "\n".join(f'  File "/x/dagster/step.py", line {n}, in frame_{n}' for n in range(40))


def _failing_build(**_):
    """What Dagster's console logger writes to stderr for a failed dbt step, then the run's result."""
    log = logging.getLogger("dagster-test")
    log.propagate = False
    handler = logging.StreamHandler()  # sys.stderr as it is now: the run's log file
    handler.setFormatter(logging.Formatter("%(asctime)s - dagster - %(levelname)s - %(message)s"))
    log.addHandler(handler)
    try:
        log.warning("study demo: 2 selected papers are unknown to the lake")
        log.error(f"dbt_models - STEP_FAILURE - Execution of step \"dbt_models\" failed.\n\nDbtCliError\n{TRACE}")
    finally:
        log.removeHandler(handler)
    print("dbt: 12 of 40 ERROR creating sql table model main.int_reviews")
    return PipelineRun(success=False, run_id="run-9", failed_steps=[
        "dbt_models: The dbt CLI process with command `dbt build` failed with exit code 1.\n" + TRACE])


def test_a_failed_build_is_one_line_and_the_named_log_holds_the_whole_error(lake, capsys):
    run = run_quietly(_failing_build, "build")
    report_run(run)
    out, err = capsys.readouterr()
    shown = out + err
    assert "STEP FAILED dbt_models: The dbt CLI process with command `dbt build` failed with exit code 1." in shown
    assert "frame_3" not in shown and "DbtCliError" not in shown  # no traceback on the terminal
    assert "2 selected papers are unknown to the lake" in err  # a warning is still said
    named = next(line for line in out.splitlines() if "(log: " in line)
    path = named.split("(log: ", 1)[1].split(")", 1)[0]
    assert f"The full errors: {path}" in " ".join(out.split())
    text = Path(path).read_text()
    assert "DbtCliError" in text and "frame_39" in text and "12 of 40 ERROR" in text
