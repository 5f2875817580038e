from itertools import combinations

import numpy as np
import pytest

from peerlake.metrics.distribution.fitting import A0_GRID, SPLITS_2_3, W_GRID, PaperData, fit_and_evaluate
from peerlake.metrics.distribution.granularity import compare


def test_grids_and_the_ten_splits():
    assert A0_GRID[0] == -2.0 and A0_GRID[-1] == 0.4 and len(A0_GRID) == 13
    assert W_GRID == (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
    assert len(SPLITS_2_3) == 10 == len(set(SPLITS_2_3))
    assert set(SPLITS_2_3) == set(combinations(range(5), 2))


def synthetic(n, seed, informative=True):
    """Papers whose true score distribution is centred on μ_i; the probe sees μ_i + 1 (inflated)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        mu = rng.integers(3, 8)
        p = np.zeros(10)
        p[[mu - 2, mu - 1, mu]] = [0.25, 0.5, 0.25]
        r = np.zeros(10)
        c = mu if informative else 5
        r[[c - 1, c, c + 1]] = [0.1, 0.8, 0.1]  # the probe's mode is one point too high
        scores = rng.choice(np.arange(1, 11), p=p, size=5)
        out.append(PaperData(f"P{i}", r, r > 0, scores, accepted=bool(mu >= 5)))
    return out


def test_fitting_learns_the_shift_and_beats_one_review():
    res = fit_and_evaluate(synthetic(40, 1), n_splits=6, n_boot=500)
    by = {m.method: m for m in res.methods}
    # the probe is one point high; the fitted move should pull it down (a0 + b0·s < s)
    for _T, a0, b0, _w in res.chosen:
        assert a0 + b0 * 6 < 6
    assert by["quick"].risk < by["direct_1"].risk
    assert by["direct_5"].risk == pytest.approx(by["direct_1"].risk / 5)
    assert by["quick"].risk_ci_low <= by["quick"].risk <= by["quick"].risk_ci_high
    assert by["direct_5"].auc > 0.8  # means of five reviews separate μ ≥ 5 from μ < 5


def test_uninformative_probe_shifts_weight_to_full_reviews():
    good = fit_and_evaluate(synthetic(40, 2), n_splits=4, n_boot=200)
    bad = fit_and_evaluate(synthetic(40, 2, informative=False), n_splits=4, n_boot=200)
    assert min(w for *_, w in bad.chosen) > max(w for *_, w in good.chosen)
    risk = {m.method: m.risk for m in bad.methods}
    assert risk["standard"] < risk["quick"]


def test_granularity_by_hand():
    integer = {"A": np.array([6, 6, 8]), "B": np.array([4, 5]), "C": np.array([7])}
    decimal = {"A": np.array([6.5, 7.5]), "B": np.array([4.2, 4.4]), "D": np.array([3.3])}
    g = compare(integer, decimal, {"A": 7.0, "B": 3.0}, n_boot=2000)
    assert g.n_papers == 2
    assert g.mean_shift == pytest.approx(((7.0 - 20 / 3) + (4.3 - 4.5)) / 2)
    assert g.mean_shift_ci_low <= g.mean_shift <= g.mean_shift_ci_high
    assert g.within_sd_integer == pytest.approx(np.sqrt((np.var([6, 6, 8], ddof=1) + 0.5) / 2))
    assert g.mae_integer == pytest.approx((1 / 3 + 1.5) / 2)
    assert g.mae_decimal == pytest.approx((0 + 1.3) / 2)
    assert g.mae_change == pytest.approx(g.mae_decimal - g.mae_integer)


def _brute_auc(pred, accepted) -> float:
    """Share of (accepted, rejected) pairs ordered correctly, ties ½, by looping over the pairs."""
    pos = [x for x, a in zip(pred, accepted, strict=True) if a]
    neg = [x for x, a in zip(pred, accepted, strict=True) if not a]
    if not pos or not neg:
        return float("nan")
    return sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in pos for y in neg) / (len(pos) * len(neg))


def _mean_finite(values) -> float:
    kept = [v for v in values if not np.isnan(v)]
    return float(np.mean(kept)) if kept else float("nan")


def test_held_out_aucs_risks_and_paired_differences_by_hand():
    """Replays the documented protocol with the scalar estimators and a pairwise AUC loop.

    The split draw (default_rng(seed).permutation per split, the second half tested) and the chosen
    (T, a0, b0, w) per split are taken as given — fitting is tested above; everything computed on
    the test halves is recomputed here independently of fitting.py's vectorized code."""
    from dataclasses import replace

    from peerlake.metrics.distribution import collision_rate, debiased_risk, quick, standard

    papers = [replace(p, withdrawn=i % 3 == 0, accepted=None if i == 1 else p.accepted)
              for i, p in enumerate(synthetic(16, 5))]
    n, n_splits, seed, n_boot = len(papers), 3, 11, 300
    res = fit_and_evaluate(papers, n_splits=n_splits, seed=seed, n_boot=n_boot)
    by = {m.method: m for m in res.methods}
    values = np.arange(1, 11)
    rng = np.random.default_rng(seed)
    risks = {m: [[] for _ in range(n)] for m in by}
    aucs = {m: [] for m in by}
    aucs_kept = {m: [] for m in by}
    for T, a0, b0, w in res.chosen:
        test = sorted(rng.permutation(n)[n // 2:])
        preds = {m: [] for m in by}  # method -> one prediction list per input combination
        quick_means = []
        std_means = {inp: [] for inp in combinations(range(5), 2)}
        for i in test:
            p = papers[i]
            qq = quick(p.r, p.present, T, a0, b0)
            quick_means.append(qq @ values)
            risks["quick"][i].append(debiased_risk(qq, p.scores))
            std = 0.0
            for inp in std_means:
                qs = standard(qq, p.scores[list(inp)], w)
                std += debiased_risk(qs, np.delete(p.scores, inp)) / 10
                std_means[inp].append(qs @ values)
            risks["standard"][i].append(std)
            for k in (1, 2, 3, 5):
                risks[f"direct_{k}"][i].append((1 - collision_rate(p.scores)) / k)
        preds["quick"] = [quick_means]
        preds["standard"] = list(std_means.values())
        for k in (1, 2, 3, 5):
            preds[f"direct_{k}"] = [[papers[i].scores[list(sub)].mean() for i in test]
                                    for sub in combinations(range(5), k)]
        for target, keep in ((aucs, lambda p: True), (aucs_kept, lambda p: not p.withdrawn)):
            rows = [j for j, i in enumerate(test) if papers[i].accepted is not None and keep(papers[i])]
            labels = [papers[test[j]].accepted for j in rows]
            for m, combos in preds.items():
                a = float(np.mean([_brute_auc([c[j] for j in rows], labels) for c in combos]))
                if not np.isnan(a):
                    target[m].append(a)
    per_paper = {m: np.array([np.mean(r) for r in rs if r]) for m, rs in risks.items()}
    for m, result in by.items():
        assert result.risk == pytest.approx(per_paper[m].mean(), rel=1e-9), m
        assert result.auc == pytest.approx(_mean_finite(aucs[m]), rel=1e-12), m
        assert result.auc_excluding_withdrawn == pytest.approx(_mean_finite(aucs_kept[m]), rel=1e-12), m
    for k in (2, 3):
        diff = per_paper["standard"] - per_paper[f"direct_{k}"]
        boot = diff[np.random.default_rng(seed + 100 + k).integers(0, diff.size, (n_boot, diff.size))].mean(1)
        got = by[f"direct_{k}"]
        assert got.standard_minus_risk == pytest.approx(diff.mean(), rel=1e-9)
        assert (got.standard_minus_risk_ci_low, got.standard_minus_risk_ci_high) == pytest.approx(
            tuple(np.percentile(boot, [2.5, 97.5])), rel=1e-9)
    assert np.isnan(by["quick"].standard_minus_risk) and np.isnan(by["direct_5"].standard_minus_risk)
