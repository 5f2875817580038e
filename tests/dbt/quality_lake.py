"""A small lake of hand-made judgment_recorded events (written with EventLog and sealed) for the
quality marts: every unit is written here, so each score in tests/dbt/test_quality_marts.py can be
worked out by hand from this file.

Study `q` (its newest judgments resolution) asks for:
  depth            D   repeats 2   reviews H1 H2 H3 K1 E1
  constructiveness C   repeats 1   reviews H1 H2
  novelty          N   repeats 1   reviews H1 H2 K1 E1 H3
  flaws            F   repeats 1   reviews H1 H2 H4 H5 K1 E1 E1b, pools P1|X|s0, P1|<K1's config>|s0,
                                    P2|X|s0, P1|X|s1
Study `other` asks for depth D with 1 repeat on H1 only. H1, H2, H5 are human reviews of P1, H4 of
P2; K1 is a peerlake review of P1; E1 is system X's review of P1 (sample 0), E1b its sample 1.
"""

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from peerlake.warehouse import EventLog, HumanReviewImported, Lake
from peerlake.warehouse.events import ExternalReviewImported, JudgmentRecorded, PaperStatusRecorded, StudyResolved
from tests.dbt.sample_lake import CONFIG_A, _call, _request, review_json

T0 = datetime(2026, 2, 1, 9, 0, tzinfo=UTC)
DEPTH, CONSTRUCTIVE, NOVELTY, FLAWS = "d000000000000001", "c000000000000001", "n000000000000001", "f000000000000001"
OTHER_DEPTH = "d0000000000000ff"  # the same judge on another model: never part of study q
H1, H2, H3, H4, H5 = (f"human:H{i}" for i in range(1, 6))
E1, E1B = "external:X:E1", "external:X:E1b"
FIELDS = ["summary", "strengths", "weaknesses"]


def unit(i, role, aspect, grounding=None):
    return {"unit_index": i, "text": f"unit {i}", "start": 10 * i, "field": "weaknesses", "role": role,
            "aspect": aspect, "grounding": grounding}


def comment(i, a, s, j, sol, t):
    return {"comment_index": i, "text": f"comment {i}", "section": "weaknesses", "anchor_quote": None,
            "anchor_found": True, "actionability": a, "specificity": s, "justification": j, "solution": sol,
            "tone": t}


def candidate(claim, cid, relevance, verdict, reason=None, rank=0):
    return {"claim_index": claim, "claim_text": f"claim {claim}", "stance": "novel", "prior_work": [],
            "candidate_id": cid, "candidate_title": None if cid is None else f"title {cid}",
            "candidate_year": None if cid is None else 2020, "pool_rank": None if cid is None else rank,
            "relevance": relevance, "verdict": verdict, "reason": reason}


def member(review_key):
    return {"kind": "member", "review_key": review_key, "flaw_id": None}


def raise_(flaw, review_key, valid, severity):
    return {"kind": "raise", "flaw_id": flaw, "topic": "methodology", "summary": f"flaw {flaw}",
            "is_valid": valid, "severity": severity, "review_key": review_key, "quote": "q"}


def mention(review_key, flaw, severity, position, section="weaknesses"):
    return {"review_key": review_key, "flaw_id": flaw, "severity": severity, "position": position,
            "located_by": "exact", "section": section}


@dataclass
class QualityLake:
    root: Path
    k1: str = ""  # peerlake:<request_key> of the one peerlake review
    k1_config: str = ""
    judgments: dict[str, JudgmentRecorded] = field(default_factory=dict)  # label -> event


def inputs(review_key: str, system: str | None = None) -> dict:
    source = review_key.split(":")[0]
    return {"source": source, "system": system or ("human" if source == "human" else review_key.split(":")[1]),
            "fields": FIELDS if source == "human" else ["text"], "chars": 100, "text_sha256": "0" * 64}


def build_quality_lake(root: Path) -> QualityLake:
    lake = QualityLake(root=root)
    log = EventLog(Lake(root))
    at = [T0]

    def tick() -> datetime:
        at[0] += timedelta(seconds=1)
        return at[0]

    # the reviews themselves: the marts name a not-judged review's paper and system from them
    events: list = [HumanReviewImported(occurred_at=tick(), paper_id=paper, review_id=rid, source="openreview",
                                        venue="TEST 2026", rating=5.0, rating_scale="TEST:1,2,3,4,5,6,7,8,9,10",
                                        confidence=3.0, body_sha256="e" * 64)
                    for rid, paper in [("H1", "P1"), ("H2", "P1"), ("H3", "P1"), ("H4", "P2"), ("H5", "P1")]]
    events += [ExternalReviewImported(occurred_at=tick(), paper_id="P1", review_id=rid, system="X",
                                      sample_index=sample, score=6.0, confidence=3.0, body_sha256="e" * 64,
                                      source_path="x.jsonl", line_no=sample + 1)
               for rid, sample in [("E1", 0), ("E1b", 1)]]
    req = _request(CONFIG_A, "P1", 0)
    events.append(_call(req, tick(), text=review_json(6)))
    lake.k1, lake.k1_config = f"peerlake:{req.request_key}", req.reviewer_config
    k1 = lake.k1

    def judge(label, judge_name, step, config, subject, units=(), null_reason=None, repeat=0, paper="P1",
              system=None, dropped=None, extra=None):
        review = subject if subject.split(":")[0] in ("human", "peerlake", "external") else None
        ev = JudgmentRecorded(
            occurred_at=tick(), judgment_key=hashlib.sha256(f"{label}|{at[0]}".encode()).hexdigest(),
            judge=judge_name, step=step, judge_config=config, subject_key=subject, paper_id=paper,
            repeat=repeat, status="ok" if null_reason is None else "null", null_reason=null_reason,
            units_json=json.dumps(list(units)), dropped_json=json.dumps(dropped or {}), llm_call_ids_json="[]",
            request_keys_json="[]",
            inputs_json=json.dumps({**(inputs(review, system) if review else {"paper_id": paper}), **(extra or {})}))
        lake.judgments[label] = ev
        events.append(ev)

    # ---- depth (D, 2 repeats) ----
    # superseded: the same slot as d_h1_r0, recorded earlier; the newest judgment per slot counts
    judge("d_h1_r0_old", "depth", "units", DEPTH, H1, [unit(0, "premise", "other", 0)])
    judge("d_h1_r0", "depth", "units", DEPTH, H1, [
        unit(0, "claim", "soundness"), unit(1, "premise", "soundness", 2), unit(2, "premise", "clarity", 1),
        unit(3, "premise", "contribution", None)])  # a premise the grounder skipped: in R, not in S
    judge("d_h1_r1", "depth", "units", DEPTH, H1, [unit(0, "claim", "other"), unit(1, "premise", "soundness", 2)],
          repeat=1)
    # H1's judgments are parser depth-1's (no cap or taxonomy recorded: 12 and prism-reference); H2's says
    # what the cap did: 15 units answered, 3 over the cap of 12 cut
    judge("d_h2_r0", "depth", "units", DEPTH, H2, [unit(0, "claim", "soundness"), unit(1, "claim", "clarity")],
          dropped={"over_max_units": 3, "not_verbatim": 10},
          extra={"depth_taxonomy": "prism-reference", "aspects": ["soundness", "clarity", "contribution", "other"],
                 "max_units": 12, "units_answered": 15})
    # repeat 2 is beyond the study's 2 repeats (0 and 1): not q's
    judge("d_h2_r2", "depth", "units", DEPTH, H2, [unit(0, "premise", "soundness", 2)], repeat=2)
    judge("d_k1_r0", "depth", "units", DEPTH, k1, null_reason="no_units", system=lake.k1_config)
    # E1 judged only by another configuration; H3 never: both not_judged under D
    judge("d_e1_other", "depth", "units", OTHER_DEPTH, E1, [unit(0, "premise", "soundness", 2)])
    # a review no study lists
    judge("d_h9", "depth", "units", DEPTH, "human:H9", [unit(0, "premise", "soundness", 2)])

    # ---- constructiveness (C) ----
    judge("c_h1", "constructiveness", "comments", CONSTRUCTIVE, H1, [
        comment(0, 2, 2, 1, 2, 1), comment(1, 1, 1, 1, 0, 1), comment(2, 0, 2, 2, 1, 1)])
    judge("c_h2", "constructiveness", "comments", CONSTRUCTIVE, H2, null_reason="no_comments")

    # ---- novelty (N) ----
    judge("n_paper", "novelty", "paper", NOVELTY, "paper:P1", [
        {"kind": "contribution", "text": "c", "name": "n", "claim": "c", "description": "d"}])
    judge("n_h1", "novelty", "claims", NOVELTY, H1, [
        candidate(0, "A", 0.9, "SUPPORTED", rank=1), candidate(0, "B", 0.6, "OVERSTATED", rank=2),
        candidate(0, "C", 0.3, "UNSUPPORTED", rank=3), candidate(0, "D", 0.1, "SUPPORTED", rank=4),
        candidate(0, "E", 0.95, None, "verdict_unparseable", rank=0),
        candidate(1, "A", 0.5, "UNDERSTATED", rank=1), candidate(1, "B", 0.25, "SUPPORTED", rank=2),
        candidate(2, None, None, None, "no_candidates")])
    # H2's claim 0: H1's claim 0 with only the relevances changed
    judge("n_h2", "novelty", "claims", NOVELTY, H2, [
        candidate(0, "A", 0.1, "SUPPORTED", rank=1), candidate(0, "B", 0.6, "OVERSTATED", rank=2),
        candidate(0, "C", 0.9, "UNSUPPORTED", rank=3), candidate(0, "D", 0.05, "SUPPORTED", rank=4)])
    # a negative relevance (a broken backend score) drives s_c past 2: NS is clipped to 1
    judge("n_k1", "novelty", "claims", NOVELTY, k1, [
        candidate(0, "A", 1.0, "SUPPORTED"), candidate(0, "B", -0.5, "UNSUPPORTED")], system=lake.k1_config)
    judge("n_e1", "novelty", "claims", NOVELTY, E1, [
        candidate(0, "A", 0.8, None, "verdict_unparseable"), candidate(1, "A", 0.0, "SUPPORTED")])
    judge("n_h3", "novelty", "claims", NOVELTY, H3, null_reason="no_claims")

    # ---- flaws (F) ----
    pool1, pool2, pool3, pool4 = "pool:P1|X|s0", f"pool:P1|{lake.k1_config}|s0", "pool:P2|X|s0", "pool:P1|X|s1"
    judge("f_pool1", "flaws", "pool", FLAWS, pool1, [
        member(H1), member(H2), member(E1),
        raise_("F1", H1, True, "critical"), raise_("F1", E1, True, "critical"),
        raise_("F1", E1, True, "critical"),  # a second quote of E1 for F1: still one reviewer
        raise_("F2", H2, True, "critical"),
        raise_("F3", H1, True, "minor"), raise_("F3", H2, True, "minor"), raise_("F3", E1, True, "minor"),
        raise_("F4", E1, False, "minor"),
        raise_("F5", H2, True, "minor")], dropped={"over_max_flaws": 2, "over_max_raisers": 1, "not_verbatim": 4})
    # the worked example: Weaknesses [minor F3 @10, critical F1 @40] + Questions [critical F2 @80],
    # listed out of text order
    judge("f_order_e1", "flaws", "order", FLAWS, f"{pool1}|{E1}", [
        mention(E1, "F2", "critical", 80, "questions"), mention(E1, "F3", "minor", 10),
        mention(E1, "F1", "critical", 40)])
    judge("f_order_h1", "flaws", "order", FLAWS, f"{pool1}|{H1}", [
        mention(H1, "F3", "minor", 20), mention(H1, "F1", "critical", 20)])
    judge("f_order_h2", "flaws", "order", FLAWS, f"{pool1}|{H2}", [])
    judge("f_pool2", "flaws", "pool", FLAWS, pool2, null_reason="unparseable:extract")
    # X's second sample: a pool of its own (H1, H2 and E1b; H5 left out as in pool 1), pool 1 untouched
    judge("f_pool4", "flaws", "pool", FLAWS, pool4, [
        member(H1), member(H2), member(E1B),
        raise_("F1", H1, True, "critical"), raise_("F1", E1B, True, "critical"), raise_("F2", H2, True, "minor")])

    judges = [
        {"judge": "depth", "judge_config": DEPTH, "provider": "local", "model": "qwen-1.5b", "repeats": 2,
         "review_keys": [H1, H2, H3, k1, E1], "pools": []},
        {"judge": "constructiveness", "judge_config": CONSTRUCTIVE, "provider": "local", "model": "qwen-1.5b",
         "repeats": 1, "review_keys": [H1, H2], "pools": []},
        {"judge": "novelty", "judge_config": NOVELTY, "provider": "local", "model": "qwen-1.5b", "repeats": 1,
         "review_keys": [H1, H2, k1, E1, H3], "pools": []},
        {"judge": "flaws", "judge_config": FLAWS, "provider": "local", "model": "qwen-1.5b", "repeats": 1,
         "review_keys": [H1, H2, H4, H5, k1, E1, E1B], "pools": [pool1, pool2, pool3, pool4]},
    ]
    stale = [{"judge": "depth", "judge_config": OTHER_DEPTH, "provider": "local", "model": "other",
              "repeats": 1, "review_keys": [E1], "pools": []}]
    other = [{"judge": "depth", "judge_config": DEPTH, "provider": "local", "model": "qwen-1.5b", "repeats": 1,
              "review_keys": [H1], "pools": []}]
    for study, judged, when in [("q", stale, T0), ("q", judges, T0 + timedelta(hours=1)),
                                ("other", other, T0 + timedelta(hours=1))]:
        events.append(StudyResolved(occurred_at=when, study_id=study, study_sha256=study * 8,
                                    paper_ids_json=json.dumps(["P1", "P2"]), reviewers_json="[]",
                                    external_systems_json='["*"]', paper_source="test", asset="judgments",
                                    judges_json=json.dumps(judged)))
    # the venue's decisions, so the human reviews are of papers the lake knows (a dbt test of fct_human_reviews)
    events += [PaperStatusRecorded(occurred_at=T0, paper_id=paper, venue="TEST 2026", status="rejected",
                                   decision="Reject", is_accepted=False, source="test") for paper in ("P1", "P2")]
    log.append_many(events)
    log.seal()
    log.close()
    return lake
