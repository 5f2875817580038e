"""Shared fixtures for the reviewer-system tests: a real lake and Gateway over a scripted loopback
server (the fake sits at the network edge only), real ingested papers, and runs built the way a
study builds them (the system's defaults with the overrides, `SystemConfig.identity()`).

    def test_x(system_server, system_gateway, ingested_paper, make_runs):
        paper = ingested_paper()                       # demo-001.pdf, ingested into the test's lake
        system_server.answer("mlr_outline", reply={...})   # by schema title; None for a free-text step
        runs = make_runs("mlr", [paper], options={"appendix_agent": False})
        outcomes = run_systems(system_gateway, runs, progress=False)
"""

from dataclasses import dataclass
from pathlib import Path

import pytest

from peerlake.llm_calls.gateway import Gateway
from peerlake.warehouse.log import EventLog
from tests.judging.support import ScriptedJudgeServer
from tests.llm_calls.support import FAKE_KEYS, providers_for

REPO = Path(__file__).resolve().parents[3]
DEMO_PAPER = REPO / "ingest" / "demo_corpus" / "papers" / "demo-001.pdf"
TEST_MODEL = "system-test-model"


@dataclass(frozen=True)
class IngestedPaper:
    paper_id: str
    title: str | None
    package: object  # ingest.package.ManuscriptPackage
    package_sha256: str
    pdf_sha256: str


@pytest.fixture
def embedded_model() -> str:
    """The embedded model the machinery tests run on (tests/embedded.py: the smaller one unless
    PEERLAKE_TEST_MODEL names another); the test skips when llama.cpp or the model file is missing."""
    from tests.embedded import machinery_model, require_model

    name = machinery_model()
    require_model(name)
    return name


@pytest.fixture
def system_log(lake, monkeypatch):
    """The test's event log; fake provider keys in the environment (the SDKs insist on one)."""
    for k, v in FAKE_KEYS.items():
        monkeypatch.setenv(k, v)
    return EventLog(lake)


@pytest.fixture
def system_server():
    """A loopback OpenAI/Anthropic server answering by rule: `answer(schema_title, *needles, reply=...)`
    (schema None for a free-text step); `requests`, `bodies`, `unmatched` show what reached it."""
    with ScriptedJudgeServer() as server:
        yield server


@pytest.fixture
def system_gateway(system_log, system_server):
    """A real Gateway on the test's lake whose openai / openai_compatible / anthropic providers all
    point at the loopback server; retries are fast so a scripted failure does not slow the test."""
    return Gateway(system_log, providers=providers_for(system_server), max_attempts=2, backoff_base_s=0.01,
                   backoff_max_s=0.02)


@pytest.fixture
def ingested_paper(system_log):
    """`ingested_paper(path=None, paper_id=None)`: ingest a PDF (default the 2-page demo-001.pdf) into
    the test's lake, as `peerlake ingest` does, and return its id, title, package and hashes. A path
    that does not exist skips the test (real data under ../shared/data is optional)."""
    from peerlake.ingest.manuscripts import ingest_pdf, load_package

    def ingest(path: Path | str | None = None, paper_id: str | None = None) -> IngestedPaper:
        path = Path(path) if path is not None else DEMO_PAPER
        if not path.exists():
            pytest.skip(f"test PDF not found: {path}")
        outcome = ingest_pdf(system_log, path, paper_id=paper_id)
        ev = outcome.event
        if ev is None:
            raise AssertionError(f"{path.name} was not ingested: {outcome.status} {outcome.reason}")
        return IngestedPaper(paper_id=ev.paper_id, title=ev.title,
                             package=load_package(system_log.blobs, ev.package_sha256),
                             package_sha256=ev.package_sha256, pdf_sha256=ev.pdf_sha256)

    return ingest


@pytest.fixture
def make_runs():
    """`make_runs(system, papers, samples=1, options=None, provider="openai", model=TEST_MODEL,
    max_output_tokens=1500, base_url=None, study="system-test")`: one SystemRun per (paper, sample),
    with the options resolved against the system's defaults (unknown options raise, as in a study)."""
    from peerlake.reviewing.systems import get_system
    from peerlake.reviewing.systems.base import SystemConfig, SystemRun

    def build(system: str, papers, samples: int = 1, options: dict | None = None, provider: str = "openai",
              model: str = TEST_MODEL, max_output_tokens: int = 1500, base_url: str | None = None,
              study: str | None = "system-test") -> list:
        opts = get_system(system).resolve(dict(options or {}))
        cfg = SystemConfig(system=system, provider=provider, model=model, options=tuple(sorted(opts.items())),
                           samples=samples, max_output_tokens=max_output_tokens, base_url=base_url)
        ident = cfg.identity()
        return [SystemRun(cfg=cfg, system_config=ident, paper_id=p.paper_id, title=p.title, package=p.package,
                          package_sha256=p.package_sha256, sample=k, study=study)
                for p in papers for k in range(samples)]

    return build
