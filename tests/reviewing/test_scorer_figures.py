"""The Scorer sees the figures (seed 001, appendix B.2; issue #46): on a real PDF with figures, ingested and
rendered for real, each provider's request carries the paper's images within that provider's documented
limits (the limits are written here from the providers' pages, not read from llm_calls/image_limits.py);
the recorded request names them and never holds their bytes; a set over a limit is cut by the stated
rule; a text-only model sends none and the study resolution says so."""

import base64
import json

import pymupdf
import pytest

from peerlake.ingest.manuscripts import load_package
from peerlake.ingest.papers import ingest_pdf, latest_versions
from peerlake.llm_calls import image_limits
from peerlake.llm_calls.gateway import Gateway
from peerlake.llm_calls.images import fit_figures
from peerlake.reviewing.scoring import ReviewerConfig, package_figures, review_requests
from peerlake.studies import parse_study, record_resolution
from peerlake.warehouse import EventLog
from tests.doubles.fake_server import FakeLlmServer
from tests.llm_calls.support import FAKE_KEYS, llm_events, providers_for

# S2ORC (ACL 2020, CC BY): 4 figures, one 2412x1318 px and one 1718x1692 px PNG of 1.4 MB.
PAPER = "acl2020_main447_S2ORC.pdf"
MB = 1024 * 1024
# The documented limits (bytes are base64 characters; 1,568 px is seed 001's B.2 read size for every Scorer):
# Anthropic: 100 images, 5 MB an image, 32 MB a request, read at <= 1,568 px and ~1.15 MP.
# OpenAI: 500 images, 20 MB an image, 50 MB a request, high detail read at 2048 px fit then a 768-px short side.
# Gemini: 3,600 images, inline data within a 20 MB request, scaled to fit 3072x3072.
DOCUMENTED = {
    "anthropic": {"images": 100, "long": 1568, "short": None, "mp": 1.15, "image": 5 * MB, "request": 32 * MB},
    "openai": {"images": 500, "long": 1568, "short": 768, "mp": None, "image": 20 * MB, "request": 50 * MB},
    "gemini": {"images": 3600, "long": 1568, "short": None, "mp": None, "image": 20 * MB, "request": 20 * MB},
}
MODELS = {"anthropic": "claude-haiku-4-5", "openai": "gpt-4o", "gemini": "gemini-2.5-flash"}


@pytest.fixture
def paper(lake, shared_data, monkeypatch):
    for k, v in FAKE_KEYS.items():
        monkeypatch.setenv(k, v)
    log = EventLog(lake)
    ingest_pdf(log, shared_data / "cc_by_pdfs" / PAPER, paper_id="s2orc")
    return log, latest_versions(log)["s2orc"]


@pytest.fixture
def server():
    with FakeLlmServer() as srv:
        yield srv


def scorer(provider: str, model: str | None = None) -> ReviewerConfig:
    return ReviewerConfig(provider=provider, model=model or MODELS[provider], template="reviewer_scoring",
                          samples=1, temperature=0.7, max_output_tokens=2000)


def sent_images(provider: str, body: dict) -> list[str]:
    """The base64 images of the request body as the API received it."""
    if provider == "anthropic":
        return [b["source"]["data"] for m in body["messages"] if isinstance(m["content"], list)
                for b in m["content"] if b["type"] == "image"]
    if provider == "openai":
        return [p["image_url"]["url"].split(",", 1)[1] for m in body["messages"] if isinstance(m["content"], list)
                for p in m["content"] if p["type"] == "image_url"]
    return [p["inline_data"]["data"] for c in body["contents"] for p in c["parts"] if "inline_data" in p]


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_the_scorer_sends_the_papers_figures_within_the_providers_limits(paper, server, provider):
    log, ingested = paper
    package = load_package(log.blobs, ingested.package_sha256)
    figures = package_figures(package)
    assert len(figures) == 4 and max(f["width"] for f in figures) == 2412  # the premise: one is over every limit
    [req] = review_requests(log, ingested, scorer(provider))
    Gateway(log, providers=providers_for(server)).call(req)
    assert server.refused == []
    [body] = server.bodies
    limit = DOCUMENTED[provider]
    images = sent_images(provider, body)
    assert len(images) == len(figures) <= limit["images"]
    assert len(json.dumps(body)) <= limit["request"]
    for b64, figure in zip(images, figures, strict=True):
        assert len(b64) <= limit["image"]
        pix = pymupdf.Pixmap(base64.b64decode(b64))  # a real PNG
        w, h = pix.width, pix.height
        assert max(w, h) <= limit["long"] and (limit["short"] is None or min(w, h) <= limit["short"])
        assert limit["mp"] is None or w * h <= limit["mp"] * 1e6
        # the figure itself, drawn whole: its aspect ratio, not a blank page
        assert abs(w / h - figure["width"] / figure["height"]) < 0.01
        assert len(set(pix.samples)) > 2
    # The recorded request names each figure (its stored hash) and the size it was sent at, never the bytes.
    [ev] = llm_events(log)
    stored = json.loads(log.blobs.get_text(ev.request_sha256))
    recorded = [img for m in stored["messages"] for img in m.get("images", ())]
    assert [r["sha256"] for r in recorded] == [f["sha256"] for f in figures]
    assert [(r["width"], r["height"]) for r in recorded] == \
        [(p.width, p.height) for p in (pymupdf.Pixmap(base64.b64decode(b)) for b in images)]
    assert images[0][:200] not in log.blobs.get_text(ev.request_sha256)


def test_a_figure_over_its_byte_share_is_drawn_again_at_half_size(paper, server, monkeypatch):
    """Rule: the bytes left beside the text are shared equally; a figure whose PNG is over its share is
    drawn again at half the size until it fits (the 1.4 MB 1718x1692 figure, under a 2 MB request)."""
    log, ingested = paper
    small = image_limits.ImageLimits(max_images=100, max_long_edge_px=1568, max_short_edge_px=None,
                                     max_megapixels=None, max_image_bytes=5 * MB, max_request_bytes=2 * MB,
                                     source="a 2 MB request (test)")
    monkeypatch.setitem(image_limits.LIMITS, "anthropic", small)
    [req] = review_requests(log, ingested, scorer("anthropic"))
    [entries] = [m["images"] for m in req.messages if m.get("images")]
    text = sum(len(json.dumps(m.get("content"))) for m in req.messages)
    share = entries[0]["max_bytes"]
    assert share <= (2 * MB - text) // 4 and {e["max_bytes"] for e in entries} == {share}
    Gateway(log, providers=providers_for(server)).call(req)
    [body] = server.bodies
    images = sent_images("anthropic", body)
    assert all(len(b) <= share for b in images) and len(json.dumps(body)) <= 2 * MB
    sizes = [(p.width, p.height) for p in (pymupdf.Pixmap(base64.b64decode(b)) for b in images)]
    planned = [(e["width"], e["height"]) for e in entries]
    halved = [i for i, (s, p) in enumerate(zip(sizes, planned, strict=True)) if s != p]
    assert halved, "the premise: some figure is over its share at its planned size"
    for i in halved:  # halved (integer halves), never anything else
        w, h = planned[i]
        while (w, h) != sizes[i]:
            assert w > 1 and (w, h) > sizes[i]
            w, h = max(1, w // 2), max(1, h // 2)


def test_a_set_over_the_count_or_the_request_is_cut_from_the_end_in_reading_order(paper):
    log, ingested = paper
    real = package_figures(load_package(log.blobs, ingested.package_sha256))
    # 130 figures of the paper's own sizes (distinct hashes): Anthropic's 100 and the Scorer's 100 keep the first 100.
    many = [{**real[i % 4], "sha256": f"{i:064x}"} for i in range(130)]
    fit = fit_figures("anthropic", "claude-haiku-4-5", many, text_bytes=200_000)
    assert [i["sha256"] for i in fit.images] == [f["sha256"] for f in many[:100]]
    assert fit.dropped == [f"{f['sha256'][:12]}: beyond the 100-image limit" for f in many[100:]]
    # A request almost full of text: only as many figures as get a 16 KB share each, the first ones.
    full = 32 * MB - 64 * 1024 - 3 * 16 * 1024 + 10  # room for 3 shares of 16 KB less 10 bytes: 2 figures
    fit = fit_figures("anthropic", "claude-haiku-4-5", many, text_bytes=full)
    assert [i["sha256"] for i in fit.images] == [f["sha256"] for f in many[:2]]
    assert fit.dropped[0] == f"{many[2]['sha256'][:12]}: no room in the 32 MB request"
    # A figure MuPDF cannot draw (JBIG2) is left out, and says why; the order of the rest holds.
    odd = [{**real[0], "ext": "jb2"}, *real[1:]]
    fit = fit_figures("gemini", "gemini-2.5-pro", odd, text_bytes=1000)
    assert [i["sha256"] for i in fit.images] == [f["sha256"] for f in real[1:]]
    assert fit.dropped == [f"{real[0]['sha256'][:12]}: format 'jb2' or size unknown"]


@pytest.mark.parametrize(("provider", "model"), [("openai", "o3-mini"), ("local", "qwen2.5-1.5b-instruct")])
def test_a_text_only_model_gets_no_figures_and_the_resolution_says_so(paper, provider, model):
    log, ingested = paper
    cfg = scorer(provider, model)
    [req] = review_requests(log, ingested, cfg)
    assert not any("images" in m for m in req.messages)
    study = parse_study("s", f'name = "s"\n[papers]\nids = ["s2orc"]\n[[reviewers]]\nprovider = "{provider}"\n'
                             f'model = "{model}"\nsamples = 1\n[[reviewers]]\nprovider = "anthropic"\n'
                             'model = "claude-haiku-4-5"\nsamples = 1\n')
    event = record_resolution(log, study, ["s2orc"], [r.config() for r in study.reviewers], asset="ai_reviews")
    text_only, sees = (r["figures"] for r in json.loads(event.reviewers_json))
    assert text_only == f"the Scorer reads text only on {provider}/{model}: no figures"
    assert sees.startswith("the Scorer reads the figures on anthropic/claude-haiku-4-5: at most 100 a request, "
                           "long edge <= 1568 px")


def test_a_dry_run_packaging_the_pdf_in_memory_builds_the_same_requests(paper, shared_data):
    """The figures are chosen from the package alone (no bytes read), so the dry run's in-memory package
    of a PDF not yet ingested gives the run's request keys, figures included."""
    from peerlake.ingest.manuscripts import extract_package
    from peerlake.reviewing.scoring import package_review_requests

    log, ingested = paper
    package, _ = extract_package((shared_data / "cc_by_pdfs" / PAPER).read_bytes())
    for provider in MODELS:
        cfg = scorer(provider)
        in_memory = package_review_requests("s2orc", ingested.title, package, cfg)
        assert any(m.get("images") for m in in_memory[0].messages)
        assert [r.request_key for r in in_memory] == [r.request_key for r in review_requests(log, ingested, cfg)]
