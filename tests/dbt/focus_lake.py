"""A lake of focus judgments, written event by event and sealed, for the focus marts and their gates.

Taxonomy (in every judgment's inputs): targets paper, method, experiment; aspects validity, novelty,
communication_clarity, significance. Judge configurations F and G (step label).

Study S (papers P1, P2 and a hidden-text variant V of P1; system cfg-sys "mlr" with K = 1), no focus scope
recorded, so the newest focus judgment of each (review, repeat) counts, whatever its configuration:
  human  H1 (P1)  F: strengths [method/novelty]; weaknesses [experiment/validity, experiment/communication_clarity]
         H2 (P1)  F: strengths []; weaknesses [method/validity]
                  G (newer, counts in S): strengths [paper/significance]; weaknesses [experiment/novelty]
         H3 (P2)  F: null, no_items
  mlr    R1 (P1/0) F: strengths [method/novelty, method/validity]; weaknesses [experiment/validity]
         R2 (P2/0) not judged
         R3 (P1/1) F: strengths [method/novelty]: sample 1 is beyond K = 1, not counted
         RV (V/0)  not judged: a variant's review counts only when judged
Study T (paper P1; cfg-sys K = 1) records a focus scope {judge_config F, repeats 1}: G's judgment of H2 is
not T's, F's is.
"""

import hashlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from peerlake.studies import resolution_event
from peerlake.warehouse import EventLog, Lake
from peerlake.warehouse.events import HumanReviewImported, JudgmentRecorded, PaperVariantRecorded, SystemReviewRecorded

T0 = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
TARGETS = ["paper", "method", "experiment"]
ASPECTS = ["validity", "novelty", "communication_clarity", "significance"]
VARIANT = "P1~hidden_text-abcdef0123"


def item(polarity: str, index: int, target: str, aspect: str) -> dict:
    return {"polarity": polarity, "item_index": index, "text": f"{target} {aspect}", "target": target,
            "aspect": aspect}


def build_focus_lake(root: Path) -> dict[str, str]:
    """Write and seal the events; returns review keys by name."""
    log = EventLog(Lake(root))
    at = [T0]

    def tick() -> datetime:
        at[0] += timedelta(seconds=1)
        return at[0]

    events: list = [HumanReviewImported(occurred_at=tick(), paper_id=paper, review_id=rid, source="openreview",
                                        venue="TEST 2026", rating=5.0, rating_scale="TEST:1,2,3,4,5",
                                        confidence=3.0, body_sha256="e" * 64)
                    for rid, paper in [("H1", "P1"), ("H2", "P1"), ("H3", "P2")]]
    keys = {"H1": "human:H1", "H2": "human:H2", "H3": "human:H3"}
    for name, paper, sample in [("R1", "P1", 0), ("R2", "P2", 0), ("R3", "P1", 1), ("RV", VARIANT, 0)]:
        ev = SystemReviewRecorded(
            occurred_at=tick(), review_key=f"rk-{name}", system="mlr", system_config="cfg-sys", system_version=1,
            paper_id=paper, package_sha256="b" * 64, sample_index=sample, provider="openai", model="m",
            status="ok", null_reason=None, review_json=json.dumps({"strengths": ["s"], "weaknesses": ["w"]}),
            score=5.0, score_scale="neurips_1_10", confidence=None, calls_json="[]", options_json="{}", study="S")
        events.append(ev)
        keys[name] = f"peerlake:{ev.review_key}"
    events.append(PaperVariantRecorded(occurred_at=tick(), variant_key="v" * 64, variant_id=VARIANT,
                                       kind="hidden_text", base_paper_id="P1", base_package_sha256="b" * 64,
                                       experiment_config="e" * 16, built=True, reason=None, pdf_sha256="c" * 64,
                                       package_sha256="d" * 64, details_json="{}"))

    def judge(config: str, name: str, paper: str, units=(), null_reason=None):
        subject = keys[name]
        inputs = {"source": subject.split(":")[0], "taxonomy": "tiny", "taxonomy_sha256": "t" * 64,
                  "targets": TARGETS, "aspects": ASPECTS}
        events.append(JudgmentRecorded(
            occurred_at=tick(), judgment_key=hashlib.sha256(f"{config}|{name}|{at[0]}".encode()).hexdigest(),
            judge="focus", step="label", judge_config=config, subject_key=subject, paper_id=paper, repeat=0,
            status="ok" if null_reason is None else "null", null_reason=null_reason,
            units_json=json.dumps(list(units)), dropped_json="{}", llm_call_ids_json="[]", request_keys_json="[]",
            inputs_json=json.dumps(inputs)))

    judge("F", "H1", "P1", [item("strength", 0, "method", "novelty"), item("weakness", 0, "experiment", "validity"),
                            item("weakness", 1, "experiment", "communication_clarity")])
    judge("F", "H2", "P1", [item("weakness", 0, "method", "validity")])
    judge("G", "H2", "P1", [item("strength", 0, "paper", "significance"), item("weakness", 0, "experiment", "novelty")])
    judge("F", "H3", "P2", null_reason="no_items")
    judge("F", "R1", "P1", [item("strength", 0, "method", "novelty"), item("strength", 1, "method", "validity"),
                            item("weakness", 0, "experiment", "validity")])
    judge("F", "R3", "P1", [item("strength", 0, "method", "novelty")])

    system = {"reviewer_config": "cfg-sys", "system": "mlr", "provider": "openai", "model": "m", "samples": 1}
    events.append(resolution_event("S", "s" * 64, ["P1", "P2", VARIANT], [system], (), "test",
                                   asset="system_reviews"))
    events.append(resolution_event("T", "t" * 64, ["P1"], [system], (), "test", asset="system_reviews"))
    events.append(resolution_event("T", "t" * 64, ["P1"], [], (), "test", asset="experiment_focus", judges=[
        {"judge": "focus", "judge_config": "F", "provider": "openai", "model": "m", "repeats": 1,
         "review_keys": [keys["H1"], keys["H2"], keys["R1"]]}]))
    log.append_many(events)
    log.seal()
    log.close()
    return keys
