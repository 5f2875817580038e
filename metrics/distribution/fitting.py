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
"""

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from metrics.distribution.estimators import quick
from metrics.distribution.risk import collision_rate, direct_sampling_risk
from metrics.distribution.stats import acceptance_auc, bootstrap_mean_ci

T_GRID = (1, 2, 3, 5, 8, 12)
A0_GRID = tuple(round(-2.0 + 0.2 * i, 1) for i in range(13))  # −2.0, −1.8, …, 0.4
B0_GRID = (0.9, 1.0, 1.1)
W_GRID = tuple(round(0.3 + 0.1 * i, 1) for i in range(8))  # 0.3 … 1.0
N_TARGETS = 5
SPLITS_2_3 = tuple(combinations(range(N_TARGETS), 2))  # the 10 choices of two input scores
DIRECT_N = (1, 2, 3, 5)


@dataclass(frozen=True)
class PaperData:
    paper_id: str
    r: np.ndarray
    present: np.ndarray
    scores: np.ndarray  # five integer scores
    accepted: bool | None = None


@dataclass
class MethodResult:
    method: str
    risk: float
    risk_ci_low: float
    risk_ci_high: float
    auc: float | None
    per_paper_risk: np.ndarray = field(repr=False)


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
    rng = np.random.default_rng(seed)
    names = ["quick", "standard"] + [f"direct_{k}" for k in DIRECT_N]
    risk_sum = {m: np.zeros(n) for m in names}
    test_count = np.zeros(n)
    aucs = {m: [] for m in names}
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
        std_mean = np.zeros(len(test))
        for inp in SPLITS_2_3:
            tgt = [j for j in range(5) if j not in inp]
            qs = w * onehot5[test][:, list(inp)].mean(1) + (1 - w) * qq
            std_risk += _rhat(qs, onehot5[test][:, tgt], coll3[inp][test]) / len(SPLITS_2_3)
            std_mean += qs @ np.arange(1, 11) / len(SPLITS_2_3)
        risk_sum["standard"][test] += std_risk
        for k in DIRECT_N:
            risk_sum[f"direct_{k}"][test] += [direct_sampling_risk(c, k) for c in coll5[test]]
        lab = labels[test]
        known = np.array([x is not None for x in lab])
        if known.any():
            y = lab[known].astype(bool)
            preds = {"quick": qq @ np.arange(1, 11), "standard": std_mean,
                     **{f"direct_{k}": scores[test][:, :k].mean(1) for k in DIRECT_N}}
            for m in names:
                a = acceptance_auc(preds[m][known], y)
                if a is not None:
                    aucs[m].append(a)
    seen = test_count > 0
    out = []
    for i, m in enumerate(names):
        per_paper = risk_sum[m][seen] / test_count[seen]
        lo, hi = bootstrap_mean_ci(per_paper, n_boot=n_boot, seed=seed + 1 + i)
        out.append(MethodResult(method=m, risk=float(per_paper.mean()), risk_ci_low=lo, risk_ci_high=hi,
                                auc=float(np.mean(aucs[m])) if aucs[m] else None, per_paper_risk=per_paper))
    return FitResult(methods=out, n_papers=n, n_splits=n_splits, chosen=chosen)
