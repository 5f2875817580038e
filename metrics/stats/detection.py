"""Contradiction detection rates (the Multi-Layered Review paper) from the detection judge's per-repeat answers:
any-of-k ensembles, accuracy per distance with Wilson intervals, and the judge audit. The bodies of the
dbt Python models contradiction_detection and contradiction_judge_audit.

An answer is True (identified), False, or None (undecided: the judge's answer was unparseable or the
item had no paragraphs; a review with no text counts False upstream: it identified nothing).

  any-of-k, repeat r: True if any of the first k reviews (by sample index) is judged identified in r,
  False if all k are judged not identified, undecided otherwise; an item's rate = mean over its
  decided repeats (the paper's definition: acc = 1/|J| Σ_j 1/R Σ_r d_jr); accuracy = mean over the items that have
  at least k judged reviews and a decided repeat; Wilson with n = those items (ours: the paper does not say).
"""

from collections.abc import Mapping, Sequence

import pandas as pd

from peerlake.metrics.stats.keys import join_id
from peerlake.metrics.stats.wilson import wilson_interval

Answers = Mapping[int, bool | None]  # repeat index → the judge's answer

DETECTION_COLUMNS = {"contradiction_detection_id": "string", "study_id": "string", "judge_config": "string",
                     "source": "string", "reviewer_config": "string", "item_set": "string", "k": "int64",
                     "distance": "string", "distance_value": "Int64", "n_items": "int64",
                     "n_items_measured": "int64", "n_items_undecided": "int64", "accuracy": "float64",
                     "wilson_lo": "float64", "wilson_hi": "float64", "null_reason": "string"}
AUDIT_COLUMNS = {"contradiction_judge_audit_id": "string", "study_id": "string", "judge_config": "string",
                 "measure": "string", "reviewer_config": "string", "n_subjects": "int64",
                 "n_subjects_measured": "int64", "n_judgments": "int64", "rate": "float64",
                 "wilson_lo": "float64", "wilson_hi": "float64", "null_reason": "string"}
ITEM_SETS = ("all", "validated")


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def ensemble_rate(reviews: Sequence[Answers], k: int) -> float | None:
    """The share of decided repeats in which any of the first k reviews identifies the item; None
    when fewer than k reviews or no repeat is decided."""
    if k < 1 or len(reviews) < k:
        return None
    first = reviews[:k]
    decided = []
    for r in sorted({r for rev in first for r in rev}):
        answers = [rev.get(r) for rev in first]
        if any(a is True for a in answers):
            decided.append(1.0)
        elif all(a is False for a in answers):
            decided.append(0.0)
    return _mean(decided)


def answer_rate(answers: Answers, want: bool) -> tuple[float | None, int]:
    """(share of decided repeats answering `want`, decided repeats); (None, 0) when none is decided."""
    decided = [a for a in answers.values() if a is not None]
    return _mean([1.0 if a is want else 0.0 for a in decided]), len(decided)


def _interval(rate: float | None, n: int) -> tuple[float | None, float | None]:
    ci = wilson_interval(rate, n)
    return ci if ci is not None else (None, None)


def _answers(rows: pd.DataFrame) -> dict[int, bool | None]:
    return {int(r): (None if pd.isna(a) else bool(a)) for r, a in zip(rows["repeat_index"], rows["identified"],
                                                                       strict=True)}


def detection_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (study, judge config, source, reviewer config, item set, k, distance | 'all').
    `frame`: one row per detection judgment (study_id, judge_config, source, reviewer_config, variant_id,
    distance, is_validated, review_key, sample_index, repeat_index, identified)."""
    rows = []
    group_keys = ["study_id", "judge_config", "source", "reviewer_config"]
    for key, g in frame.groupby(group_keys, sort=True, dropna=False):
        items = []  # (distance, is_validated, [answers per review in sample order])
        for _, item in g.groupby("variant_id", sort=True):
            order = item[["review_key", "sample_index"]].drop_duplicates("review_key")
            order = order.sort_values(["sample_index", "review_key"], na_position="last")
            reviews = [_answers(item[item["review_key"] == rk]) for rk in order["review_key"]]
            d = item["distance"].iloc[0]  # an item without a distance counts in 'all' only
            items.append((None if pd.isna(d) else int(d), bool(item["is_validated"].fillna(False).iloc[0]), reviews))
        k_max = max(len(r) for _, _, r in items)
        distances = sorted({d for d, _, _ in items if d is not None})
        for item_set in ITEM_SETS:
            for k in range(1, k_max + 1):
                for distance in [None, *distances]:
                    chosen = [rev for d, valid, rev in items if (distance is None or d == distance)
                              and (item_set == "all" or valid) and len(rev) >= k]
                    rates = [ensemble_rate(rev, k) for rev in chosen]
                    measured = [x for x in rates if x is not None]
                    acc = _mean(measured)
                    lo, hi = _interval(acc, len(measured))
                    why = None
                    if not chosen:
                        why = "no_validated_items" if item_set == "validated" else "no_items"
                    elif not measured:
                        why = "no_decided_judgments"
                    label = "all" if distance is None else str(distance)
                    rows.append({"contradiction_detection_id": join_id(*key, item_set, k, label),
                                 **dict(zip(group_keys, key, strict=True)), "item_set": item_set, "k": k,
                                 "distance": label, "distance_value": distance, "n_items": len(chosen),
                                 "n_items_measured": len(measured), "n_items_undecided": len(chosen) - len(measured),
                                 "accuracy": acc, "wilson_lo": lo, "wilson_hi": hi, "null_reason": why})
    return pd.DataFrame(rows, columns=list(DETECTION_COLUMNS)).astype(DETECTION_COLUMNS)


# measure → (the judgments it reads, the right answer, why it is empty)
MEASURES = {"specificity": ("audit", False, "no_audit_judgments"),
            "sensitivity": ("verified", True, "no_verified_labels")}


def audit_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (study, judge config, measure, reviewer config | 'all'): the share of decided judge
    answers that are right, averaged per (item, review) subject first; n = subjects with an answer.
    specificity: reviews of the unmodified base paper (role 'audit'; right answer: no, the Multi-Layered Review paper);
    sensitivity: detection subjects a human verified as identified (verified_identified true).
    `frame`: study_id, judge_config, role, reviewer_config, subject_key, repeat_index, identified,
    verified_identified."""
    rows = []
    for (study, judge_config), g in frame.groupby(["study_id", "judge_config"], sort=True):
        for measure, (which, right, empty) in MEASURES.items():
            if which == "audit":
                sub = g[g["role"] == "audit"]
            else:
                sub = g[(g["role"] == "detection") & (g["verified_identified"].fillna(False).astype(bool))]
            configs = [("all", sub)] + [(c, s) for c, s in sub.groupby("reviewer_config", sort=True)]
            for config, s in configs:
                per_subject = [answer_rate(_answers(x), right) for _, x in s.groupby("subject_key", sort=True)]
                measured = [rate for rate, _ in per_subject if rate is not None]
                rate = _mean(measured)
                lo, hi = _interval(rate, len(measured))
                n_subjects = len(per_subject)
                why = empty if n_subjects == 0 else (None if measured else "no_decided_judgments")
                rows.append({"contradiction_judge_audit_id": join_id(study, judge_config, measure, config),
                             "study_id": study, "judge_config": judge_config, "measure": measure,
                             "reviewer_config": config, "n_subjects": n_subjects,
                             "n_subjects_measured": len(measured), "n_judgments": sum(n for _, n in per_subject),
                             "rate": rate, "wilson_lo": lo, "wilson_hi": hi, "null_reason": why})
    return pd.DataFrame(rows, columns=list(AUDIT_COLUMNS)).astype(AUDIT_COLUMNS)
