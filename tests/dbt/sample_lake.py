"""A small lake of real events (written with EventLog and sealed) for dbt and gate tests."""

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from peerlake.llm_calls.types import LlmRequest
from peerlake.warehouse import EventLog, HumanReviewImported, Lake, LlmCall, PaperIngested
from tests.studies.cover import cover_everything

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)

# (paper, reviewer) -> one response text per sample. Most are valid reviews; the rest are the
# ways a model's answer goes wrong and must be flagged rather than dropped.
CONFIG_A = {"provider": "local", "model": "qwen-1.5b", "template": "review_v1", "hash": "h-a"}
CONFIG_B = {"provider": "openai", "model": "gpt-4.1-mini", "template": "review_v2", "hash": "h-b"}


def review_json(score, confidence=4, **extra) -> str:
    body = {"overall_score": score, "confidence": confidence, "summary": "s",
            "strengths": ["clear"], "concerns": ["small n"], "rationale": "r", **extra}
    return json.dumps(body)


RESPONSES: dict[tuple[str, str], list[str]] = {
    ("P1", "A"): [review_json(5), review_json(5), review_json(6)],
    ("P2", "A"): [review_json(4), review_json(4), "I think this paper is good."],
    ("P3", "A"): [review_json(7), review_json(42), "```json\n" + review_json(3) + "\n```"],
    ("P1", "B"): [review_json(6, 3), review_json(8, 3)],
    ("P2", "B"): [review_json(9, 7)],  # confidence out of range
}


@dataclass
class SampleLake:
    root: Path
    llm_calls: list[LlmCall] = field(default_factory=list)
    papers: list[PaperIngested] = field(default_factory=list)
    human_reviews: list[HumanReviewImported] = field(default_factory=list)
    config_ids: dict[str, str] = field(default_factory=dict)  # "A"/"B" -> reviewer_config


def _request(cfg: dict, paper: str, sample: int, purpose: str = "review") -> LlmRequest:
    return LlmRequest(provider=cfg["provider"], model=cfg["model"],
                      messages=({"role": "user", "content": f"review {paper}"},),
                      params={"temperature": 0.7, "seed": sample}, sample_index=sample,
                      prompt_template=cfg["template"], prompt_hash=cfg["hash"],
                      purpose=purpose, subject_id=paper)


def _call(req: LlmRequest, at: datetime, *, text: str | None, status: str = "ok",
          attempt: int = 1, cost: float | None = 0.001, cached: int | None = 0) -> LlmCall:
    ok = status == "ok"
    return LlmCall(
        occurred_at=at, request_key=req.request_key, prompt_template=req.prompt_template,
        prompt_hash=req.prompt_hash, reviewer_config=req.reviewer_config,
        purpose=req.purpose, subject_id=req.subject_id, sample_index=req.sample_index,
        provider=req.provider, model=req.model, params_json=json.dumps(req.params),
        request_sha256="0" * 64, response_sha256=("1" * 64) if ok else None,
        response_text=text if ok else None, finish_reason="stop" if ok else None,
        input_tokens=1000 if ok else None, cached_input_tokens=cached if ok else None,
        cache_write_tokens=50 if ok else None, output_tokens=200 if ok else None,
        reasoning_tokens=0 if ok else None, cost_usd=cost if ok else None,
        cost_status=("priced" if cost is not None else "unknown_model") if ok else "no_usage",
        price_table_version="2026-01", latency_ms=1234.5, attempt=attempt, status=status,
        error_type=None if ok else "RateLimitError", error_message=None if ok else "429")


def build_sample_lake(root: Path) -> SampleLake:
    """Write papers, human reviews and LLM calls as real events, then seal them to Parquet."""
    lake = Lake(root)
    log = EventLog(lake)
    out = SampleLake(root=root)
    at = T0
    configs = {"A": CONFIG_A, "B": CONFIG_B}
    for (paper, key), texts in RESPONSES.items():
        for sample, text in enumerate(texts):
            at += timedelta(seconds=1)
            req = _request(configs[key], paper, sample)
            out.config_ids[key] = req.reviewer_config
            if (paper, key, sample) == ("P1", "A", 0):  # a failed attempt before the ok one
                out.llm_calls.append(_call(req, at, text=None, status="error"))
                at += timedelta(seconds=1)
            cost = None if (paper, key) == ("P1", "B") else 0.001 * (sample + 1)
            out.llm_calls.append(_call(req, at, text=text, cost=cost, cached=100 * sample,
                                       attempt=2 if (paper, key, sample) == ("P1", "A", 0) else 1))
    # A defensive-dedupe case: a second ok event for an already answered request (first wins).
    at += timedelta(seconds=1)
    out.llm_calls.append(_call(_request(CONFIG_A, "P1", 1), at, text=review_json(10)))
    # A non-review call by the same model: counted in costs, never a review score.
    at += timedelta(seconds=1)
    extract = _request(CONFIG_A, "P1", 0, purpose="extract_claims")
    out.llm_calls.append(_call(extract, at, text='{"claims": []}'))

    for i, paper in enumerate(["P1", "P2", "P3"]):
        out.papers.append(PaperIngested(
            occurred_at=T0 + timedelta(minutes=i), paper_id=paper, title=f"Paper {paper}",
            source_uri=f"file:///{paper}.pdf", pdf_sha256="a" * 64, package_sha256="b" * 64,
            n_pages=8 + i, n_text_records=100, n_chars=40_000, venue="TEST 2026"))
    # A re-ingested P1: dim_papers must show this version.
    out.papers.append(PaperIngested(
        occurred_at=T0 + timedelta(hours=1), paper_id="P1", title="Paper P1 (revised)",
        source_uri="file:///P1v2.pdf", pdf_sha256="c" * 64, package_sha256="d" * 64,
        n_pages=12, n_text_records=120, n_chars=50_000, venue="TEST 2026"))
    for review_id, paper, rating, at_min in [("R1", "P1", 6.0, 0), ("R2", "P1", 8.0, 0),
                                             ("R3", "P2", 3.0, 0), ("R3", "P2", 5.0, 5)]:
        out.human_reviews.append(HumanReviewImported(
            occurred_at=T0 + timedelta(minutes=at_min), paper_id=paper, review_id=review_id,
            source="openreview", venue="TEST 2026", rating=rating, rating_scale="TEST:1,2,3,4,5,6,7,8,9,10",
            confidence=3.0, body_sha256="e" * 64))

    log.append_many(out.llm_calls + out.papers + out.human_reviews)
    cover_everything(log)  # one study, "test", covering every paper and configuration
    log.seal()
    log.close()
    return out
