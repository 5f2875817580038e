"""A lake of one contradiction benchmark and its detection judgments, for the contradiction marts.

Base paper B; variants V0 (distance 0, validation passed), V1 (distance 1, validation failed: the edit
is locally detectable), V2 (not built). Reviewer systems cfg-a (samples 2) and cfg-b (samples 1) reviewed
the variants and B. Detection judge "jd", repeats 0 and 1 (T yes, F no, U unparseable, E empty review):
  cfg-a  V0: s0 (T, F)  s1 (F, T)  s2 (T, T) beyond every study's K
         V1: s0 (F, F)  s1 (U, T)
  cfg-b  V0: s0 (T, T)            V1: s0 (E, E) — an empty review identifies nothing
  audit (reviews of B against each item):  a-B-0 × V0 (F, F), × V1 (F, T);  a-B-1 × V0, V1 (F, F);
                                           b-B-0 × V0, V1 (F, F)
  an older answer for V0|a-V0-0 repeat 0 (F) is superseded by the newest (T).
Labels (detection_verified): V0|a-V0-0 identified (true), V1|a-V1-0 not identified (false).
Study S: papers B, V0, V1; reviewers cfg-a (K 2), cfg-b (K 1). Study T: papers B, V0; cfg-a (K 1).
"""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from peerlake.studies import resolution_event
from peerlake.warehouse import EventLog, Lake, PaperIngested
from peerlake.warehouse.events import (
    JudgmentRecorded,
    PaperVariantRecorded,
    ReferenceLabelImported,
    SystemReviewRecorded,
)

T0 = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
B = "B"
V0, V1, V2 = "B~contradiction-0000000000", "B~contradiction-1111111111", "B~contradiction-2222222222"
T, F, U, E = "T", "F", "U", "E"


class _Writer:
    def __init__(self):
        self.events, self.at = [], T0

    def tick(self) -> datetime:
        self.at += timedelta(seconds=1)
        return self.at

    def paper(self, pid: str):
        self.events.append(PaperIngested(occurred_at=self.tick(), paper_id=pid, title=f"Paper {pid}",
                                         source_uri=f"file:///{pid}.pdf", pdf_sha256="a" * 64,
                                         package_sha256="b" * 64, n_pages=8, n_text_records=10, n_chars=1000,
                                         venue="TEST 2026", is_synthetic=pid != B))

    def variant(self, vid: str, distance: int, built: bool = True):
        d = {"item_id": f"B:d{distance}", "node_id": f"n{distance}", "node_type": "claim" if distance == 0 else
             "evidence", "node_level": "main" if distance == 0 else "high", "distance": distance,
             "original_paragraph": "We gain 4 points.", "modified_paragraph": "We lose 4 points.",
             "record_id": f"r{distance}", "page": 1, "seed": 7}
        self.events.append(PaperVariantRecorded(
            occurred_at=self.tick(), variant_key=vid[-10:] * 6 + "abcd", variant_id=vid, kind="contradiction",
            base_paper_id=B, base_package_sha256="b" * 64, experiment_config="e" * 16, built=built,
            reason=None if built else "render_lost_text", pdf_sha256="c" * 64 if built else None,
            package_sha256="d" * 64 if built else None, details_json=json.dumps(d)))

    def review(self, config: str, paper: str, sample: int) -> str:
        key = f"{config[-1]}-{paper[-1] if paper != B else 'B'}-{sample}"
        self.events.append(SystemReviewRecorded(
            occurred_at=self.tick(), review_key=key, system="mlr", system_config=config, system_version=1,
            paper_id=paper, package_sha256="b" * 64, sample_index=sample, provider="openai", model="m",
            status="ok", null_reason=None, review_json=json.dumps({"summary": "s", "weaknesses": ["w"]}),
            score=5.0, score_scale="neurips_1_10", confidence=3.0, calls_json="[]", options_json="{}", study="S"))
        return f"peerlake:{key}"

    def judgment(self, judge: str, step: str, subject: str, paper: str, repeat: int, units: list[dict] | None,
                 null_reason: str | None = None, config: str = "jd"):
        self.events.append(JudgmentRecorded(
            occurred_at=self.tick(), judgment_key=f"jk-{len(self.events)}", judge=judge, step=step, judge_config=config,
            subject_key=subject, paper_id=paper, repeat=repeat, status="ok" if units is not None else "null",
            null_reason=null_reason, units_json=json.dumps(units or []), dropped_json="{}", llm_call_ids_json="[]",
            request_keys_json="[]", study="S"))

    def detection(self, variant: str, review_key: str, paper: str, answers: tuple[str, ...]):
        role = "detection" if paper == variant else "audit"
        for r, a in enumerate(answers):
            if a in (T, F):
                units = [{"variant_id": variant, "review_key": review_key, "role": role, "identified": a == T,
                          "rationale": "r"}]
                self.judgment("detection", "identify", f"{variant}|{review_key}", paper, r, units)
            else:
                self.judgment("detection", "identify", f"{variant}|{review_key}", paper, r, None,
                              "unparseable:identify" if a == U else "empty_review")

    def label(self, subject: str, identified: bool, line: int):
        self.events.append(ReferenceLabelImported(
            occurred_at=self.tick(), dataset="detection_verified", subject_key=subject, paper_id=None,
            label_json=json.dumps({"identified": identified}), source_path="labels.jsonl", line_no=line))


def build_contradictions_lake(root: Path) -> None:
    log = EventLog(Lake(root))
    w = _Writer()
    for pid in (B, V0, V1):
        w.paper(pid)
    w.variant(V0, 0)
    w.variant(V1, 1)
    w.variant(V2, 2, built=False)
    w.judgment("contradiction", "validate", f"variant:{V0}", V0, 0,
               [{"contradicts": True, "locally_detectable": False, "rationale": "ok"}], config="jv")
    w.judgment("contradiction", "validate", f"variant:{V1}", V1, 0,
               [{"contradicts": True, "locally_detectable": True, "rationale": "seen"}], config="jv")
    a_v0 = [w.review("cfg-a", V0, s) for s in (0, 1, 2)]
    a_v1 = [w.review("cfg-a", V1, s) for s in (0, 1)]
    a_b = [w.review("cfg-a", B, s) for s in (0, 1)]
    b_v0, b_v1, b_b = w.review("cfg-b", V0, 0), w.review("cfg-b", V1, 0), w.review("cfg-b", B, 0)
    w.detection(V0, a_v0[0], V0, (F,))  # the older answer to repeat 0, superseded below
    for variant, key, paper, answers in (
            (V0, a_v0[0], V0, (T, F)), (V0, a_v0[1], V0, (F, T)), (V0, a_v0[2], V0, (T, T)),
            (V1, a_v1[0], V1, (F, F)), (V1, a_v1[1], V1, (U, T)),
            (V0, b_v0, V0, (T, T)), (V1, b_v1, V1, (E, E)),
            (V0, a_b[0], B, (F, F)), (V1, a_b[0], B, (F, T)), (V0, a_b[1], B, (F, F)), (V1, a_b[1], B, (F, F)),
            (V0, b_b, B, (F, F)), (V1, b_b, B, (F, F))):
        w.detection(variant, key, paper, answers)
    w.label(f"{V0}|{a_v0[0]}", True, 1)
    w.label(f"{V1}|{a_v1[0]}", False, 2)
    reviewers = [{"reviewer_config": "cfg-a", "system": "mlr", "provider": "openai", "model": "m", "samples": 2},
                 {"reviewer_config": "cfg-b", "system": "mlr", "provider": "openai", "model": "m", "samples": 1}]
    w.events.append(resolution_event("S", "s" * 64, [B, V0, V1], reviewers, (), "test", asset="system_reviews"))
    w.events.append(resolution_event("T", "t" * 64, [B, V0], [{**reviewers[0], "samples": 1}], (), "test",
                                     asset="system_reviews"))
    log.append_many(w.events)
    log.seal()
    log.close()
