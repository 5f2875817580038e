"""`--model PROVIDER/MODEL` on `peerlake run` / `demo` / `review`: the same as $PEERLAKE_PROVIDER and
$PEERLAKE_MODEL for that run; a spelling without a known provider is refused in one line."""

import pytest
from typer.testing import CliRunner

from peerlake.cli import app


@pytest.fixture
def lake(tmp_path, monkeypatch):
    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    # recorded, so monkeypatch puts back whatever --model sets in os.environ
    monkeypatch.delenv("PEERLAKE_PROVIDER", raising=False)
    monkeypatch.delenv("PEERLAKE_MODEL", raising=False)
    return tmp_path / "lake"


def test_a_dry_run_with_model_plans_the_calls_on_that_model(lake):
    result = CliRunner().invoke(app, ["run", "demo", "--dry-run", "--model", "openai/gpt-4.1"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "dry run of study demo on openai/gpt-4.1" in result.output
    assert "local/" not in result.output


def test_a_model_id_may_hold_a_slash(lake):
    import os

    from peerlake.commands.study import use_model
    from peerlake.warehouse.settings import reviewer_defaults

    use_model("openai_compatible/meta-llama/Llama-3.1-8B-Instruct")
    assert os.environ["PEERLAKE_PROVIDER"] == "openai_compatible"
    d = reviewer_defaults()
    assert (d.provider, d.model) == ("openai_compatible", "meta-llama/Llama-3.1-8B-Instruct")


@pytest.mark.parametrize("spec", ["gpt-4.1", "openia/gpt-4.1", "openai/"])
@pytest.mark.parametrize("command", [["run", "demo"], ["demo"], ["review"]])
def test_a_model_without_a_known_provider_is_refused_before_anything_runs(lake, spec, command):
    result = CliRunner().invoke(app, [*command, "--model", spec])
    assert result.exit_code == 2 and f"--model {spec!r}: give PROVIDER/MODEL" in " ".join(result.output.split())
    assert not (lake / "events").exists()
