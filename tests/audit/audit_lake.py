"""A small lake for the audit: real blobs (template text, requests, responses, manuscript packages and
PDFs) behind every event, two studies that share a paper, two reviewer configurations."""

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from peerlake.audit.lineage import load_manifest
from peerlake.dbt_project import PROJECT_DIR
from peerlake.llm_calls.types import LlmRequest
from peerlake.report.viewer.catalog import VIEWER_MARTS
from peerlake.studies import resolution_event
from peerlake.warehouse import EventLog, HumanReviewImported, Lake, LlmCall, PaperIngested
from peerlake.warehouse.canonical import canonical_json
from peerlake.warehouse.events import PaperStatusRecorded, PromptTemplateStored

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
TEMPLATE = "Review this paper and answer in JSON.\n\n{{ manuscript }}\n"
R = {"provider": "local", "model": "qwen-test", "template": "review_v1"}
S = {"provider": "openai", "model": "gpt-4.1-mini", "template": "review_v1"}

# (config, paper) -> overall scores of samples 0, 1, 2 …
SCORES = {("R", "P0"): [6, 6, 7], ("R", "P1"): [4, 5, 3], ("R", "P2"): [8, 8, 8], ("R", "P3"): [5, 5, 6],
          ("S", "P0"): [9, 9], ("S", "P1"): [2, 3],
          ("R", "P9"): [1, 1, 1]}  # P9 belongs to study "other" only
HUMAN = {"P0": [6.0, 8.0], "P1": [3.0], "P2": [9.0, 7.0], "P9": [10.0]}  # P3: no human review
ACCEPTED = {"P0": True, "P1": False, "P2": True, "P3": False, "P9": True}


@dataclass
class AuditLake:
    root: Path
    configs: dict[str, str] = field(default_factory=dict)  # "R"/"S" -> reviewer_config
    calls: dict[tuple, LlmCall] = field(default_factory=dict)  # (config, paper, sample) -> the ok call
    papers: dict[str, PaperIngested] = field(default_factory=dict)
    prompt_hash: str = ""


def review(score: int) -> str:
    return json.dumps({"summary": "s", "strengths": ["a"], "concerns": ["b"], "rationale": "r",
                       "overall_score": score, "confidence": 3})


def build_audit_lake(root: Path) -> AuditLake:
    lake = Lake(root)
    log = EventLog(lake)
    out = AuditLake(root)
    blobs = log.blobs
    out.prompt_hash = blobs.put_text(TEMPLATE)
    events: list = [PromptTemplateStored(occurred_at=T0, prompt_template="review_v1", prompt_hash=out.prompt_hash,
                                         source_sha256=out.prompt_hash)]
    for i, paper in enumerate(["P0", "P1", "P2", "P3", "P9"]):
        pdf = blobs.put(f"%PDF-1.4 the manuscript of {paper}".encode())
        package = blobs.put_text(json.dumps({"title": f"Paper {paper}", "images": [], "records": []}))
        out.papers[paper] = PaperIngested(
            occurred_at=T0 + timedelta(seconds=i), paper_id=paper, title=f"Paper {paper}", source_uri=f"{paper}.pdf",
            pdf_sha256=pdf, package_sha256=package, n_pages=8, n_text_records=10, n_chars=100, venue="ICLR 2017")
        events.append(out.papers[paper])
        events.append(PaperStatusRecorded(occurred_at=T0, paper_id=paper, venue="ICLR 2017",
                                          status="accepted" if ACCEPTED[paper] else "rejected",
                                          decision=None, is_accepted=ACCEPTED[paper], source="openreview"))
        for j, rating in enumerate(HUMAN.get(paper, [])):
            events.append(HumanReviewImported(
                occurred_at=T0, paper_id=paper, review_id=f"{paper}-h{j}", source="openreview", venue="ICLR 2017",
                rating=rating, rating_scale="TEST:1,2,3,4,5,6,7,8,9,10", confidence=3.0,
                body_sha256=blobs.put_text(f"human review {j} of {paper}")))
    at = T0 + timedelta(minutes=1)
    for (key, paper), scores in SCORES.items():
        cfg = {"R": R, "S": S}[key]
        for sample, score in enumerate(scores):
            req = LlmRequest(provider=cfg["provider"], model=cfg["model"],
                             messages=({"role": "user", "content": f"Review this paper … {paper}"},),
                             params={"temperature": 0.7, "max_tokens": 700}, sample_index=sample,
                             prompt_template=cfg["template"], prompt_hash=out.prompt_hash, subject_id=paper)
            out.configs[key] = req.reviewer_config
            request_sha = blobs.put_text(canonical_json(req.canonical()))
            text = review(score)
            response_sha = blobs.put_text(canonical_json({"choices": [{"message": {"content": text}}]}))
            common = {"request_key": req.request_key, "prompt_template": req.prompt_template,
                      "prompt_hash": req.prompt_hash, "reviewer_config": req.reviewer_config, "purpose": "review",
                      "subject_id": paper, "sample_index": sample, "provider": req.provider, "model": req.model,
                      "params_json": json.dumps(req.params), "request_sha256": request_sha, "latency_ms": 900.0,
                      "cost_status": "priced", "price_table_version": "2026-03", "study": "test",
                      "dagster_run_id": "run-1", "asset": "ai_reviews"}
            if (key, paper, sample) == ("R", "P1", 0):  # a failed attempt first: kept, never an answer
                at += timedelta(seconds=1)
                events.append(LlmCall(occurred_at=at, **common, response_sha256=None, response_text=None,
                                      finish_reason=None, input_tokens=None, cached_input_tokens=None,
                                      cache_write_tokens=None, output_tokens=None, reasoning_tokens=None,
                                      cost_usd=None, attempt=1, status="error", error_type="RateLimitError"))
            at += timedelta(seconds=1)
            call = LlmCall(occurred_at=at, **common, response_sha256=response_sha, response_text=text,
                           finish_reason="stop", input_tokens=1200, cached_input_tokens=0, cache_write_tokens=0,
                           output_tokens=150, reasoning_tokens=0, cost_usd=0.0012, attempt=1, status="ok")
            out.calls[(key, paper, sample)] = call
            events.append(call)
    r, s = out.configs["R"], out.configs["S"]
    events.append(resolution_event("test", blobs.put_text('name = "test"\n'), ["P0", "P1", "P2", "P3"],
                                   [{"reviewer_config": r, "samples": 3}, {"reviewer_config": s, "samples": 2}],
                                   paper_source="test"))
    events.append(resolution_event("other", blobs.put_text('name = "other"\n'), ["P0", "P9"],
                                   [{"reviewer_config": r, "samples": 3}], paper_source="test"))
    log.append_many(events)
    log.seal()
    log.close()
    return out


# the audited marts, and the call viewer's (tests/viewer follow a report figure of this lake to its calls)
MARTS = ("reliability_validity", "reliability_budgets", "fct_ai_review_scores", *VIEWER_MARTS)


def dbt_run(lake_root: Path, work: Path, marts: tuple[str, ...] = MARTS) -> Path:
    """`dbt run` of the marts and their upstream (no data tests: tests/dbt covers them)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PEERLAKE_DUCKDB_PATH", "DBT_TARGET_PATH")}
    env["PEERLAKE_HOME"] = str(lake_root)
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("dbt")), "run", "--select", *(f"+{m}" for m in marts),
         "--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR),
         "--target-path", str(work / "target"), "--log-path", str(work / "logs")],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"dbt run failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
    return lake_root / "peerlake.duckdb"


def build_and_run(work: Path) -> tuple[AuditLake, Path, dict, Path]:
    """(lake, db, manifest, work): the audit lake under work/lake after `dbt run`, with that run's manifest."""
    lake = build_audit_lake(work / "lake")
    db = dbt_run(lake.root, work)
    # the run just wrote the manifest, so no `dbt parse` is needed (nor run: the checkout's may be mid-edit)
    manifest, note = load_manifest(PROJECT_DIR, work / "target")
    assert note is None
    return lake, db, manifest, work
