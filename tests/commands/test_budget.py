"""`peerlake budget` from numbers, and its errors when the lake cannot answer."""

import json
import math

import pytest
import typer
from typer.testing import CliRunner

from peerlake.commands.budget import register
from peerlake.metrics.stats.budgets import kl_bernoulli


@pytest.fixture
def invoke():
    app = typer.Typer()
    register(app)
    app.command("noop")(lambda: None)  # a second command keeps `budget` a subcommand
    return lambda *args: CliRunner().invoke(app, ["budget", *args])


def test_from_numbers_json(invoke):
    result = invoke("--variance", "1.2", "--papers", "50", "--pilot-reviews", "4",
                    "--tolerance", "0.5", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["variance_hat"] == 1.2
    assert out["planning_budget"] == 96  # 1.2 / (0.05 · 0.25)
    assert out["range_only_budget"] == math.ceil(81 * math.log(40) / 0.5)
    # U solves M·kl(V̂/B, U/B) = log(1/α) with M = 50 · 2 and B = 81/2.
    assert 100 * kl_bernoulli(1.2 / 40.5, out["variance_upper"] / 40.5) == pytest.approx(math.log(20))
    assert out["certified_budget"] == math.ceil(out["variance_upper"] / (0.05 * 0.25))


def test_configs_split_alpha_and_text_output(invoke):
    one = json.loads(invoke("--variance", "1", "--papers", "30", "--pilot-reviews", "3",
                            "--tolerance", "0.25", "--json").output)
    many = json.loads(invoke("--variance", "1", "--papers", "30", "--pilot-reviews", "3",
                             "--tolerance", "0.25", "--configs", "10", "--json").output)
    assert many["alpha_per_config"] == pytest.approx(0.005)
    assert many["certified_budget"] > one["certified_budget"]
    text = invoke("--variance", "1", "--papers", "30", "--pilot-reviews", "3", "--tolerance", "0.25")
    assert text.exit_code == 0 and "certified" in text.output and str(one["certified_budget"]) in text.output


def test_clear_errors(invoke, lake):
    missing = invoke("--tolerance", "0.5")
    assert missing.exit_code == 2 and "no database" in missing.output and "peerlake build" in missing.output
    partial = invoke("--variance", "1", "--tolerance", "0.5")
    assert partial.exit_code == 2 and "--papers" in partial.output
    bad = invoke("--variance", "1", "--papers", "5", "--pilot-reviews", "2", "--tolerance", "0")
    assert bad.exit_code == 2 and "tolerance" in bad.output
