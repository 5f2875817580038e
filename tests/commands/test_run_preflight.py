"""`peerlake run` refuses a model that cannot answer before Dagster starts (exit 2, one line saying what to
do); `--dry-run` says the same findings as warnings beside its estimate, and needs no key (issue 46)."""

from datetime import date

import pytest
from typer.testing import CliRunner

from peerlake.cli import app
from peerlake.llm_calls.cost import utc_today
from tests.llm_calls.test_preflight import closed_port


@pytest.fixture
def lake(tmp_path, monkeypatch):
    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    for name in ("PEERLAKE_PROVIDER", "PEERLAKE_MODEL", "PEERLAKE_BASE_URL", "PEERLAKE_ALLOW_MODELS",
                 "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)  # recorded, so what --model sets is put back too
    return tmp_path / "lake"


def said(result) -> str:
    return " ".join(result.output.split())


def refused(lake, *args: str) -> str:
    """The run's output, after asserting it exited 2 without starting Dagster (no run log, no instance)."""
    result = CliRunner().invoke(app, ["run", "demo", *args], terminal_width=200)
    assert result.exit_code == 2, result.output
    assert not (lake / "logs").exists() and not (lake / "dagster").exists(), "Dagster started"
    return said(result)


def test_an_unknown_embedded_model_is_refused_before_dagster_starts(lake):
    out = refused(lake, "--model", "local/qwen-7b")
    assert "error: no embedded model 'qwen-7b' (reviewer reviewer_scoring); provider 'local' knows " in out


def test_an_unknown_hosted_name_is_refused_with_the_near_one(lake, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-preflight")
    out = refused(lake, "--model", "openai/gpt-4.1-mni")
    assert ("error: unknown openai model 'gpt-4.1-mni' (reviewer reviewer_scoring): not in llm_calls/prices.toml; "
            "did you mean openai/gpt-4.1-mini? Fix the name, or allow it with PEERLAKE_ALLOW_MODELS=openai/gpt-4.1-mni"
            in out), out


def test_a_missing_key_is_refused_naming_its_variable(lake):
    out = refused(lake, "--model", "openai/gpt-4.1-mini")
    assert out == ("error: openai/gpt-4.1-mini (reviewer reviewer_scoring): no API key for provider 'openai': set "
                   "OPENAI_API_KEY; `peerlake run … --dry-run` estimates without it"), out


def test_a_dead_base_url_is_refused(lake, monkeypatch):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    monkeypatch.setenv("PEERLAKE_BASE_URL", url)
    out = refused(lake, "--model", "openai_compatible/fake-reviewer")
    assert (f"error: nothing answers at {url} (Connection refused) for openai_compatible/fake-reviewer (reviewer "
            "reviewer_scoring): start the server, or fix the base_url (the study's, or PEERLAKE_BASE_URL)") in out


def test_a_dry_run_says_the_same_findings_as_warnings_beside_its_estimate(lake):
    result = CliRunner().invoke(app, ["run", "demo", "--dry-run", "--model", "openai/gpt-4.1-mni"],
                                terminal_width=200)
    assert result.exit_code == 0, result.output
    out = said(result)
    assert "dry run of study demo on openai/gpt-4.1-mni: no call made" in out and "TOTAL" in out  # the estimate
    assert "unknown (no price; did you mean openai/gpt-4.1-mini?)" in out
    assert "new calls use a model with no price (llm_calls/prices.toml): openai/gpt-4.1-mni (did you mean " \
           "openai/gpt-4.1-mini?)" in out
    assert ("warning: unknown openai model 'gpt-4.1-mni' (reviewer reviewer_scoring): not in llm_calls/prices.toml; "
            "did you mean openai/gpt-4.1-mini?") in out
    assert "warning: openai/gpt-4.1-mni (reviewer reviewer_scoring): no API key for provider 'openai': set " \
           "OPENAI_API_KEY" in out
    assert "`peerlake run demo` refuses to start until the warnings above are fixed." in out


def test_a_retired_model_is_a_warning_in_the_dry_run(lake, monkeypatch):
    """claude-sonnet-4-5 reached end of life on 2026-11-30 (the Anthropic SDK's DEPRECATED_MODELS): said, not
    refused, whatever today is (after that day: retired; before it, within 30 days: retiring; else nothing)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-preflight")
    result = CliRunner().invoke(app, ["run", "demo", "--dry-run", "--model", "anthropic/claude-sonnet-4-5"],
                                terminal_width=200)
    assert result.exit_code == 0, result.output
    days = (utc_today() - date(2026, 11, 30)).days
    line = ("anthropic/claude-sonnet-4-5 (reviewer reviewer_scoring) was retired by its provider on 2026-11-30"
            if days >= 0 else "anthropic/claude-sonnet-4-5 (reviewer reviewer_scoring) retires on 2026-11-30")
    assert (f"warning: {line}" in said(result)) == (days >= -30), result.output
    assert "refuses to start" not in said(result)


def test_a_run_says_a_retired_model_at_its_start_beside_a_refusal(lake):
    result = CliRunner().invoke(app, ["run", "demo", "--model", "anthropic/claude-sonnet-4-5"], terminal_width=200)
    assert result.exit_code == 2 and "error: anthropic/claude-sonnet-4-5 (reviewer reviewer_scoring): no API key for " \
                                      "provider 'anthropic': set ANTHROPIC_API_KEY" in said(result), result.output
    if utc_today() >= date(2026, 11, 30):
        assert "warning: anthropic/claude-sonnet-4-5 (reviewer reviewer_scoring) was retired by its provider on " \
               "2026-11-30" in said(result)


def test_on_remote_workers_the_findings_are_warnings(lake, monkeypatch):
    """celery / dask steps run in the workers' environment: what this machine lacks is said, not refused (the
    run then stops at the executor's own check here: no broker)."""
    monkeypatch.setenv("PEERLAKE_PROVIDER", "local")
    monkeypatch.setenv("PEERLAKE_MODEL", "qwen-7b")
    monkeypatch.setenv("PEERLAKE_CELERY_BROKER", f"redis://127.0.0.1:{closed_port()}/0")
    result = CliRunner().invoke(app, ["run", "demo", "--executor", "celery"], terminal_width=200)
    assert result.exit_code == 1, result.output
    assert ("warning: no embedded model 'qwen-7b' (reviewer reviewer_scoring); provider 'local' knows " in said(result)
            and "(checked on this machine; the workers read their own)" in said(result)), result.output
