"""Fixtures for the judge tests: a temp lake, a rule-scripted loopback LLM server, a real Gateway
wired to it, and JudgeContexts for any judge module (see tests/judging/support.py for the helpers)."""

import pytest

from peerlake.judging.base import JudgeConfig, JudgeContext
from peerlake.llm_calls.gateway import Gateway
from peerlake.warehouse.log import EventLog
from tests.judging.support import JUDGE_MODEL, STUDY, ScriptedJudgeServer, make_review
from tests.llm_calls.support import FAKE_KEYS, providers_for


@pytest.fixture
def judge_log(lake, monkeypatch):
    """An EventLog on a fresh temp lake (the fake provider keys set, as the gateway needs a key)."""
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)
    return EventLog(lake)


@pytest.fixture
def judge_server():
    """ScriptedJudgeServer: `judge_server.answer("judge_depth_units", "<needle in prompt>", reply={...})`."""
    with ScriptedJudgeServer() as srv:
        yield srv


@pytest.fixture
def judge_gateway(judge_log, judge_server):
    """A real Gateway on judge_log whose "openai" provider is judge_server; 2 attempts, fast backoff."""
    return Gateway(judge_log, providers=providers_for(judge_server), max_attempts=2, backoff_base_s=0.01,
                   backoff_max_s=0.05)


@pytest.fixture
def make_judge_ctx(judge_log, judge_gateway):
    """make_judge_ctx(module, repeat=0, study=STUDY, options=None, **JudgeConfig fields) -> JudgeContext
    for a judge module (its JUDGE or name and TEMPLATES give the judge_config identity)."""
    def make(module, repeat: int = 0, study: str | None = STUDY, options: dict | None = None,
             **cfg) -> JudgeContext:
        cfg.setdefault("provider", "openai")
        cfg.setdefault("model", JUDGE_MODEL)
        config = JudgeConfig(**cfg)
        judge = getattr(module, "JUDGE", module.__name__.rsplit(".", 1)[-1])
        return JudgeContext(log=judge_log, gateway=judge_gateway, cfg=config,
                            judge_config=config.identity(judge, module.TEMPLATES), repeat=repeat, study=study,
                            progress=False, options=dict(options or {}))
    return make


@pytest.fixture(name="make_review")
def make_review_fixture():
    """make_review(("summary", "..."), ("weaknesses", "..."), key="human:r1", paper_id="paper-1", ...)."""
    return make_review
