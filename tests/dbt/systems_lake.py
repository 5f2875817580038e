"""A lake of reviewer systems' events, written event by event and sealed, for the system marts and gates.

Study S (papers P1, P2) runs two systems on openai/gpt-t (priced 4 $/M input, 16 $/M output from
2026-01-01):
  - cfg-ai, "ai-scientist" (scores on neurips_1_10), 2 samples: an ensemble of 2 reviews (step review,
    round 0), a reflection of each (step reflect, round 1) and a meta-review (step meta, round 0):
      P1/0  ok, score 6; latencies review 10 s | 12 s, reflect 5 | 4, meta 3           (5 calls)
      P1/1  ok, score 8; review 10 | 10 (m0 failed once first), reflect 4 | 6, meta 3 then a repair 2
            (6 calls) — every call made earlier by study OLD: study S replays them
      P2/0  ok, score 12: off the 1-10 scale, flagged; every call 1 s                    (5 calls)
      P2/1  null review: "meta: unparseable answer (no JSON object)"; review, reflect, meta + repair, 1 s each
            (6 calls)
      and an older review of P1/0 (score 3, other calls) that the newest one supersedes.
  - cfg-llm, "llm-review" (no score, no scale), 1 sample: one call per review.
      P1/0  ok, 30 s;  P2/0  ok, 20 s, its call made on 2025-12-31, before gpt-t had a price: unpriced;
      P1/1  beyond the study's K = 1: not counted.
Study T (paper P1, cfg-ai with 1 sample) reads the same reviews: it made none of their calls.
Every answered call: 1,000 input tokens, 100 output → (1000·4 + 100·16)/1e6 = 0.0056 USD.
"""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from peerlake.llm_calls.cost import parse_price_table
from peerlake.studies import resolution_event
from peerlake.warehouse import EventLog, Lake, LlmCall, PaperIngested
from peerlake.warehouse.events import PriceTableRecorded, SystemReviewRecorded

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
CALL_COST = (1000 * 4 + 100 * 16) / 1e6  # 0.0056
NULL_REASON = "meta: unparseable answer (no JSON object)"
TABLE = parse_price_table("""
version = "sys-1"
[[openai."gpt-t"]]
effective_from = 2026-01-01
checked = 2026-03-01
input = 4.0
cached_input = 1.0
output = 16.0
""")


class _Writer:
    def __init__(self):
        self.events: list = []
        self.at = T0
        self.n = 0

    def tick(self) -> datetime:
        self.at += timedelta(seconds=1)
        return self.at

    def call(self, config: str, system: str, paper: str, step: str, round_: int, member: int, latency_s: float,
             *, study: str | None, at: datetime | None = None, failed_first: bool = False) -> dict:
        """One answered call (after a failed attempt when failed_first); its calls_json entry."""
        self.n += 1
        key = f"rk-{self.n:03d}"
        common = {"request_key": key, "prompt_template": f"{system}_{step}", "prompt_hash": "h",
                  "reviewer_config": config, "purpose": "system_step", "subject_id": paper, "sample_index": 0,
                  "provider": "openai", "model": "gpt-t", "params_json": "{}", "request_sha256": "0" * 64,
                  "price_table_version": "sys-1", "study": study, "system": system, "step": step, "round": round_}
        if failed_first:
            self.events.append(LlmCall(occurred_at=at or self.tick(), **common, response_sha256=None,
                                       response_text=None, finish_reason=None, input_tokens=None,
                                       cached_input_tokens=None, cache_write_tokens=None, output_tokens=None,
                                       reasoning_tokens=None, cost_usd=None, cost_status="no_usage",
                                       latency_ms=500.0, attempt=1, status="error", error_type="RateLimitError",
                                       error_message="429"))
        ev = LlmCall(occurred_at=at or self.tick(), **common, response_sha256="1" * 64, response_text="{}",
                     finish_reason="stop", input_tokens=1000, cached_input_tokens=0, cache_write_tokens=0,
                     output_tokens=100, reasoning_tokens=0, cost_usd=CALL_COST, cost_status="priced",
                     latency_ms=latency_s * 1000, attempt=2 if failed_first else 1, status="ok")
        self.events.append(ev)
        return {"request_key": key, "llm_call_id": ev.event_id, "step": step, "round": round_, "member": member}

    def review(self, config: str, system: str, paper: str, sample: int, calls: list[dict], *, score=None,
               scale=None, status="ok", null_reason=None, study="S", review: dict | None = None):
        body = review if review is not None else {
            "summary": f"{system} on {paper}", "strengths": ["clear"], "weaknesses": ["small n", "no ablation"],
            "questions": "Why this baseline?", "recommendation": "accept", "score": score, "score_scale": scale,
            "confidence": 4.0 if score is not None else None, "sub_scores": {"soundness": 3}, "sections": {},
            "extra": {}}
        ok = status == "ok"
        self.events.append(SystemReviewRecorded(
            occurred_at=self.tick(), review_key=f"review-{system}-{paper}-{sample}-{len(self.events)}", system=system,
            system_config=config, system_version=1, paper_id=paper, package_sha256="b" * 64, sample_index=sample,
            provider="openai", model="gpt-t", status=status, null_reason=null_reason,
            review_json=json.dumps(body) if ok else "{}", score=score if ok else None, score_scale=scale,
            confidence=(4.0 if score is not None else None) if ok else None, calls_json=json.dumps(calls),
            options_json="{}", study=study))
        return self.events[-1]


def _ensemble(w: _Writer, paper: str, lat: dict, *, study="S", repair=None, failed_first=False) -> list[dict]:
    """review (2 members, round 0) → reflect (2 members, round 1) → meta (round 0, optional repair)."""
    calls = [w.call("cfg-ai", "ai-scientist", paper, "review", 0, m, lat["review"][m], study=study,
                    failed_first=failed_first and m == 0) for m in (0, 1)]
    calls += [w.call("cfg-ai", "ai-scientist", paper, "reflect", 1, m, lat["reflect"][m], study=study) for m in (0, 1)]
    calls.append(w.call("cfg-ai", "ai-scientist", paper, "meta", 0, 0, lat["meta"], study=study))
    if repair is not None:
        calls.append(w.call("cfg-ai", "ai-scientist", paper, "meta", 0, 0, repair, study=study))
    return calls


def build_systems_lake(root: Path) -> dict:
    """Write and seal the events; returns the system_review events by name."""
    log = EventLog(Lake(root))
    w = _Writer()
    w.events.append(PriceTableRecorded(occurred_at=datetime(2026, 1, 1, tzinfo=UTC), version=TABLE.version,
                                       source_sha256="0" * 64, prices_json=json.dumps(TABLE.rows())))
    for paper in ("P1", "P2"):
        w.events.append(PaperIngested(occurred_at=T0, paper_id=paper, title=f"Paper {paper}",
                                      source_uri=f"file:///{paper}.pdf", pdf_sha256="a" * 64,
                                      package_sha256="b" * 64, n_pages=8, n_text_records=10, n_chars=1000,
                                      venue="TEST 2026"))
    out = {}
    # superseded: an older review of P1/0 (the paper was re-ingested since)
    old = _ensemble(w, "P1", {"review": (1, 1), "reflect": (1, 1), "meta": 1})
    out["old"] = w.review("cfg-ai", "ai-scientist", "P1", 0, old, score=3.0, scale="neurips_1_10")
    # P1/1's calls, made by study OLD earlier; S replays them when it records the review
    replayed = _ensemble(w, "P1", {"review": (10, 10), "reflect": (4, 6), "meta": 3}, study="OLD", repair=2,
                         failed_first=True)
    calls = _ensemble(w, "P1", {"review": (10, 12), "reflect": (5, 4), "meta": 3})
    out["ai_p1_0"] = w.review("cfg-ai", "ai-scientist", "P1", 0, calls, score=6.0, scale="neurips_1_10")
    out["ai_p1_1"] = w.review("cfg-ai", "ai-scientist", "P1", 1, replayed, score=8.0, scale="neurips_1_10")
    ones = {"review": (1, 1), "reflect": (1, 1), "meta": 1}
    out["ai_p2_0"] = w.review("cfg-ai", "ai-scientist", "P2", 0, _ensemble(w, "P2", ones), score=12.0,
                              scale="neurips_1_10")
    out["ai_p2_1"] = w.review("cfg-ai", "ai-scientist", "P2", 1, _ensemble(w, "P2", ones, repair=1), status="null",
                              null_reason=NULL_REASON, scale="neurips_1_10")
    out["llm_p1_0"] = w.review("cfg-llm", "llm-review", "P1", 0,
                               [w.call("cfg-llm", "llm-review", "P1", "outline", 0, 0, 30, study="S")])
    unpriced = w.call("cfg-llm", "llm-review", "P2", "outline", 0, 0, 20, study="S",
                      at=datetime(2025, 12, 31, 12, tzinfo=UTC))
    out["llm_p2_0"] = w.review("cfg-llm", "llm-review", "P2", 0, [unpriced])
    out["llm_p1_1"] = w.review("cfg-llm", "llm-review", "P1", 1,
                               [w.call("cfg-llm", "llm-review", "P1", "outline", 0, 0, 30, study="S")])
    systems = [{"reviewer_config": "cfg-ai", "system": "ai-scientist", "provider": "openai", "model": "gpt-t",
                "samples": 2},
               {"reviewer_config": "cfg-llm", "system": "llm-review", "provider": "openai", "model": "gpt-t",
                "samples": 1}]
    w.events.append(resolution_event("S", "s" * 64, ["P1", "P2"], systems, (), "test", asset="system_reviews"))
    # the judgments run of S lists one system review for the depth judge, which has not judged it yet
    w.events.append(resolution_event("S", "s" * 64, ["P1", "P2"], [], (), "test", asset="judgments", judges=[
        {"judge": "depth", "judge_config": "jd", "provider": "local", "model": "m", "repeats": 1,
         "review_keys": [f"peerlake:{out['ai_p1_0'].review_key}"], "pools": []}]))
    w.events.append(resolution_event("T", "t" * 64, ["P1"], [{**systems[0], "samples": 1}], (), "test",
                                     asset="system_reviews"))
    log.append_many(w.events)
    log.seal()
    log.close()
    return out
