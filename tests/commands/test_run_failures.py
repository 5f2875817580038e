"""`peerlake run` exits 1 when a model call of the run failed: a study with a review missing is not done,
and a script (or CI) must not read "1 failed" under exit 0 as success (issue 23, item 7)."""

from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from peerlake.cli import app
from tests.doubles.fake_server import Reply
from tests.orchestration.conftest import ReviewServer, run_cli


def _result(metadata: dict):
    return SimpleNamespace(study=SimpleNamespace(asset_metadata=metadata, run_id="r-1"), build=None, success=True)


@pytest.mark.parametrize(("metadata", "code"), [
    ({"ai_reviews": {"reviewer_configs": "c", "reviews": 3, "failed": 0}}, 0),
    ({"ai_reviews": {"reviewer_configs": "c", "reviews": 3, "failed": 1}}, 1),
    ({"ai_reviews": {"reviewer_configs": "c", "reviews": 3, "failed": 0, "left_undone": 2}}, 0),  # a cost cap
    ({"judgments_depth": {"judgments": 2, "reviews": 2, "failed": 2}}, 1),
])
def test_the_exit_code_follows_the_failed_calls_the_run_reports(monkeypatch, tmp_path, metadata, code):
    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    monkeypatch.setattr("peerlake.commands.study.run_study_command", lambda *a, **k: _result(metadata))
    result = CliRunner().invoke(app, ["run", "demo", "--no-build"])
    assert result.exit_code == code, result.output
    if code:
        assert "model call(s) failed" in " ".join(result.output.split())


def test_a_review_refused_with_a_fatal_error_makes_the_run_exit_1(tmp_path):
    """Through Dagster and the real gateway: the loopback server answers one review request 400 (not
    retryable), the other one normally."""
    with ReviewServer() as server:
        server.script(Reply(status=400))
        env = {"PEERLAKE_HOME": str(tmp_path / "lake"), "PEERLAKE_PROVIDER": "openai_compatible",
               "PEERLAKE_BASE_URL": server.openai_base_url, "PEERLAKE_MODEL": "fake-reviewer",
               "PEERLAKE_DEMO_ONLY": "demo-001,demo-004", "PEERLAKE_SAMPLES": "1"}
        res = run_cli(["run", "demo", "--no-build"], env)
        assert server.requests == 2  # a 400 is not retried
    said = " ".join((res.stdout + res.stderr).split())
    assert "2 reviews" not in said and "1 failed" in said, said
    assert res.returncode == 1 and "study demo: 1 model call(s) failed (ai_reviews 1)" in said


@pytest.mark.parametrize("failed", [0, 1])
def test_review_and_demo_exit_1_when_a_call_failed_too(monkeypatch, tmp_path, failed):
    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    result = _result({"ai_reviews": {"reviewer_configs": "c", "reviews": 3, "failed": failed}})
    monkeypatch.setattr("peerlake.commands.study.run_study_command", lambda *a, **k: result)
    monkeypatch.setattr("peerlake.report.summary.read_summary", lambda db: [])
    monkeypatch.setattr("peerlake.cli.print_quality", lambda study: None)
    for args in (["review", "--no-build"], ["demo"]):
        out = CliRunner().invoke(app, args)
        assert out.exit_code == failed, (args, out.output)
        assert ("model call(s) failed" in " ".join(out.output.split())) == bool(failed)


def test_a_failed_step_shows_its_cause_on_the_terminal(tmp_path):
    """Every review refused (a 400 is not retried): the collect step fails, and its terminal line says why —
    the first failed call's error — not Dagster's DagsterExecutionStepExecutionError; the log's path follows."""
    refusal = {"error": {"message": "The model `fake-reviewer` does not exist", "type": "invalid_request_error"}}
    with ReviewServer() as server:
        server.script(Reply(status=400, body=refusal), Reply(status=400, body=refusal))
        env = {"PEERLAKE_HOME": str(tmp_path / "lake"), "PEERLAKE_PROVIDER": "openai_compatible",
               "PEERLAKE_BASE_URL": server.openai_base_url, "PEERLAKE_MODEL": "fake-reviewer",
               "PEERLAKE_DEMO_ONLY": "demo-001,demo-004", "PEERLAKE_SAMPLES": "1"}
        res = run_cli(["run", "demo", "--no-build"], env)
    said = " ".join((res.stdout + res.stderr).split())
    assert res.returncode == 1, said
    step = next(line for line in (res.stdout + res.stderr).splitlines() if line.startswith("STEP FAILED"))
    assert step.startswith("STEP FAILED ai_reviews.ai_reviews_collect: all 2 reviews failed (see the units' errors) "
                           "(RuntimeError); first error logged: review of demo-"), step
    assert "The model `fake-reviewer` does not exist" in step and "DagsterExecutionStepExecutionError" not in said
    assert f"The full errors: {tmp_path / 'lake' / 'logs'}" in said
