"""A study's pre-flight (costs/study_checks.py): every model it resolves to is checked, each judge of a panel
under its own name; a model whose calls all replay needs no key, so its finding is a warning (issue 46)."""

import pytest

from peerlake.costs.estimate import Estimate
from peerlake.costs.study_checks import REPLAYS, study_findings, study_uses
from peerlake.llm_calls.preflight import ModelUse
from peerlake.studies import parse_study

STUDY = """name = "s"
judges = ["constructiveness"]
[papers]
corpus = "demo"
[[reviewers]]
provider = "openai"
model = "gpt-4.1-mini"
[judging]
provider = "openai"
model = "gpt-4.1-mini"
[[judging.panel]]
name = "t0"
[[judging.panel]]
name = "claude"
provider = "anthropic"
model = "claude-haiku-4-5"
"""


@pytest.fixture(autouse=True)
def no_keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PEERLAKE_PROVIDER", "PEERLAKE_MODEL", "PEERLAKE_ALLOW_MODELS"):
        monkeypatch.delenv(name, raising=False)


def row(provider: str, model: str, new: bool) -> dict:
    return {"provider": provider, "model": model, "new": new, "calls": 2.0}


def test_every_reviewer_and_panel_judge_is_a_use():
    uses, in_experiments = study_uses(parse_study("s", STUDY))
    assert uses == [ModelUse("openai", "gpt-4.1-mini", None, "reviewer reviewer_scoring"),
                    ModelUse("openai", "gpt-4.1-mini", None, "judge panel t0"),
                    ModelUse("anthropic", "claude-haiku-4-5", None, "judge panel claude")]
    assert in_experiments == set()


def test_a_missing_key_blocks_only_where_a_call_is_new():
    study = parse_study("s", STUDY)
    est = Estimate(study="s", rows=[row("openai", "gpt-4.1-mini", False), row("anthropic", "claude-haiku-4-5", True)])
    found = study_findings(None, study, None, estimate=est, today=None)
    assert [(f.provider, f.blocking) for f in found] == [("openai", False), ("anthropic", True)]
    assert found[0].message == ("openai/gpt-4.1-mini (reviewer reviewer_scoring, judge panel t0): no API key for "
                                "provider 'openai': set OPENAI_API_KEY; `peerlake run … --dry-run` estimates "
                                "without it" + REPLAYS)
    assert found[1].message.startswith("anthropic/claude-haiku-4-5 (judge panel claude): no API key for provider "
                                       "'anthropic': set ANTHROPIC_API_KEY")


def test_nothing_is_estimated_when_nothing_blocks(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    # no log, no gateway: an estimate would fail on them
    assert [f for f in study_findings(None, parse_study("s", STUDY), None) if f.blocking] == []
