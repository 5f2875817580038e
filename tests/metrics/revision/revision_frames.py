"""Hand-made frames shaped like the contract models int_revision_scores / int_revision_outcomes /
int_revision_cells (notes: revision_design.md), for the revision marts' table functions.

Study S, Writer L, Selectors L/H, Scorers L/H (cells LLL, LLH, LHL, LHH), repeats 3.
Originals: Scorer L P1 [5,5,5] P2 [4,4,4] P3 [6,6,6] P4 [5,5,5]; Scorer H P1 [5,5,5] P2 [5,5,5] P3 [5,5,5] P4 [4,4,4].
Finals (gain per paper):  LLL P1 [5,6,7] (+1) P2 [5,5,5] (+1) P3 [6,6,6] (0)  P4 [7,7,7] (+2)
                          LLH P1 [5,5,5] (0)  P2 [4,4,4] (−1) P3 [4,4,4] (−1) P4 [4,4,4] (0)
                          LHL P1 [7,7,7] (+2) P2 [5,5,5] (+1) P3 [7,7,7] (+1) P4 [6,6,6] (+1)
                          LHH P1 [4,4,4] (−1) P2 [5,5,5] (0)  P3 [5,5,5] (0)  P4 [3,3,3] (−1)
P5 (ICLR 2026) is in LLL only, with one final score unparsed: incomplete. P6 is blocked in LH
(image_hash_mismatch) and ok in LL; it has no scores. P1, P2, P6 are 'ICLR 2025'; P3, P4, P5 'ICLR 2026'.
"""

import json

import pandas as pd

ORIGINAL = {"L": {"P1": [5, 5, 5], "P2": [4, 4, 4], "P3": [6, 6, 6], "P4": [5, 5, 5], "P5": [5, 5, 5]},
            "H": {"P1": [5, 5, 5], "P2": [5, 5, 5], "P3": [5, 5, 5], "P4": [4, 4, 4]}}
FINAL = {"LLL": {"P1": [5, 6, 7], "P2": [5, 5, 5], "P3": [6, 6, 6], "P4": [7, 7, 7], "P5": [6, None, 6]},
         "LLH": {"P1": [5, 5, 5], "P2": [4, 4, 4], "P3": [4, 4, 4], "P4": [4, 4, 4]},
         "LHL": {"P1": [7, 7, 7], "P2": [5, 5, 5], "P3": [7, 7, 7], "P4": [6, 6, 6]},
         "LHH": {"P1": [4, 4, 4], "P2": [5, 5, 5], "P3": [5, 5, 5], "P4": [3, 3, 3]}}
VENUE = {"P1": "ICLR 2025", "P2": "ICLR 2025", "P6": "ICLR 2025", "P3": "ICLR 2026", "P4": "ICLR 2026",
         "P5": "ICLR 2026"}
MODEL = {"L": "local/qwen-1.5b", "H": "local/qwen-0.5b"}
# 88 characters once whitespace is normalised (the trailing space goes)
LONG = "The method is evaluated on three benchmarks with the same protocol as the baseline work. "


def scores() -> pd.DataFrame:
    rows = []
    for cell, finals in FINAL.items():
        w, s, r = cell
        for paper, final in finals.items():
            for side, values in (("original", ORIGINAL[r][paper]), ("final", final)):
                for i, v in enumerate(values):
                    rows.append({"study_id": "S", "cell": cell, "writer": w, "selector": s, "scorer": r,
                                 "condition": w + s, "scorer_model": MODEL[r], "scorer_config": f"cfg-{r}",
                                 "paper_id": paper, "final_paper_id": f"{paper}~rev-{w}{s}",
                                 "venue_year": VENUE[paper], "side": side, "sample_index": i, "score": v,
                                 "request_key": f"{cell}-{paper}-{side}-{i}", "repeats": 3})
    return pd.DataFrame(rows).astype({"score": "Int64"})


def cells() -> pd.DataFrame:
    """The four scored cells and LLX, declared but never scored (Scorer X)."""
    return pd.DataFrame([{"study_id": "S", "cell": c, "writer": c[0], "selector": c[1], "scorer": c[2],
                          "condition": c[:2], "scorer_model": MODEL.get(c[2], "local/x"), "repeats": 3}
                         for c in [*FINAL, "LLX"]])


def _diff(diff_id, page, accepted, original=LONG, revised=LONG + "Clearer."):
    return {"diff_id": diff_id, "record_id": f"r-{diff_id}", "page": page, "original": original,
            "revised": revised, "accepted": accepted, "reason": "ok", "reason_truncated": False}


# (condition, paper) → (candidates, accepted) diff ids
DECISIONS = {("LL", "P1"): (["d1", "d2", "d3"], ["d1", "d2"]), ("LH", "P1"): (["d1", "d2", "d3"], ["d2", "d3"]),
             ("LL", "P2"): (["d1"], ["d1"]), ("LH", "P2"): (["d1"], ["d1"]),
             ("LL", "P3"): ([], []), ("LH", "P3"): ([], []),
             ("LL", "P4"): (["d1", "d2"], ["d1"]), ("LH", "P4"): (["d1", "d2"], []),
             ("LL", "P6"): (["d1"], ["d1"]), ("LH", "P6"): (["d1"], ["d1"])}


def outcomes() -> pd.DataFrame:
    rows = []
    for (cond, paper), (cand, acc) in DECISIONS.items():
        blocked = (cond, paper) == ("LH", "P6")
        diffs = [_diff(d, 1 if d != "d1" else 2, d in acc) for d in cand]
        if paper == "P2":  # its one block is short: the case picker falls back to the first accepted
            diffs = [_diff("d1", 1, True, "short", "shorter")]
        checks = {"known_records": {"passed": True, "detail": ""},
                  "image_hashes": {"passed": not blocked, "detail": "img-3 differs" if blocked else ""}}
        rows.append({"study_id": "S", "paper_id": paper, "venue_year": VENUE[paper], "writer": cond[0],
                     "selector": cond[1], "condition": cond, "writer_model": MODEL["L"],
                     "selector_model": MODEL[cond[1]], "status": "blocked" if blocked else "ok",
                     "blocked_reason": "image_hash_mismatch" if blocked else None, "n_candidates": len(cand),
                     "n_accepted": len(acc), "n_reasons_truncated": 1 if (cond, paper) == ("LH", "P1") else 0,
                     "accepted_diff_ids": acc, "candidate_diff_ids": cand, "diffs_json": json.dumps(diffs),
                     "checks_json": json.dumps(checks), "n_image_entries": 2, "n_images_rehashed": 2,
                     "final_paper_id": None if blocked else f"{paper}~rev-{cond}"})
    return pd.DataFrame(rows)


def empty(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.iloc[0:0]
