"""Every reviewer system and the four PRISM judges on the seeds' hosted models, through `peerlake run`
(a real Dagster run), against a loopback server that answers as the hosted APIs do for those models
(tests/doubles/fake_model_rules.py): OpenAI's reasoning models refuse a temperature or a max_tokens with a
400 and spend output tokens on reasoning first; Claude takes temperature or top_p, not both; Gemini
(generateContent) refuses OpenAI's field names, and 2.5 Pro thinks first inside maxOutputTokens.

The server answers each request with a small instance of the schema it asks for (free text where it
asks for none), so the systems' and judges' parsers run on well-formed answers: this test checks the
requests' shape end to end, the systems' and judges' own tests check what they make of the answers.
The marts are left out (--no-build): tests/orchestration/test_systems_pipeline.py builds them. Needs the
shared data beside the checkout (a CC-BY paper with an appendix, for MLR's appendix agent); skipped without."""

import importlib
import json
import shutil
from pathlib import Path

import pytest

from peerlake.llm_calls.providers.model_rules import openai_family
from peerlake.reviewing.systems import SYSTEMS
from peerlake.studies import JUDGES, save_study
from peerlake.warehouse import EventLog, Lake
from tests.doubles.fake_server import FakeLlmServer, Reply
from tests.judging.support import schema_instance
from tests.orchestration.conftest import run_cli

# A sentence of every answer: the systems' reviews are made of it, so the judges' quotes of it are verbatim.
SENTENCE = "The evaluation uses too few seeds."
PAPER = "demo-001"
# MLR's appendix agent runs only on a paper with an appendix (no demo paper has one): 13 pages, appendix 12-13
APPENDIX_PDF = "acl2020_main207_SPECTER.pdf"


def instance(schema: dict):
    return schema_instance(schema, SENTENCE, boolean=False)


def steer(title: str | None, answer):
    """The judges' answers that let every judge step run: the first valid instance would stop the
    depth judge before grounding (no premise) and the flaws judge before validation (no known reviewer)."""
    if title == "judge_depth_labels":
        answer["labels"] = [{**label, "role": "premise"} for label in answer["labels"]]
    elif title == "judge_flaws_extract":  # R1 the human review, R2 the system's: the system's quote is verbatim
        answer["flaws"][0]["raised_by"] = [{"reviewer": f"R{i}", "quote": SENTENCE} for i in (1, 2)]
    elif title == "judge_flaws_validate":
        answer["evaluations"] = [{"flaw_id": "F1", "is_valid": True, "severity": "critical"}]
    elif title == "judge_flaws_order":
        answer["mentions"] = [{"flaw_id": "F1", "anchor": SENTENCE}]
    return answer


class HostedSchemaServer(FakeLlmServer):
    """Answers OpenAI's, Anthropic's and Gemini's shapes with an instance of the request's schema; the
    model rules (400s, reasoning spent first) stay the fake's own."""

    def _enter(self, body: dict) -> tuple[int, Reply]:
        number, _reply = super()._enter(body)
        fmt = body.get("response_format") or (body.get("output_config") or {}).get("format") or {}
        schema = ((fmt.get("json_schema") or {}).get("schema") or fmt.get("schema")
                  or (body.get("generationConfig") or {}).get("responseJsonSchema"))
        text = (json.dumps(steer(schema.get("title"), instance(schema))) if schema
                else f"Notes number {number} on the paper. {SENTENCE}")
        if str(body.get("model", "")).startswith("claude"):
            payload = self.anthropic_answer(body, number)
            payload["content"][0]["text"] = text
        elif str(body.get("model", "")).startswith("gemini"):
            payload = self.gemini_answer(body, number)
            payload["candidates"][0]["content"]["parts"][0]["text"] = text
        else:
            payload = self.openai_answer(body, number)
            payload["choices"][0]["message"]["content"] = text
        return number, Reply(body=payload)


# The cheapest configuration of each system that still runs all its steps (the AI Scientist: two
# members at temperature_ensemble, one reflection, the area chair's meta-review; AgentReview: one persona).
OPTIONS = {"ai-scientist": {"ensemble": 2, "reflections": 1}, "agentreview": {"sample_one": True}}
HOSTED = {  # provider, the systems' model, the judges' model, MLR's own options (the seed's)
    "openai": ("openai", "o4-mini", "o3", {}),
    "anthropic": ("anthropic", "claude-sonnet-4-5", "claude-sonnet-4-5", {"appendix_model": "claude-haiku-4-5"}),
    # the contradiction paper's builder and reviewers on 2.5 Pro; PRISM's judge, 2.5 Flash-Lite
    "gemini": ("gemini", "gemini-2.5-pro", "gemini-2.5-flash-lite", {}),
}


def _toml(value) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


def study_text(name: str, provider: str, model: str, judge_model: str, mlr_options: dict, folder: Path) -> str:
    lines = [f'name = "{name}"', f"judges = {_toml(list(JUDGES))}", "", "[papers]", 'corpus = "demo"',
             f"folders = {_toml([str(folder)])}"]
    for system in SYSTEMS:
        mlr = system.startswith("mlr")
        options = {**OPTIONS.get(system, {}), **(mlr_options if mlr else {})}
        papers = [PAPER, Path(APPENDIX_PDF).stem] if mlr else [PAPER]
        lines += ["", "[[reviewers]]", f'system = "{system}"', f'provider = "{provider}"', f'model = "{model}"',
                  f"papers = {_toml(papers)}"]
        lines += [f"options = {_toml(options)}"] if options else []
    lines += ["", "[judging]", f'papers = ["{PAPER}"]', "peerlake_samples = 1", "human_per_paper = 1",
              f'provider = "{provider}"', f'model = "{judge_model}"']
    return "\n".join(lines) + "\n"


# Both providers by default: each run is ~15-20 s on 2 cores (Dagster in a subprocess, ~70 loopback calls).
@pytest.mark.parametrize("hosted", list(HOSTED))
def test_every_system_and_judge_runs_on_the_seed_models_without_a_refused_request(tmp_path, shared_data, hosted):
    provider, model, judge_model, mlr_options = HOSTED[hosted]
    lake_root, folder = tmp_path / "lake", tmp_path / "papers"
    folder.mkdir()
    shutil.copy(shared_data / "cc_by_pdfs" / APPENDIX_PDF, folder)
    study = f"hosted-{hosted}"
    with HostedSchemaServer() as server:
        save_study(EventLog(Lake(lake_root).ensure()), study, study_text(study, provider, model, judge_model,
                                                                         mlr_options, folder))
        # The SDKs' own variables: the hosted providers' default endpoints are the loopback server here
        # (the openai and anthropic providers send to their default endpoint; a study's base_url is
        # openai_compatible's).
        env = {"PEERLAKE_HOME": str(lake_root), "PEERLAKE_DEMO_ONLY": PAPER,
               "OPENAI_API_KEY": "sk-test-hosted-rules", "OPENAI_BASE_URL": server.openai_base_url,
               "ANTHROPIC_API_KEY": "sk-ant-test-hosted-rules", "ANTHROPIC_BASE_URL": server.url,
               "GEMINI_API_KEY": "gemini-test-hosted-rules", "PEERLAKE_GEMINI_BASE_URL": server.url}
        result = run_cli(["run", study, "--no-build"], env)
        assert result.returncode == 0, result.stdout + result.stderr
    assert server.refused == []

    log = EventLog(Lake(lake_root))
    calls = list(log.iter_events("llm_call"))
    assert calls and len(calls) == server.requests == len(server.bodies)
    assert [(c.purpose, c.status, c.error_type) for c in calls if c.status != "ok"] == []
    assert {c.provider for c in calls} == {provider}

    # every system reviewed demo-001, and the two MLRs the paper with an appendix too: none null
    appendix_paper = Path(APPENDIX_PDF).stem
    expected = {(s, PAPER) for s in SYSTEMS} | {(s, appendix_paper) for s in SYSTEMS if s.startswith("mlr")}
    reviews = [(e.system, e.paper_id, e.status) for e in log.iter_events("system_review")]
    assert sorted(reviews) == sorted((s, p, "ok") for s, p in expected)
    steps = [c for c in calls if c.purpose == "system_step"]
    assert {c.system for c in steps} == set(SYSTEMS) and {c.model for c in steps if c.step != "appendix"} == {model}
    # MLR's appendix agent on its own model (the seed's Haiku on Anthropic); mlr-combined's identical
    # appendix request replays MLR's answer
    appendix = [(c.subject_id, c.model) for c in steps if c.step == "appendix"]
    assert appendix == [(appendix_paper, mlr_options.get("appendix_model", model))]

    # every step of every judge ran on the judge model, and each judge recorded judgments
    judge_steps = {t for j in JUDGES for t in importlib.import_module(f"peerlake.judging.{j}").TEMPLATES}
    judge_calls = [c for c in calls if c.purpose.startswith("judge_")]
    assert {c.purpose for c in judge_calls} == judge_steps and {c.model for c in judge_calls} == {judge_model}
    judgments = list(log.iter_events("judgment_recorded"))
    assert {j.judge for j in judgments} == set(JUDGES)
    assert {j.judge for j in judgments if j.status == "ok"} == set(JUDGES)

    for c in calls:
        asked, changes = json.loads(c.params_json), json.loads(c.param_changes_json or "null")
        if provider == "gemini":
            # 2.5 Pro thinks dynamically: its answer budget gets the largest thinking budget on top, and its
            # thoughts are output; Flash-Lite does not think unless asked: sent as asked
            thinks = c.model == "gemini-2.5-pro"
            assert changes == ({"changed": {"maxOutputTokens": asked["max_tokens"] + 32_768}} if thinks else None)
            assert c.reasoning_tokens == (server.reasoning_tokens_spent if thinks else None)
            assert c.finish_reason == "stop", c.purpose
        elif provider == "openai":
            # the asked temperature is dropped and recorded, the answer budget gets the reasoning reserve
            assert changes["dropped"] == {"temperature": asked["temperature"]}, c.purpose
            assert changes["changed"] == {"max_completion_tokens": asked["max_tokens"] + 25_000}, c.purpose
            assert c.reasoning_tokens == server.reasoning_tokens_spent and c.finish_reason == "stop"
        else:  # Claude has no seed (a sample label here) and takes the asked temperature alone
            assert changes == {"dropped": {"seed": asked["seed"]}}, c.purpose
            assert c.finish_reason == "end_turn"
    for body in server.bodies:
        if provider == "gemini":
            config = body["generationConfig"]
            assert "max_tokens" not in config and config["maxOutputTokens"] >= 1 and "temperature" in config
        elif provider == "openai":
            assert openai_family(body["model"]) == "reasoning"
            assert "temperature" not in body and "max_tokens" not in body and body["max_completion_tokens"] > 25_000
        else:
            assert "top_p" not in body and "seed" not in body and "thinking" not in body
