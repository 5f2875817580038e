"""revision_selector_agreement, revision_validation and revision_cases ("Can We Believe AI Peer Review?"), from
int_revision_outcomes (one row per study × paper × Writer/Selector condition)."""

import json
from collections import Counter

import numpy as np
import pandas as pd

from peerlake.metrics.revision.agreement import scorer_pairs
from peerlake.metrics.revision.arithmetic import (
    STRATA,
    case_order,
    letter_pairs,
    pick_block,
    selector_agreement,
    strata,
)
from peerlake.metrics.stats.keys import join_id

AGREEMENT_COLUMNS = {
    "revision_selector_agreement_id": "string", "study_id": "string", "writer": "string", "selector_a": "string",
    "selector_b": "string", "condition_a": "string", "condition_b": "string", "n_papers": "int64",
    "n_papers_blocked": "int64", "n_papers_candidates_differ": "int64", "n_candidates": "int64",
    "n_accepted_a": "int64", "n_accepted_b": "int64", "n_both_accept": "int64", "n_decisions_differ": "int64",
    "n_both_reject": "int64", "n_identical_papers": "int64", "n_papers_decisions_differ": "int64",
    "mean_jaccard": "float64"}

VALIDATION_COLUMNS = {
    "revision_validation_id": "string", "study_id": "string", "condition": "string", "writer": "string",
    "selector": "string", "n_papers": "int64", "n_ok": "int64", "n_blocked": "int64", "blocked_reasons": "string",
    "n_papers_failing_checks": "int64", "failed_checks": "string", "n_candidates": "int64",
    "n_edited_blocks": "int64", "n_image_entries": "int64", "n_images_rehashed": "int64",
    "n_reasons_truncated": "int64"}

CASE_COLUMNS = {
    "revision_case_id": "string", "study_id": "string", "condition": "string", "scorer_x": "string",
    "scorer_y": "string", "stratum": "string", "n_papers_in_stratum": "int64", "paper_id": "string",
    "final_paper_id": "string", "gain_x": "float64", "gain_y": "float64", "direction_x": "Int64",
    "direction_y": "Int64", "diff_id": "string", "page": "Int64", "original_text": "string",
    "revised_text": "string", "block_rule": "string", "n_accepted_blocks": "Int64"}


def _ids(value) -> set[str]:
    """A VARCHAR[] cell as a set (DuckDB hands lists or numpy arrays to pandas; null is no list)."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return set()
    return {str(v) for v in value}


def _counted(counter: Counter) -> str | None:
    """'reason=count' joined with '; ' in name order; None when nothing was counted."""
    return "; ".join(f"{k}={v}" for k, v in sorted(counter.items())) or None


def selector_agreement_table(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Per (study, Writer, Selector pair from letter_pairs): the papers where both conditions passed the
    validators ('ok'); n_papers_blocked counts the papers where either was blocked. Candidates per paper are
    the union of the two conditions' candidate diffs (the same Writer's diffs, so equal;
    n_papers_candidates_differ counts where they are not)."""
    rows = []
    for (study, writer), g in outcomes.groupby(["study_id", "writer"], sort=True):
        by_sel = {s: f.set_index("paper_id") for s, f in g.groupby("selector")}
        for a, b in letter_pairs(by_sel):
            fa, fb = by_sel[a], by_sel[b]
            papers = sorted(set(fa.index) & set(fb.index))
            ok = [p for p in papers if fa.at[p, "status"] == "ok" and fb.at[p, "status"] == "ok"]
            cand = [_ids(fa.at[p, "candidate_diff_ids"]) | _ids(fb.at[p, "candidate_diff_ids"]) for p in ok]
            differ = sum(_ids(fa.at[p, "candidate_diff_ids"]) != _ids(fb.at[p, "candidate_diff_ids"]) for p in ok)
            agree = selector_agreement(cand, [_ids(fa.at[p, "accepted_diff_ids"]) for p in ok],
                                       [_ids(fb.at[p, "accepted_diff_ids"]) for p in ok])
            rows.append({"revision_selector_agreement_id": join_id(study, writer, a, b), "study_id": study,
                         "writer": writer, "selector_a": a, "selector_b": b, "condition_a": writer + a,
                         "condition_b": writer + b, "n_papers": agree.n_papers,
                         "n_papers_blocked": len(papers) - len(ok), "n_papers_candidates_differ": differ,
                         "n_candidates": agree.n_candidates, "n_accepted_a": agree.n_accepted_a,
                         "n_accepted_b": agree.n_accepted_b, "n_both_accept": agree.n_both_accept,
                         "n_decisions_differ": agree.n_decisions_differ, "n_both_reject": agree.n_both_reject,
                         "n_identical_papers": agree.n_identical_papers,
                         "n_papers_decisions_differ": agree.n_papers - agree.n_identical_papers,
                         "mean_jaccard": agree.mean_jaccard if agree.n_papers else None})
    return pd.DataFrame(rows, columns=list(AGREEMENT_COLUMNS)).astype(AGREEMENT_COLUMNS)


def validation_table(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Per (study, condition): papers, ok / blocked with the blocked reasons counted, the papers failing any
    structural check (and which checks), and the summed counts: candidates and reasons truncated over all
    papers; edited blocks (accepted diffs) and image entries over the ok papers (their final manuscripts
    exist); images re-hashed over all papers (the check runs before it can block)."""
    rows = []
    for (study, cond), g in outcomes.groupby(["study_id", "condition"], sort=True):
        ok = g[g["status"] == "ok"]
        failing, checks = 0, Counter()
        for raw in g["checks_json"]:
            failed = [name for name, c in (json.loads(raw) if isinstance(raw, str) and raw else {}).items()
                      if not c.get("passed")]
            failing += bool(failed)
            checks.update(failed)
        reasons = Counter(g.loc[g["status"] == "blocked", "blocked_reason"].fillna("unknown"))
        rows.append({"revision_validation_id": join_id(study, cond), "study_id": study, "condition": cond,
                     "writer": g["writer"].iloc[0], "selector": g["selector"].iloc[0], "n_papers": len(g),
                     "n_ok": len(ok), "n_blocked": int((g["status"] == "blocked").sum()),
                     "blocked_reasons": _counted(reasons), "n_papers_failing_checks": failing,
                     "failed_checks": _counted(checks), "n_candidates": int(g["n_candidates"].fillna(0).sum()),
                     "n_edited_blocks": int(ok["n_accepted"].fillna(0).sum()),
                     "n_image_entries": int(ok["n_image_entries"].fillna(0).sum()),
                     "n_images_rehashed": int(g["n_images_rehashed"].fillna(0).sum()),
                     "n_reasons_truncated": int(g["n_reasons_truncated"].fillna(0).sum())})
    return pd.DataFrame(rows, columns=list(VALIDATION_COLUMNS)).astype(VALIDATION_COLUMNS)


def cases_table(gains: pd.DataFrame, outcomes: pd.DataFrame) -> pd.DataFrame:
    """Per (study, condition, Scorer pair, stratum of metrics.revision.arithmetic.STRATA): the stratum's size and its
    first paper by SHA-256 of the paper id, with the block pick_block chooses from that paper's accepted diffs
    (an empty stratum keeps its row with n 0 and no paper). The gains shown are the whole manuscript's."""
    diffs = {(r["study_id"], r["condition"], r["paper_id"]): r["diffs_json"] for r in outcomes.to_dict("records")}
    rows = []
    for study, cond, _w, _s, x, y, _cx, _cy, both in scorer_pairs(gains):
        members = {name: [] for name in STRATA}
        for r in both.to_dict("records"):
            for name in strata(int(r["direction_x"]), int(r["direction_y"])):
                members[name].append(r)
        for name in STRATA:
            row = {"revision_case_id": join_id(study, cond, x, y, name), "study_id": study, "condition": cond,
                   "scorer_x": x, "scorer_y": y, "stratum": name, "n_papers_in_stratum": len(members[name])}
            if members[name]:
                r = min(members[name], key=lambda m: case_order(m["paper_id"]))
                raw = diffs.get((study, cond, r["paper_id"]))
                paper_diffs = json.loads(raw) if isinstance(raw, str) and raw else []
                block, rule = pick_block(paper_diffs)
                row.update(paper_id=r["paper_id"], final_paper_id=r["final_paper_id_x"], gain_x=r["gain_x"],
                           gain_y=r["gain_y"], direction_x=int(r["direction_x"]), direction_y=int(r["direction_y"]),
                           n_accepted_blocks=sum(bool(d.get("accepted")) for d in paper_diffs), block_rule=rule)
                if block is not None:
                    row.update(diff_id=block.get("diff_id"), page=block.get("page"),
                               original_text=block.get("original"), revised_text=block.get("revised"))
            rows.append(row)
    return pd.DataFrame(rows, columns=list(CASE_COLUMNS)).astype(CASE_COLUMNS)
