"""MLR as the seed ran it (issue #24 §2): hosted step budgets with room for its ~3.9k output tokens, a
model per agent (the appendix agent on Haiku, the review agent on Sonnet), and the agents of each
experiment as a preset. The study builds the configuration (studies), the loopback server is
the provider's network edge."""

import json

import pytest

from peerlake.reviewing.systems import get_system
from peerlake.reviewing.systems.base import SystemOptionError, SystemRun, run_systems
from peerlake.reviewing.systems.mlr import DEFAULTS
from peerlake.studies import ReviewerSpec
from tests.reviewing.systems.test_mlr import SPECTER, _script

SEED_OUTPUT_TOKENS = 3913  # spec h.3: MLR's output tokens per paper on Claude
STEPS = ("appendix_max_tokens", "outline_max_tokens", "notes_max_tokens", "review_max_tokens")


def _config(provider: str, model: str, **options):
    return ReviewerSpec(system="mlr", provider=provider, model=model,
                        options=tuple(sorted(options.items()))).system_config()


def _runs(cfg, paper):
    return [SystemRun(cfg=cfg, system_config=cfg.identity(), paper_id=paper.paper_id, title=paper.title,
                      package=paper.package, package_sha256=paper.package_sha256, study="s")]


def _params(log) -> dict:
    return {e.step: (e.model, json.loads(e.params_json)["max_tokens"]) for e in log.iter_events("llm_call")}


def test_a_hosted_mlr_run_has_room_for_the_seeds_output_and_the_local_one_keeps_its_budgets():
    hosted, local = _config("openai", "gpt-4.1"), _config("local", "qwen")
    # a run's steps (appendix, pass 1-3) sum to 2,900 tokens on the embedded model: a long pass-3 review
    # on a hosted model was cut at 1,000 (and the system cap of 1,500) and nulled
    assert sum(local.opts[s] for s in STEPS) == 2900 and local.max_output_tokens == 1500
    assert {k: local.opts[k] for k in DEFAULTS} == DEFAULTS  # the local configuration is what it was
    assert sum(hosted.opts[s] for s in STEPS) >= SEED_OUTPUT_TOKENS
    assert hosted.opts["review_max_tokens"] >= 3000 and hosted.max_output_tokens >= hosted.opts["combined_max_tokens"]


def test_the_pass3_request_of_a_hosted_run_asks_for_that_room(system_log, system_server, system_gateway,
                                                             ingested_paper):
    _script(system_server)
    cfg = _config("openai", "gpt-4.1")
    [out] = run_systems(system_gateway, _runs(cfg, ingested_paper()), progress=False)
    assert out.review is not None
    assert _params(system_log)["pass3"] == ("gpt-4.1", cfg.opts["review_max_tokens"])
    assert cfg.opts["review_max_tokens"] > 1500


def test_the_appendix_agent_runs_on_its_own_model(system_log, system_server, system_gateway, ingested_paper):
    paper = ingested_paper(SPECTER)
    _script(system_server)
    cfg = _config("openai", "gpt-4.1", appendix_model="gpt-4.1-mini")
    [out] = run_systems(system_gateway, _runs(cfg, paper), progress=False)
    assert out.review is not None
    models = {step: model for step, (model, _) in _params(system_log).items()}
    assert models == {"appendix": "gpt-4.1-mini", "pass1": "gpt-4.1", "pass2": "gpt-4.1", "pass3": "gpt-4.1"}
    assert cfg.identity() != _config("openai", "gpt-4.1").identity()


def test_presets_switch_the_agents_as_each_experiment_did_and_a_set_option_wins():
    mlr = get_system("mlr")
    review_only = mlr.resolve({"preset": "review_only"})
    assert (review_only["appendix_agent"], review_only["literature_agent"]) == (False, False)
    assert mlr.templates(review_only) == ["mlr_outline", "mlr_notes", "mlr_final"]
    conference = mlr.resolve({"preset": "conference"})
    assert (conference["appendix_agent"], conference["literature_agent"]) == (True, True)
    assert mlr.resolve({"preset": "user_study"})["todo_list"] is True
    assert mlr.resolve({"preset": "conference", "literature_agent": False})["literature_agent"] is False
    assert get_system("mlr-combined").resolve({"preset": "review_only"})["appendix_agent"] is False
    # options in a configuration only when set: one that names none keeps its identity
    assert not {"preset", "appendix_model", "literature_model"} & set(mlr.resolve({}))
    with pytest.raises(SystemOptionError, match="preset"):
        mlr.resolve({"preset": "contradictions"})
    with pytest.raises(SystemOptionError, match="appendix_model"):
        mlr.resolve({"appendix_model": ""})


def test_the_plan_names_an_agents_own_model(ingested_paper):
    paper = ingested_paper(SPECTER)
    cfg = _config("openai", "gpt-4.1", appendix_model="gpt-4.1-mini")
    plan = {s.step: s for s in cfg.impl.plan(cfg.opts, paper.package, cfg.provider)}
    assert (plan["appendix"].model, plan["pass1"].model) == ("gpt-4.1-mini", None)
    assert plan["pass3"].max_output_tokens == cfg.opts["review_max_tokens"]
