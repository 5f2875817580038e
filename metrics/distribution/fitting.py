"""Fit Quick and Standard on random half/half paper splits and score them on the held-out half.

Inputs per paper: the probe distribution (r, present), five full-review integer scores (the first
five by sample index), and optionally an acceptance label. Losses:
- (T, a0, b0) by Brier loss of q_Q against the five scores, summed over training papers;
- w by Brier loss of q_S against the three targets, over all 10 (two inputs, three targets) splits
  of the five scores. For a fixed target set Brier and R̂ differ by a term free of q, so this is
  also the R̂-minimizing w.
Held-out risk R̂: Quick against all five scores (m = 5); Standard averaged over the 10 splits
(m = 3 each, inputs never used as targets); direct sampling of n reviews (1 − c)/n with c the
collision rate of the five scores. Both R̂ estimates are unbiased for the same ‖q − p‖².
Acceptance AUC on each test half: Standard and direct_n have several equally valid inputs (the 10
two-review choices; the C(5, n) subsets of the five reviews), so the AUC is computed for each input
combination and averaged — the AUC of averaged predictions would be the AUC of a different,
smoother estimator. Again with withdrawn papers left out. The headline comparison is paired:
R̂(Standard) − R̂(direct_n), n = 2, 3, per paper, with a paper-bootstrap interval.
"""

import json
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

from peerlake.metrics.distribution.estimators import SCORES, quick
from peerlake.metrics.distribution.probe import PROB_COLUMNS
from peerlake.metrics.distribution.risk import collision_rate, direct_sampling_risk
from peerlake.metrics.stats.bootstrap import bootstrap_mean_ci
from peerlake.metrics.stats.keys import STUDY, has_study, join_id
from peerlake.metrics.stats.validity import acceptance_auc

T_GRID = (1, 2, 3, 5, 8, 12)
A0_GRID = tuple(round(-2.0 + 0.2 * i, 1) for i in range(13))  # −2.0, −1.8, …, 0.4
B0_GRID = (0.9, 1.0, 1.1)
W_GRID = tuple(round(0.3 + 0.1 * i, 1) for i in range(8))  # 0.3 … 1.0
N_TARGETS = 5
SPLITS_2_3 = tuple(combinations(range(N_TARGETS), 2))  # the 10 choices of two input scores
DIRECT_N = (1, 2, 3, 5)
DIFFERENCE_N = (2, 3)  # Standard (probe + 2 reviews) against 2 and 3 direct reviews
# Seed offsets keep each interval's resamples fixed and distinct from the per-method ones (1 + i).
_DIFF_SEED_OFFSET = 100


@dataclass(frozen=True)
class PaperData:
    paper_id: str
    r: np.ndarray
    present: np.ndarray
    scores: np.ndarray  # five integer scores
    accepted: bool | None = None
    withdrawn: bool | None = None  # unknown counts as not withdrawn, as in the validity mart


@dataclass
class MethodResult:
    method: str
    risk: float
    risk_ci_low: float
    risk_ci_high: float
    auc: float  # nan without accepted and rejected papers in any test half
    auc_excluding_withdrawn: float
    per_paper_risk: np.ndarray = field(repr=False)
    # R̂(standard) − R̂(this method), mean over papers and paired bootstrap interval (DIFFERENCE_N only)
    standard_minus_risk: float = float("nan")
    standard_minus_risk_ci_low: float = float("nan")
    standard_minus_risk_ci_high: float = float("nan")


@dataclass
class FitResult:
    methods: list[MethodResult]
    n_papers: int
    n_splits: int
    chosen: list[tuple[float, float, float, float]]  # (T, a0, b0, w) per split


def _onehots(scores: np.ndarray) -> np.ndarray:
    """(papers, m) integer scores → (papers, m, 10) indicator arrays."""
    return np.eye(10)[scores.astype(int) - 1]


def _brier(q: np.ndarray, onehot: np.ndarray) -> np.ndarray:
    """Per paper: mean over targets of Σ_s (q(s) − 1[s = Z])²; q (…, 10), onehot (…, m, 10)."""
    return ((q[..., None, :] - onehot) ** 2).sum(-1).mean(-1)


def quick_table(papers: list[PaperData]) -> tuple[list[tuple], np.ndarray]:
    """Every grid point's q_Q for every paper: (params list, array (grid, papers, 10))."""
    grid = [(T, a0, b0) for T in T_GRID for a0 in A0_GRID for b0 in B0_GRID]
    table = np.array([[quick(p.r, p.present, T, a0, b0) for p in papers] for (T, a0, b0) in grid])
    return grid, table


def fit_split(train: np.ndarray, qtab: np.ndarray, onehot5: np.ndarray) -> tuple[int, float]:
    """Index of the best (T, a0, b0) and the best w on the training papers."""
    losses = _brier(qtab[:, train], onehot5[train][None]).sum(-1)
    g = int(np.argmin(losses))  # ties → the first grid point, deterministic
    qq = qtab[g, train]
    w_losses = []
    for w in W_GRID:
        total = 0.0
        for inp in SPLITS_2_3:
            tgt = [j for j in range(N_TARGETS) if j not in inp]
            p2 = onehot5[train][:, list(inp)].mean(1)
            total += _brier(w * p2 + (1 - w) * qq, onehot5[train][:, tgt]).sum()
        w_losses.append(total)
    return g, W_GRID[int(np.argmin(w_losses))]


def _rhat(q: np.ndarray, onehot: np.ndarray, coll: np.ndarray) -> np.ndarray:
    """R̂ per paper: Σ q² − 2·mean q(Z) + collision rate (precomputed)."""
    return (q ** 2).sum(-1) - 2 * (q[:, None, :] * onehot).sum(-1).mean(-1) + coll


def fit_and_evaluate(papers: list[PaperData], n_splits: int = 30, seed: int = 0,
                     n_boot: int = 10_000) -> FitResult:
    """Held-out risks (paper-bootstrap 95% intervals) and acceptance AUCs of Quick, Standard, direct."""
    if len(papers) < 4:
        raise ValueError(f"distribution fitting needs at least 4 papers with five scores, got {len(papers)}")
    for p in papers:
        if len(p.scores) != N_TARGETS:
            raise ValueError(f"paper {p.paper_id}: expected {N_TARGETS} full-review scores, got {len(p.scores)}")
    n = len(papers)
    grid, qtab = quick_table(papers)
    scores = np.array([p.scores for p in papers], dtype=int)
    onehot5 = _onehots(scores)
    coll5 = np.array([collision_rate(s) for s in scores])
    coll3 = {inp: np.array([collision_rate(s[[j for j in range(5) if j not in inp]]) for s in scores])
             for inp in SPLITS_2_3}
    labels = np.array([p.accepted for p in papers], dtype=object)
    withdrawn = np.array([bool(p.withdrawn) for p in papers])
    subsets = {k: list(combinations(range(N_TARGETS), k)) for k in DIRECT_N}
    rng = np.random.default_rng(seed)
    names = ["quick", "standard"] + [f"direct_{k}" for k in DIRECT_N]
    risk_sum = {m: np.zeros(n) for m in names}
    test_count = np.zeros(n)
    aucs = {m: [] for m in names}
    aucs_kept = {m: [] for m in names}
    chosen = []
    for _ in range(n_splits):
        perm = rng.permutation(n)
        train, test = np.sort(perm[: n // 2]), np.sort(perm[n // 2:])
        g, w = fit_split(train, qtab, onehot5)
        chosen.append((*grid[g], w))
        qq = qtab[g, test]
        test_count[test] += 1
        risk_sum["quick"][test] += _rhat(qq, onehot5[test], coll5[test])
        std_risk = np.zeros(len(test))
        std_means = []  # the predicted mean score for each of the 10 input choices
        for inp in SPLITS_2_3:
            tgt = [j for j in range(5) if j not in inp]
            qs = w * onehot5[test][:, list(inp)].mean(1) + (1 - w) * qq
            std_risk += _rhat(qs, onehot5[test][:, tgt], coll3[inp][test]) / len(SPLITS_2_3)
            std_means.append(qs @ SCORES)
        risk_sum["standard"][test] += std_risk
        for k in DIRECT_N:
            risk_sum[f"direct_{k}"][test] += [direct_sampling_risk(c, k) for c in coll5[test]]
        preds = {"quick": [qq @ SCORES], "standard": std_means,
                 **{f"direct_{k}": [scores[test][:, list(sub)].mean(1) for sub in subsets[k]]
                    for k in DIRECT_N}}
        lab = labels[test]
        known = np.array([x is not None for x in lab])
        for target, mask in ((aucs, known), (aucs_kept, known & ~withdrawn[test])):
            for m in names:
                a = _mean_auc(preds[m], lab, mask)
                if not np.isnan(a):
                    target[m].append(a)
    seen = test_count > 0
    per_paper = {m: risk_sum[m][seen] / test_count[seen] for m in names}
    out = []
    for i, m in enumerate(names):
        lo, hi = bootstrap_mean_ci(per_paper[m], n_resamples=n_boot, seed=seed + 1 + i)
        res = MethodResult(method=m, risk=float(per_paper[m].mean()), risk_ci_low=lo, risk_ci_high=hi,
                           auc=_mean(aucs[m]), auc_excluding_withdrawn=_mean(aucs_kept[m]),
                           per_paper_risk=per_paper[m])
        k = int(m.split("_")[1]) if m.startswith("direct_") else None
        if k in DIFFERENCE_N:
            # Paired: one difference per paper, so both arms are resampled with the same papers.
            diff = per_paper["standard"] - per_paper[m]
            res.standard_minus_risk = float(diff.mean())
            res.standard_minus_risk_ci_low, res.standard_minus_risk_ci_high = bootstrap_mean_ci(
                diff, n_resamples=n_boot, seed=seed + _DIFF_SEED_OFFSET + k)
        out.append(res)
    return FitResult(methods=out, n_papers=n, n_splits=n_splits, chosen=chosen)



def _mean_auc(predictions: list[np.ndarray], labels: np.ndarray, mask: np.ndarray) -> float:
    """Mean over input combinations of the AUC of each combination's predictions on the masked
    papers; nan when the masked papers are not both accepted and rejected."""
    if not mask.any():
        return float("nan")
    y = labels[mask].astype(bool)
    return float(np.mean([acceptance_auc(pred[mask], y) for pred in predictions]))


def _mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else float("nan")


METHODS = ["quick", "standard"] + [f"direct_{k}" for k in DIRECT_N]
DIST_COLUMNS = {"distribution_estimation_id": "object", "probe_config": "object", "review_config": "object",
                "provider": "object", "model": "object", "method": "object", "n_papers": "int64",
                "n_splits": "int64", "risk": "float64", "risk_ci_low": "float64", "risk_ci_high": "float64",
                "standard_minus_risk": "float64", "standard_minus_risk_ci_low": "float64",
                "standard_minus_risk_ci_high": "float64", "acceptance_auc": "float64",
                "n_papers_labelled": "int64", "acceptance_auc_excluding_withdrawn": "float64",
                "n_papers_labelled_not_withdrawn": "int64", "chosen_params": "object"}


def _flag(value) -> bool | None:
    return None if value is None or pd.isna(value) else bool(value)


def _paper_data(probes: pd.DataFrame, scores: pd.DataFrame, accepted: dict, withdrawn: dict) -> list[PaperData]:
    out = []
    by_paper = {p: g.sort_values("sample_index")["overall_score"].to_numpy() for p, g in scores.groupby("paper_id")}
    for _, pr in probes.sort_values("paper_id").iterrows():
        s = by_paper.get(pr["paper_id"])
        if s is None or len(s) < N_TARGETS:
            continue
        r = pr[PROB_COLUMNS].to_numpy(dtype=float)
        present = np.array([str(k) in (pr["candidates"] or "").split(",") for k in range(1, 11)])
        out.append(PaperData(pr["paper_id"], r, present, s[:N_TARGETS].astype(int),
                             _flag(accepted.get(pr["paper_id"])), _flag(withdrawn.get(pr["paper_id"]))))
    return out


def _by_study(scores: pd.DataFrame):
    """(study key dict, scores) per study of the scores, or one group without studies."""
    if not has_study(scores):
        yield {}, scores
        return
    for study, sg in scores.groupby(STUDY, sort=True):
        yield {STUDY: study}, sg


def distribution_table(probes: pd.DataFrame, scores: pd.DataFrame, context: pd.DataFrame,
                       n_splits: int = 30, n_boot: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """Per (study, probe configuration, integer review configuration of the same model) and method:
    held-out risk with a paper-bootstrap interval, Standard − direct_n (n = 2, 3) with a paired
    interval, and acceptance AUC with and without withdrawn papers. Pairs with fewer than 4 usable
    papers (parsed probe + five parsed full reviews) are left out."""
    accepted, withdrawn = (dict(zip(context["paper_id"], context[c], strict=True)) if c in context else {}
                           for c in ("is_accepted", "is_withdrawn"))
    # One probe per paper: sample 0. A probe's study_id names the study that paid for the call, not
    # the studies that cover the paper: study membership comes from the scores (a paper enters a
    # study's row only with five of that study's integer reviews).
    probes = probes[probes["is_parsed"].astype(bool)].sort_values("sample_index").drop_duplicates(
        ["probe_config", "paper_id"], keep="first")
    ints = scores[(scores["prompt_template"] == "reviewer_scoring") & scores["is_parsed"].astype(bool)]
    rows = []
    for study, study_ints in _by_study(ints):
        for (pcfg, prov, model), pg in probes.groupby(["probe_config", "provider", "model"]):
            same_model = study_ints[(study_ints["provider"] == prov) & (study_ints["model"] == model)]
            for rcfg, sg in same_model.groupby("reviewer_config"):
                papers = _paper_data(pg, sg, accepted, withdrawn)
                if len(papers) < 4:
                    continue
                res = fit_and_evaluate(papers, n_splits=n_splits, seed=seed, n_boot=n_boot)
                chosen = json.dumps([dict(zip(["T", "a0", "b0", "w"], c, strict=True)) for c in res.chosen])
                labelled = [p for p in papers if p.accepted is not None]
                for m in res.methods:
                    rows.append({**study,
                                 "distribution_estimation_id": join_id(*study.values(), pcfg, rcfg, m.method),
                                 "probe_config": pcfg, "review_config": rcfg, "provider": prov, "model": model,
                                 "method": m.method, "n_papers": res.n_papers, "n_splits": res.n_splits,
                                 "risk": m.risk, "risk_ci_low": m.risk_ci_low, "risk_ci_high": m.risk_ci_high,
                                 "standard_minus_risk": m.standard_minus_risk,
                                 "standard_minus_risk_ci_low": m.standard_minus_risk_ci_low,
                                 "standard_minus_risk_ci_high": m.standard_minus_risk_ci_high,
                                 "acceptance_auc": m.auc, "n_papers_labelled": len(labelled),
                                 "acceptance_auc_excluding_withdrawn": m.auc_excluding_withdrawn,
                                 "n_papers_labelled_not_withdrawn": sum(not p.withdrawn for p in labelled),
                                 "chosen_params": chosen})
    columns = {STUDY: "object", **DIST_COLUMNS} if has_study(ints) else DIST_COLUMNS
    return pd.DataFrame(rows, columns=list(columns)).astype(columns)
