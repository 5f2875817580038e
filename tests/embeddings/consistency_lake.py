"""A lake of AI reviews for int_review_items and review_consistency, written event by event and sealed.

Study S (papers P1, P2 and V, a built variant of P1): template reviewers A (samples 2) and B (samples 1),
both reviewer_scoring answers in llm_call events, and the reviewer system cfg-sys "mlr" (samples 1).
Items are repeats of five texts (s1, s2: strengths; c1, c2, c3: concerns), so most cosines are exactly 1:
  P1  A/0  strengths [s1, s2]  concerns [c1, c2]
      A/1  strengths [s1, s2]  concerns [c1, ""]     (the empty concern is dropped; c1 keeps index 0)
      B/0  strengths [s1]      concerns [c3]
      sys  strengths [s2, s1]  weaknesses [c1, c2]
      A/2  beyond A's K = 2: not S's                    (texts "excluded …": never embedded)
  P2  A/0  strengths [s1]      concerns [c2]
      A/1  not parsed (score 11): left out
      B/0  strengths [s1, s2]  concerns [c2]
  V   A/0  a variant's review: left out
"""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from peerlake.llm_calls.types import LlmRequest
from peerlake.studies import resolution_event
from peerlake.warehouse import EventLog, Lake, LlmCall, PaperIngested
from peerlake.warehouse.events import PaperVariantRecorded, SystemReviewRecorded

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
TEXTS = {"s1": "The proposed method is novel and clearly motivated.",
         "s2": "Experiments cover many datasets.",
         "c1": "The paper lacks an ablation study.",
         "c2": "No comparison with strong recent baselines.",
         "c3": "The writing is hard to follow in Section 3."}
VARIANT = "P1~hidden_text-0123456789"
CONFIGS = {"A": {"provider": "openai", "model": "m-a"}, "B": {"provider": "openai", "model": "m-b"}}


def _answer(strengths: list[str], concerns: list[str], score: int = 6) -> str:
    return json.dumps({"summary": "s", "strengths": strengths, "concerns": concerns, "overall_score": score,
                       "confidence": 3, "rationale": "r"})


def build_consistency_lake(root: Path) -> dict[str, str]:
    """Write and seal the events; returns reviewer_config by name (A, B, sys)."""
    log = EventLog(Lake(root))
    at = [T0]

    def tick() -> datetime:
        at[0] += timedelta(seconds=1)
        return at[0]

    events: list = [PaperIngested(occurred_at=tick(), paper_id=p, title=f"Paper {p}", source_uri=f"file:///{p}.pdf",
                                  pdf_sha256="a" * 64, package_sha256="b" * 64, n_pages=8, n_text_records=10,
                                  n_chars=1000, venue="TEST 2026") for p in ("P1", "P2")]
    events.append(PaperVariantRecorded(occurred_at=tick(), variant_key="v" * 64, variant_id=VARIANT,
                                       kind="hidden_text", base_paper_id="P1", base_package_sha256="b" * 64,
                                       experiment_config="e" * 16, built=True, reason=None, pdf_sha256="c" * 64,
                                       package_sha256="d" * 64, details_json="{}"))
    configs = {}

    def review(name: str, paper: str, sample: int, text: str) -> None:
        req = LlmRequest(provider=CONFIGS[name]["provider"], model=CONFIGS[name]["model"],
                         messages=({"role": "user", "content": f"review {paper}"},),
                         params={"temperature": 0.7, "seed": sample}, sample_index=sample,
                         prompt_template="reviewer_scoring", prompt_hash=f"h-{name}", purpose="review",
                         subject_id=paper)
        configs[name] = req.reviewer_config
        events.append(LlmCall(
            occurred_at=tick(), request_key=req.request_key, prompt_template=req.prompt_template,
            prompt_hash=req.prompt_hash, reviewer_config=req.reviewer_config, purpose="review", subject_id=paper,
            sample_index=sample, provider=req.provider, model=req.model, params_json=json.dumps(req.params),
            request_sha256="0" * 64, response_sha256="1" * 64, response_text=text, finish_reason="stop",
            input_tokens=100, cached_input_tokens=0, cache_write_tokens=0, output_tokens=50, reasoning_tokens=0,
            cost_usd=0.0, cost_status="priced", price_table_version=None, latency_ms=10.0, attempt=1, status="ok"))

    t = TEXTS
    review("A", "P1", 0, _answer([t["s1"], t["s2"]], [t["c1"], t["c2"]]))
    review("A", "P1", 1, _answer([t["s1"], t["s2"]], [t["c1"], ""]))
    review("A", "P1", 2, _answer(["excluded: beyond K"], ["excluded: beyond K too"]))
    review("B", "P1", 0, _answer([t["s1"]], [t["c3"]]))
    review("A", "P2", 0, _answer([t["s1"]], [t["c2"]]))
    review("A", "P2", 1, _answer(["excluded: unparsed"], ["excluded: unparsed too"], score=11))
    review("B", "P2", 0, _answer([t["s1"], t["s2"]], [t["c2"]]))
    review("A", VARIANT, 0, _answer(["excluded: a variant"], ["excluded: a variant too"]))
    events.append(SystemReviewRecorded(
        occurred_at=tick(), review_key="rk-sys-P1", system="mlr", system_config="cfg-sys", system_version=1,
        paper_id="P1", package_sha256="b" * 64, sample_index=0, provider="openai", model="m", status="ok",
        null_reason=None, review_json=json.dumps({"strengths": [t["s2"], t["s1"]], "weaknesses": [t["c1"], t["c2"]]}),
        score=5.0, score_scale="neurips_1_10", confidence=None, calls_json="[]", options_json="{}", study="S"))
    configs["sys"] = "cfg-sys"
    reviewers = [{"reviewer_config": configs["A"], "provider": "openai", "model": "m-a", "samples": 2,
                  "template": "reviewer_scoring"},
                 {"reviewer_config": configs["B"], "provider": "openai", "model": "m-b", "samples": 1,
                  "template": "reviewer_scoring"}]
    events.append(resolution_event("S", "s" * 64, ["P1", "P2", VARIANT], reviewers, (), "test"))
    events.append(resolution_event("S", "s" * 64, ["P1", "P2", VARIANT],
                                   [{"reviewer_config": "cfg-sys", "system": "mlr", "provider": "openai", "model": "m",
                                     "samples": 1}], (), "test", asset="system_reviews"))
    log.append_many(events)
    log.seal()
    log.close()
    return configs
