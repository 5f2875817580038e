"""Prediction-powered inference (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, "Prediction-powered
inference", Science 2023) for a judge's quality metrics: a mean computed from the judge's values Ŷ on every
review, corrected by the judge's error on the reviews a human also labelled.

  mean    θ̂ = mean(Ŷ over the N unlabelled reviews) + mean(Y − Ŷ over the n labelled ones), with
          se² = σ̂²(Ŷ_unlabelled)/N + σ̂²(Y − Ŷ)/n (σ̂ with ddof 0) and the normal 95 % interval — the
          PPI mean estimator with λ = 1, as ppi_py.ppi_mean_ci computes it (tests cross-check). Every review
          labelled (N = 0): the classical mean of Y. Fewer than MIN_LABELS labelled reviews: no estimate.
  naive   the judge's values alone: mean(Ŷ over all reviews), se = σ̂(Ŷ)/√(n + N) (ppi_py.classical_mean_ci).
  diff    system − human: the two groups' reviews are disjoint, so their variances add. Each side's own
          mean is kept too: a side with labels is debiased when the other has too few for a difference.

Planning (plan_labels): the width of a PPI interval of one mean is 2·z·√(σ²_f/N + σ²_r/n), σ²_f the judge
values' variance and σ²_r the variance of Y − Ŷ; labels alone need n = σ²_Y·(2z/W)². Dorner, Nastl & Hardt
("Limits to scalable evaluation at the frontier: LLM as judge won't beat twice the data", ICLR 2025): when
the judge is no more accurate than the model it evaluates, debiasing saves at most half the labels.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

MIN_LABELS = 2
Z = float(stats.norm.ppf(0.975))  # 1.959964: the 95 % normal quantile ppi_py uses
# Dorner, Nastl & Hardt (ICLR 2025): the most a judge no better than what it judges can save
DORNER_MAX_SAVING = 0.5


@dataclass(frozen=True)
class Estimate:
    mean: float | None
    se: float | None
    n_labels: int

    @property
    def ci(self) -> tuple[float | None, float | None]:
        if self.mean is None or self.se is None:
            return None, None
        return self.mean - Z * self.se, self.mean + Z * self.se


def _arr(x) -> np.ndarray:
    return np.asarray(list(x), dtype=float)


def ppi_mean(y: Sequence[float], yhat: Sequence[float], yhat_unlabeled: Sequence[float]) -> Estimate:
    """The PPI mean (λ = 1) from n labelled (Y, Ŷ) pairs and N unlabelled Ŷ."""
    y, yhat, u = _arr(y), _arr(yhat), _arr(yhat_unlabeled)
    if y.shape != yhat.shape:
        raise ValueError(f"ppi_mean: {y.size} labels paired with {yhat.size} judge values")
    if y.size < MIN_LABELS:
        return Estimate(None, None, int(y.size))
    if u.size == 0:
        return Estimate(float(y.mean()), float(y.std() / math.sqrt(y.size)), int(y.size))
    rect = y - yhat
    se = math.sqrt(u.var() / u.size + rect.var() / y.size)
    return Estimate(float(u.mean() + rect.mean()), se, int(y.size))


def naive_mean(yhat: Sequence[float]) -> Estimate:
    """The judge's mean over every review, and its classical standard error."""
    v = _arr(yhat)
    if v.size == 0:
        return Estimate(None, None, 0)
    return Estimate(float(v.mean()), float(v.std() / math.sqrt(v.size)), 0)


def difference(a: Estimate, b: Estimate) -> Estimate:
    """a − b for independent groups; n_labels is the labels behind both."""
    if a.mean is None or b.mean is None or a.se is None or b.se is None:
        return Estimate(None, None, a.n_labels + b.n_labels)
    return Estimate(a.mean - b.mean, math.sqrt(a.se ** 2 + b.se ** 2), a.n_labels + b.n_labels)


@dataclass(frozen=True)
class LabelPlan:
    labels_ppi: int | None  # human labels for width W with the judge on n_judged reviews (None: unreachable)
    labels_classical: int  # human labels for width W without the judge
    judged: int  # judge calls (reviews judged) assumed
    saving: float | None  # 1 − labels_ppi / labels_classical


def plan_labels(width: float, var_human: float, var_residual: float, var_judge: float, judged: int) -> LabelPlan:
    """Labels for a 95 % interval of width `width` on one mean: classical n = σ²_Y·(2z/W)²; PPI with the
    judge on `judged` reviews n = σ²_r / ((W/2z)² − σ²_f/judged), unreachable when the judge's own term
    already exceeds the budget (more judge calls or a wider W needed)."""
    if width <= 0:
        raise ValueError("the target width must be > 0")
    budget = (width / (2 * Z)) ** 2
    classical = max(1, math.ceil(var_human / budget))
    room = budget - (var_judge / judged if judged else math.inf)
    ppi = max(1, math.ceil(var_residual / room)) if room > 0 else None
    return LabelPlan(ppi, classical, judged, None if ppi is None else 1 - ppi / classical)


# ---- quality_comparison's PPI columns -----------------------------------------------------------------

PPI_COLUMNS = {"n_human_labels": "int64", "naive_diff": "float64", "naive_ci_low": "float64",
               "naive_ci_high": "float64", "ppi_diff": "float64", "ppi_ci_low": "float64", "ppi_ci_high": "float64",
               "ppi_null_reason": "string", "n_judged": "int64", "ppi_var_human": "float64",
               "ppi_var_residual": "float64", "ppi_var_judge": "float64",
               # each side's own PPI mean: a side with labels is debiased even when the other has none
               # (named as mean_system_ci_low: an interval <x>_ci_low/_ci_high around <x>, audit.builds_diff)
               **{c: t for side in ("system", "human") for c, t in (
                   (f"ppi_mean_{side}", "float64"), (f"ppi_mean_{side}_ci_low", "float64"),
                   (f"ppi_mean_{side}_ci_high", "float64"), (f"n_labelled_{side}", "int64"),
                   (f"n_unlabelled_{side}", "int64"))}}
COUNTS = [c for c, t in PPI_COLUMNS.items() if t == "int64"]


def _side(values, labels: dict) -> tuple[list, list, list]:
    """(Y, Ŷ) of the labelled reviews and Ŷ of the others, from {review_key: Ŷ} and {review_key: Y}."""
    y, yhat, rest = [], [], []
    for key, v in sorted(values.items()):
        if key in labels:
            y.append(labels[key])
            yhat.append(v)
        else:
            rest.append(v)
    return y, yhat, rest


def ppi_row(system: dict, human: dict, labels: dict) -> dict:
    """One quality_comparison row's PPI columns from the judge's value per review of each side
    ({review_key: Ŷ}) and the human labels ({review_key: Y}): the naive difference of the judge's review
    means and the prediction-powered one, each with its 95 % interval; each side's PPI mean with its
    interval and its labelled (n) and unlabelled (N) reviews; and the variances plan_labels needs."""
    sy, syh, srest = _side(system, labels)
    hy, hyh, hrest = _side(human, labels)
    naive = difference(naive_mean([*syh, *srest]), naive_mean([*hyh, *hrest]))
    n_labels = len(sy) + len(hy)
    reason = ("no_human_labels" if n_labels == 0 else "too_few_labels_system" if len(sy) < MIN_LABELS
              else "too_few_labels_human" if len(hy) < MIN_LABELS else None)
    mine, theirs = ppi_mean(sy, syh, srest), ppi_mean(hy, hyh, hrest)
    ppi = difference(mine, theirs) if reason is None else Estimate(None, None, 0)
    ys, yhats = np.array([*sy, *hy], dtype=float), np.array([*syh, *hyh], dtype=float)
    judged = np.array([*syh, *srest, *hyh, *hrest], dtype=float)
    sides = {}
    for side, est, rest in (("system", mine, srest), ("human", theirs, hrest)):
        sides.update({f"ppi_mean_{side}": est.mean, f"ppi_mean_{side}_ci_low": est.ci[0],
                      f"ppi_mean_{side}_ci_high": est.ci[1], f"n_labelled_{side}": est.n_labels,
                      f"n_unlabelled_{side}": len(rest)})
    return {"n_human_labels": n_labels, "naive_diff": naive.mean, "naive_ci_low": naive.ci[0],
            "naive_ci_high": naive.ci[1], "ppi_diff": ppi.mean, "ppi_ci_low": ppi.ci[0], "ppi_ci_high": ppi.ci[1],
            "ppi_null_reason": reason, "n_judged": int(judged.size),
            "ppi_var_human": float(ys.var()) if ys.size else None,
            "ppi_var_residual": float((ys - yhats).var()) if ys.size else None,
            "ppi_var_judge": float(judged.var()) if judged.size else None, **sides}


def with_ppi(table, metrics, labels):
    """quality_comparison with the PPI columns added (every existing column and row as it was): per
    (study, system, metric) the system's reviews against the human reviews (for a flaws metric the humans
    of the system's pools), each review's judge value its mean over its rows."""
    import pandas as pd

    known = {(r.review_key, r.metric): float(r.human_value) for r in labels.itertuples(index=False)}
    rated = metrics[metrics["value"].notna()]
    # grouped once: a row reads only its (study, judge configuration, metric)'s quality rows
    groups = dict(list(rated.groupby(["study_id", "judge_config", "metric"], sort=False)))
    empty = rated.iloc[0:0]
    out = []
    for row in table.itertuples(index=False):
        m = groups.get((row.study_id, row.judge_config, row.metric), empty)
        mine = m[(m["source"] != "human") & (m["system"] == row.system)]
        theirs = m[(m["source"] == "human") & (m["pool_system"].isna() | (m["pool_system"] == row.system))]
        ys = {k: v for (k, metric), v in known.items() if metric == row.metric}
        out.append(ppi_row(mine.groupby("review_key")["value"].mean().to_dict(),
                           theirs.groupby("review_key")["value"].mean().to_dict(), ys))
    extra = pd.DataFrame(out, columns=list(PPI_COLUMNS), index=table.index)
    extra[COUNTS] = extra[COUNTS].fillna(0)
    return pd.concat([table, extra.astype(PPI_COLUMNS)], axis=1)
