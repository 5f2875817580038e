"""A lake for the score-prediction marts, written event by event and sealed.

Papers A, B, C, D (ICLR.cc/2025/Conference; A, B accepted, C, D rejected) and E (NeurIPS.cc/2024/Conference).
Human reviews (rating; text = the body's one `review` field):
  A: hA1 8 "the method is novel", hA2 6 "the method is weak"          → human mean 7
  B: hB1 6 "ok"                                                        → 6
  C: hC1 3, hC2 5, both "fine paper overall good work"                 → 4
  D: hD1 1 "ok";  E: hE1 6 "ok"
System config cfg-sys (1 sample) reviewed A ("the method is weak" as its summary), B, C and D (no
argument text), and an older review of A that the newest supersedes.
Study S (papers A-E, cfg-sys) lists judge config jsp with 2 repeats; study T (paper A only) lists none.
Judgments (judge score_prediction, step predict), predicted scores per repeat:
  jsp:    hA1 8, 8 | hA2 6, 7 | hB1 5, out_of_scale | hC1 3, 3 | hC2 5, 5 | hD1 1 (repeat 1 never judged)
          hE1 7 | sys A 8 | sys B 3 | sys C 5 | sys D: none | hA1 repeat 2: beyond S's 2 repeats
  jother: hA1 2 (a configuration S does not list)
"""

import json
from datetime import UTC, datetime, timedelta

from peerlake.studies import resolution_event
from peerlake.warehouse import EventLog, Lake, PaperIngested
from peerlake.warehouse.events import HumanReviewImported, JudgmentRecorded, PaperStatusRecorded, SystemReviewRecorded

T0 = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
ICLR, NEURIPS = "ICLR.cc/2025/Conference", "NeurIPS.cc/2024/Conference"
HUMANS = {  # review id: (paper, rating, text)
    "hA1": ("A", 8, "the method is novel"), "hA2": ("A", 6, "the method is weak"), "hB1": ("B", 6, "ok"),
    "hC1": ("C", 3, "fine paper overall good work"), "hC2": ("C", 5, "fine paper overall good work"),
    "hD1": ("D", 1, "ok"), "hE1": ("E", 6, "ok"),
}


def build_score_prediction_lake(root) -> dict:
    log = EventLog(Lake(root))
    at = [T0]

    def tick():
        at[0] += timedelta(seconds=1)
        return at[0]

    events = []
    for p in "ABCDE":
        venue = NEURIPS if p == "E" else ICLR
        events.append(PaperIngested(occurred_at=tick(), paper_id=p, title=f"Paper {p}", source_uri=f"file:///{p}.pdf",
                                    pdf_sha256="a" * 64, package_sha256="b" * 64, n_pages=8, n_text_records=10,
                                    n_chars=1000, venue=venue, year=2024 if p == "E" else 2025))
        if p in "ABCD":
            accepted = p in "AB"
            events.append(PaperStatusRecorded(occurred_at=tick(), paper_id=p, venue=venue,
                                              status="accepted" if accepted else "rejected",
                                              decision="Accept" if accepted else "Reject", is_accepted=accepted,
                                              source="test"))
    for rid, (paper, rating, text) in HUMANS.items():
        sha = log.blobs.put_text(json.dumps({"content": {"review": text}}))
        scale = "NeurIPS2024:1,2,3,4,5,6,7,8,9,10" if paper == "E" else "ICLR2025:1,3,5,6,8,10"
        events.append(HumanReviewImported(occurred_at=tick(), paper_id=paper, review_id=rid, source="openreview",
                                          venue=ICLR if paper != "E" else NEURIPS, rating=float(rating),
                                          rating_scale=scale, confidence=3.0, body_sha256=sha))
    systems = {}
    for p, summary in (("A", "an older review"), ("A", "the method is weak"), ("B", ""), ("C", ""), ("D", "")):
        ev = SystemReviewRecorded(
            occurred_at=tick(), review_key=f"sys-{p}-{len(events)}", system="ai-scientist", system_config="cfg-sys",
            system_version=1, paper_id=p, package_sha256="b" * 64, sample_index=0, provider="openai", model="m",
            status="ok", null_reason=None, review_json=json.dumps({"summary": summary, "score": 6}), score=6.0,
            score_scale="neurips_1_10", confidence=3.0, calls_json="[]", options_json="{}", study="S")
        events.append(ev)
        systems[p] = f"peerlake:{ev.review_key}"  # the newest of A's two
    n = [0]

    def judgment(config, subject, paper, repeat, score=None, null_reason=None):
        n[0] += 1
        ok = null_reason is None
        units = [{"predicted_score": score, "rubric": "neurips" if paper == "E" else "iclr", "rubric_sha256": "r",
                  "scale_min": 1.0, "scale_max": 10.0, "is_anchor": True, "n_numbers_removed": 0}] if ok else []
        events.append(JudgmentRecorded(
            occurred_at=tick(), judgment_key=f"jk-{n[0]}", judge="score_prediction", step="predict",
            judge_config=config, subject_key=subject, paper_id=paper, repeat=repeat, status="ok" if ok else "null",
            null_reason=null_reason, units_json=json.dumps(units),
            dropped_json=json.dumps({"out_of_scale": 1} if null_reason == "out_of_scale" else {}),
            llm_call_ids_json="[]", request_keys_json="[]",
            inputs_json=json.dumps({"venue": NEURIPS if paper == "E" else ICLR,
                                    "year": 2024 if paper == "E" else 2025}),
            study="S"))

    for rid, scores in {"hA1": (8, 8, 1), "hA2": (6, 7), "hB1": (5, None), "hC1": (3, 3), "hC2": (5, 5),
                        "hD1": (1,), "hE1": (7,)}.items():
        for repeat, score in enumerate(scores):
            judgment("jsp", f"human:{rid}", HUMANS[rid][0], repeat, score,
                     None if score is not None else "out_of_scale")
    for p, score in (("A", 8), ("B", 3), ("C", 5)):
        judgment("jsp", systems[p], p, 0, score)
    judgment("jother", "human:hA1", "A", 0, 2)
    reviewers = [{"reviewer_config": "cfg-sys", "system": "ai-scientist", "samples": 1}]
    events.append(resolution_event("S", "s" * 64, list("ABCDE"), reviewers, (), "test", asset="system_reviews"))
    events.append(resolution_event("S", "s" * 64, list("ABCDE"), [], (), "test", asset="score_prediction",
                                   judges=[{"judge": "score_prediction", "judge_config": "jsp", "repeats": 2,
                                            "review_keys": []}]))
    events.append(resolution_event("T", "t" * 64, ["A"], [], (), "test", asset="system_reviews"))
    log.append_many(events)
    log.seal()
    log.close()
    return systems
