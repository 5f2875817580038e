"""metrics.quality.panel on hand-made frames: every expected number is worked out by hand here, or
recomputed independently with numpy / scipy (never through panel.py's or metrics.stats' helpers)."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from peerlake.metrics.quality.panel import (
    AGREEMENT_COLUMNS,
    DIFFERENCE_COLUMNS,
    FLIP_COLUMNS,
    MEANS_COLUMNS,
    RANKING_COLUMNS,
    judge_pair_differences,
    panel_agreement,
    ranking_agreement,
    ranking_flips,
    system_means,
)

CONFIG = {"A": "cfg-a", "B": "cfg-b"}
PAPERS = ["p1", "p2", "p3", "p4"]
# One review per system and paper, values on a quarter grid so every mean (and bootstrap mean) is exact.
# Judge A ranks s1 > s2 > s3, judge B ranks s2 > s1 > s3.
SCORES = {
    "A": {"s1": [0.75, 0.5, 0.75, 0.5], "s2": [0.5, 0.5, 0.25, 0.5], "s3": [0.25, 0.25, 0.0, 0.25]},
    "B": {"s1": [0.5, 0.5, 0.5, 0.25], "s2": [0.75, 0.5, 0.75, 0.5], "s3": [0.25, 0.0, 0.25, 0.25]},
}


def row(label, system, paper, value, *, review=None, metric="doa", judge="depth", study="st", source=None,
        pool=None, config=None):
    source = source or ("human" if system is None else "peerlake")
    return {"study_id": study, "judge": judge, "judge_config": config or CONFIG[label], "judge_label": label,
            "metric": metric, "review_key": review or f"{system or 'h'}-{paper}", "paper_id": paper,
            "source": source, "system": system, "pool_key": pool, "value": value}


def panel_rows(scores=SCORES, **kw):
    return pd.DataFrame([row(label, system, PAPERS[i], v, **kw)
                         for label, systems in scores.items() for system, values in systems.items()
                         for i, v in enumerate(values)])


def records(frame, key):
    return {r[key]: r for r in frame.to_dict("records")}


# --- system means and ranks -------------------------------------------------------------------------------

def test_system_means_rank_each_judges_systems():
    out = system_means(panel_rows())
    got = {(r["judge_label"], r["system"]): (r["mean"], r["rank"], r["n_papers"]) for r in out.to_dict("records")}
    # A: s1 (.75+.5+.75+.5)/4 = .625, s2 1.75/4 = .4375, s3 .75/4 = .1875; B swaps s1 and s2
    assert got == {("A", "s1"): (0.625, 1, 4), ("A", "s2"): (0.4375, 2, 4), ("A", "s3"): (0.1875, 3, 4),
                   ("B", "s1"): (0.4375, 2, 4), ("B", "s2"): (0.625, 1, 4), ("B", "s3"): (0.1875, 3, 4)}
    assert list(out["judge_label"]) == ["A"] * 3 + ["B"] * 3 and list(out["system"]) == ["s1", "s2", "s3"] * 2
    assert set(out["n_systems"]) == {3}


def test_a_paper_weighs_the_same_however_many_reviews_and_humans_are_one_system():
    rows = pd.DataFrame([
        row("A", "s1", "p1", 0.0, review="r1"), row("A", "s1", "p1", 1.0, review="r2"),  # paper mean .5
        row("A", "s1", "p2", 1.0, review="r3"),                                          # paper mean 1
        row("A", None, "p1", 0.75, review="h1"), row("A", None, "p2", 0.75, review="h2"),
        row("A", "s2", "p1", 0.25, review="r4"), row("A", "s2", "p2", None, review="r5"),  # null: not counted
    ])
    got = records(system_means(rows), "system")
    # s1: (0.5 + 1) / 2 = .75 over papers (the mean over its 3 reviews would be 2/3); humans also .75
    assert (got["s1"]["mean"], got["s1"]["n_papers"], got["s1"]["n_reviews"]) == (0.75, 2, 3)
    assert (got["human"]["mean"], got["human"]["source"]) == (0.75, "human")
    assert (got["s2"]["mean"], got["s2"]["n_papers"]) == (0.25, 1)
    # ties share the smallest rank: .75, .75, .25 → 1, 1, 3
    assert (got["human"]["rank"], got["s1"]["rank"], got["s2"]["rank"]) == (1, 1, 3)


def test_float_noise_of_averaging_is_a_tie_in_the_ranking():
    rows = pd.DataFrame([row("A", "s1", "p1", 0.1), row("A", "s1", "p2", 0.2),
                         row("A", "s2", "p1", 0.15), row("A", "s2", "p2", 0.15)])
    out = records(system_means(rows), "system")
    assert out["s1"]["mean"] != out["s2"]["mean"]  # (0.1 + 0.2) / 2 and 0.15 differ in the last bit
    assert out["s1"]["rank"] == out["s2"]["rank"] == 1


# --- ranking agreement --------------------------------------------------------------------------------------

def independent_ranking_ci(n_resamples, seed):
    """τ per resample from the raw draw and scipy, undefined resamples dropped, 2.5 / 97.5 % quantiles."""
    mx = np.array([SCORES["A"][s] for s in ("s1", "s2", "s3")]).T  # papers × systems
    my = np.array([SCORES["B"][s] for s in ("s1", "s2", "s3")]).T
    idx = np.random.default_rng(seed).integers(0, 4, size=(n_resamples, 4))
    taus = np.array([stats.kendalltau(mx[i].mean(axis=0), my[i].mean(axis=0), variant="b").statistic
                     for i in idx])
    defined = taus[~np.isnan(taus)]
    return defined.size, np.quantile(defined, [0.025, 0.975])


def test_kendall_tau_between_two_judges_rankings_with_a_paper_bootstrap():
    out = ranking_agreement(panel_rows(), n_resamples=500, seed=7)
    assert len(out) == 1
    r = out.iloc[0]
    # (s1,s2) discordant, (s1,s3) and (s2,s3) concordant, no ties: τ-b = (2 − 1) / 3
    assert r["kendall_tau_b"] == pytest.approx(1 / 3)
    assert (r["n_systems"], r["n_papers"], r["n_resamples"], r["seed"]) == (3, 4, 500, 7)
    assert (r["label_x"], r["label_y"], r["metric"], r["judge"]) == ("A", "B", "doa", "depth")
    assert pd.isna(r["null_reason"])
    n_defined, (lo, hi) = independent_ranking_ci(500, 7)
    assert r["n_resamples_defined"] == n_defined
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((lo, hi))


def test_only_papers_where_every_system_is_scored_under_both_judges():
    extra = [
        *panel_rows().to_dict("records"),
        row("A", "s1", "p5", 0.0), row("A", "s2", "p5", 1.0), row("A", "s3", "p5", 1.0),
        row("B", "s1", "p5", 0.0), row("B", "s2", "p5", 1.0), row("B", "s3", "p5", None),  # s3 unscored under B
        row("A", "s1", "p6", 1.0), row("A", "s2", "p6", 0.0), row("A", "s3", "p6", 0.0),   # p6 not judged by B
    ]
    r = ranking_agreement(pd.DataFrame(extra), n_resamples=500, seed=7).iloc[0]
    assert (r["n_papers"], r["kendall_tau_b"]) == (4, pytest.approx(1 / 3))
    n_defined, (lo, hi) = independent_ranking_ci(500, 7)  # the same draw over p1..p4 only
    assert (r["n_resamples_defined"], r["ci_low"], r["ci_high"]) == (n_defined, pytest.approx(lo), pytest.approx(hi))


def test_interval_is_null_when_fewer_than_half_the_resamples_define_tau():
    # Two systems tied everywhere except s1 > s2 on p1 under A and on p2 under B: a resample defines τ
    # only if it draws both p1 and p2, with 3 papers 1 − 2·(2/3)³ + (1/3)³ = 12/27 < 1/2 of the time.
    scores = {"A": {"s1": [1.0, 0.5, 0.5], "s2": [0.5, 0.5, 0.5]},
              "B": {"s1": [0.5, 1.0, 0.5], "s2": [0.5, 0.5, 0.5]}}
    r = ranking_agreement(panel_rows(scores), n_resamples=400, seed=3).iloc[0]
    idx = np.random.default_rng(3).integers(0, 3, size=(400, 3))
    n_defined = int(((idx == 0).any(axis=1) & (idx == 1).any(axis=1)).sum())
    assert n_defined < 200
    assert r["kendall_tau_b"] == 1.0  # over all three papers s1 > s2 under both
    assert r["n_resamples_defined"] == n_defined
    assert pd.isna(r["ci_low"]) and pd.isna(r["ci_high"]) and r["null_reason"] == "fewer_than_half_resamples_defined"


@pytest.mark.parametrize(("scores", "reason", "tau"), [
    ({"A": {"s1": [0.5, 0.25]}, "B": {"s1": [0.75, 0.25]}}, "fewer_than_2_systems", None),
    ({"A": {"s1": [0.5], "s2": [0.25]}, "B": {"s1": [0.25], "s2": [0.5]}}, "fewer_than_2_papers", -1.0),
    ({"A": {"s1": [0.5, 0.25], "s2": [0.25, 0.5]}, "B": {"s1": [0.75, 0.0], "s2": [0.0, 0.5]}},
     "constant_ranking", None),
])
def test_ranking_agreement_null_reasons(scores, reason, tau):
    r = ranking_agreement(panel_rows(scores), n_resamples=50, seed=1).iloc[0]
    assert r["null_reason"] == reason
    assert (None if pd.isna(r["kendall_tau_b"]) else r["kendall_tau_b"]) == tau
    assert pd.isna(r["ci_low"]) and pd.isna(r["ci_high"])


# --- flips ----------------------------------------------------------------------------------------------------

def test_exactly_the_pair_whose_order_the_judges_disagree_on_is_flipped():
    out = ranking_flips(panel_rows())
    got = {(r["system_a"], r["system_b"]): (r["diff_x"], r["diff_y"], r["is_flipped"]) for r in out.to_dict("records")}
    # A: s1−s2 = .625−.4375, s1−s3 = .625−.1875, s2−s3 = .4375−.1875; B: s1−s2 = .4375−.625, …
    assert got == {("s1", "s2"): (0.1875, -0.1875, True), ("s1", "s3"): (0.4375, 0.25, False),
                   ("s2", "s3"): (0.25, 0.4375, False)}
    assert set(out["n_papers_x"]) == set(out["n_papers_y"]) == {4}
    assert list(out["system_a"] + out["system_b"]) == ["s1s2", "s1s3", "s2s3"]


def test_flip_differences_pair_papers_both_systems_have_and_a_tie_is_no_flip():
    rows = pd.DataFrame([
        row("A", "s1", "p1", 0.5), row("A", "s2", "p1", 0.25), row("A", "s1", "p2", 1.0),  # s2 lacks p2 under A
        row("B", "s1", "p1", 0.25), row("B", "s2", "p1", 0.25), row("B", "s1", "p2", 0.0), row("B", "s2", "p2", 0.0),
    ])
    r = ranking_flips(rows).iloc[0]
    # under A only p1 pairs: .5 − .25; under B (0 + 0) / 2 = 0, a tie, so no flip
    assert (r["n_papers_x"], r["diff_x"], r["n_papers_y"], r["diff_y"]) == (1, 0.25, 2, 0.0)
    assert not r["is_flipped"]
    # a system without a paired paper under one label: the difference and the flag are null
    lone = ranking_flips(pd.DataFrame([row("A", "s1", "p1", 0.5), row("A", "s2", "p2", 0.5),
                                       row("B", "s1", "p1", 0.5), row("B", "s2", "p1", 0.25)])).iloc[0]
    assert pd.isna(lone["diff_x"]) and lone["n_papers_x"] == 0 and lone["diff_y"] == 0.25
    assert pd.isna(lone["is_flipped"])


# --- judge–judge agreement --------------------------------------------------------------------------------------

def test_alpha_and_correlations_on_a_tiny_pair_by_hand():
    rows = pd.DataFrame([row("A", "s1", f"p{i}", x) for i, x in enumerate([1.0, 2.0, 3.0])]
                        + [row("B", "s1", f"p{i}", y) for i, y in enumerate([2.0, 2.0, 4.0])])
    r = panel_agreement(rows).iloc[0]
    # Interval α, 2 raters: D_o = Σ 2(x−y)² / N = 2·(1 + 0 + 1) / 6 = 2/3; values 1,2,3,2,2,4 have
    # Σ(v − 7/3)² = 16/3, so Σ_{j≠k}(v_j − v_k)² = 2·6·16/3 = 64 and D_e = 64 / 30; α = 1 − (2/3)/(32/15) = 11/16
    assert r["alpha"] == pytest.approx(11 / 16)
    # x − 2 = (−1, 0, 1), y − 8/3 = (−2/3, −2/3, 4/3): r = 2 / √(2 · 8/3) = √3/2; ranks (1,2,3) vs (1.5,1.5,3): ρ = √3/2
    assert r["pearson"] == pytest.approx(math.sqrt(3) / 2)
    assert r["spearman"] == pytest.approx(math.sqrt(3) / 2)
    assert r["mean_diff"] == pytest.approx(2 / 3)  # y − x = (1, 0, 1)
    assert (r["n_reviews"], r["n_reviews_shared"], r["judge_config_x"], r["judge_config_y"]) == (3, 3, "cfg-a", "cfg-b")
    assert pd.isna(r["null_reason"]) and pd.isna(r["pearson_ci_low"])  # Fisher's interval needs 4 reviews


def krippendorff_interval_two_raters(x, y):
    x, y = np.asarray(x), np.asarray(y)
    v = np.concatenate([x, y])
    n = v.size
    d_o = 2 * ((x - y) ** 2).sum() / n
    d_e = ((v[:, None] - v[None, :]) ** 2).sum() / (n * (n - 1))
    return 1 - d_o / d_e


def test_agreement_over_the_panel_and_fisher_interval():
    r = panel_agreement(panel_rows()).iloc[0]
    x = [v for s in ("s1", "s2", "s3") for v in SCORES["A"][s]]
    y = [v for s in ("s1", "s2", "s3") for v in SCORES["B"][s]]
    assert r["n_reviews"] == 12
    assert r["alpha"] == pytest.approx(krippendorff_interval_two_raters(x, y))
    assert r["pearson"] == pytest.approx(stats.pearsonr(x, y).statistic)
    assert r["spearman"] == pytest.approx(stats.spearmanr(x, y).statistic)
    half = stats.norm.ppf(0.975) / math.sqrt(12 - 3)
    z = math.atanh(r["pearson"])
    assert (r["pearson_ci_low"], r["pearson_ci_high"]) == pytest.approx((math.tanh(z - half), math.tanh(z + half)))
    assert r["mean_diff"] == pytest.approx(np.mean(np.subtract(y, x)))


def test_agreement_null_reasons():
    two = pd.DataFrame([row("A", "s1", "p1", 0.5), row("A", "s1", "p2", 0.25),
                        row("B", "s1", "p1", 0.75), row("B", "s1", "p2", None),
                        row("A", "s2", "p1", 0.5), row("B", "s2", "p1", 0.25)])
    r = panel_agreement(two).iloc[0]
    # 3 reviews under both labels' rows, 2 valued under both
    assert (r["n_reviews_shared"], r["n_reviews"], r["null_reason"]) == (3, 2, "fewer_than_3_reviews")
    assert pd.isna(r["alpha"]) and pd.isna(r["pearson"])
    assert r["mean_diff"] == pytest.approx(((0.75 - 0.5) + (0.25 - 0.5)) / 2)
    same = panel_rows(config="cfg-shared")
    r = panel_agreement(same).iloc[0]
    assert r["null_reason"] == "same_configuration" and pd.isna(r["alpha"]) and r["n_reviews"] == 12


# --- paired differences between two judges ----------------------------------------------------------------------

def test_paired_difference_of_two_judges_on_the_same_reviews():
    papers = [f"p{i:02d}" for i in range(12)]
    x = [0.25, 0.5, 0.5, 0.75, 0.0, 0.25, 0.5, 1.0, 0.75, 0.5, 0.25, 0.5]
    y = [0.5, 0.5, 1.0, 0.75, 0.25, 0.75, 0.25, 1.0, 1.0, 1.0, 0.5, 0.75]
    rows = [row("A", "s1", p, v) for p, v in zip(papers, x, strict=True)]
    rows += [row("B", "s1", p, v) for p, v in zip(papers, y, strict=True)]
    # a second review of p00, scored by A only: not the same reviews, so it is left out
    rows.append(row("A", "s1", "p00", 1.0, review="extra"))
    out = judge_pair_differences(pd.DataFrame(rows), n_resamples=1000, seed=11)
    r = out.iloc[0]
    d = np.subtract(y, x)  # .25 0 .5 0 .25 .5 −.25 0 .25 .5 .25 .25 → sum 2.5
    assert (r["n_reviews"], r["n_pairs"]) == (12, 12)
    assert r["mean_diff"] == pytest.approx(2.5 / 12)
    assert (r["mean_x"], r["mean_y"]) == pytest.approx((np.mean(x), np.mean(y)))
    idx = np.random.default_rng(11).integers(0, 12, size=(1000, 12))
    lo, hi = np.percentile(d[idx].mean(axis=1), [2.5, 97.5])
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((lo, hi))
    assert r["wilcoxon_p"] == pytest.approx(stats.wilcoxon(d, zero_method="wilcox").pvalue)
    assert r["holm_p"] == pytest.approx(r["wilcoxon_p"])  # one metric: Holm changes nothing
    assert (r["label_x"], r["label_y"], r["system"]) == ("A", "B", "s1")
    assert (r["bootstrap_seed"], r["n_resamples"]) == (11, 1000)
    assert pd.isna(r["skip_reason"])


def test_paired_difference_averages_a_papers_reviews_and_skips_inference_below_10_papers():
    rows = pd.DataFrame([row("A", "s1", "p1", 0.0, review="r1"), row("B", "s1", "p1", 0.5, review="r1"),
                         row("A", "s1", "p1", 0.5, review="r2"), row("B", "s1", "p1", 0.5, review="r2"),
                         row("A", None, "p1", 0.25, review="h1"), row("B", None, "p1", 1.0, review="h1")])
    out = records(judge_pair_differences(rows, n_resamples=100, seed=1), "system")
    # s1: p1's differences .5 and 0 → .25; human .75
    assert (out["s1"]["mean_diff"], out["s1"]["n_reviews"], out["s1"]["n_pairs"]) == (0.25, 2, 1)
    assert out["human"]["mean_diff"] == 0.75 and out["human"]["source"] == "human"
    assert out["s1"]["skip_reason"] == "fewer_than_10_pairs" and pd.isna(out["s1"]["ci_low"])


# --- shapes ---------------------------------------------------------------------------------------------------

EMPTY = pd.DataFrame({c: pd.Series(dtype=t) for c, t in {
    "study_id": "string", "judge": "string", "judge_config": "string", "judge_label": "string", "metric": "string",
    "review_key": "string", "paper_id": "string", "source": "string", "system": "string", "pool_key": "string",
    "value": "float64"}.items()})


@pytest.mark.parametrize(("fn", "columns"), [
    (panel_agreement, AGREEMENT_COLUMNS), (system_means, MEANS_COLUMNS), (ranking_agreement, RANKING_COLUMNS),
    (ranking_flips, FLIP_COLUMNS), (judge_pair_differences, DIFFERENCE_COLUMNS)])
def test_empty_input_gives_typed_empty_frames(fn, columns):
    out = fn(EMPTY)
    assert out.empty and list(out.columns) == list(columns)
    assert {c: str(t) for c, t in out.dtypes.items()} == {c: str(pd.Series(dtype=t).dtype) for c, t in columns.items()}


def test_pooled_reviews_pair_by_pool_and_a_label_with_two_configs_is_refused():
    rows = pd.DataFrame([row(label, None, "p1", v, review="h1", pool=pool, metric="recall_critical", judge="flaws")
                         for label, pool, v in [("A", "pool-1", 0.5), ("A", "pool-2", 1.0),
                                                ("B", "pool-1", 0.5), ("B", "pool-2", 0.5)]])
    r = panel_agreement(rows).iloc[0]
    assert (r["n_reviews"], r["mean_diff"]) == (2, -0.25)  # (0 + −.5) / 2: one review, two pools
    bad = pd.concat([rows, pd.DataFrame([row("A", "s1", "p1", 0.5, config="cfg-other", judge="flaws", pool="pool-1")])])
    with pytest.raises(ValueError, match="several judge configurations"):
        system_means(bad)
    with pytest.raises(ValueError, match="given twice"):
        system_means(pd.concat([rows, rows.iloc[:1]]))


def test_every_value_null_leaves_nothing_to_rank():
    rows = panel_rows().assign(value=None)
    assert system_means(rows).empty and ranking_flips(rows).empty
    r = ranking_agreement(rows, n_resamples=50, seed=1).iloc[0]
    assert (r["n_systems"], r["n_papers"], r["null_reason"]) == (0, 0, "fewer_than_2_systems")
    assert panel_agreement(rows).iloc[0]["null_reason"] == "fewer_than_3_reviews"
