"""Systems against humans (metrics.quality.comparison): each statistic on numbers worked out by hand."""

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from peerlake.metrics.quality.comparison import (
    ALL_ZERO,
    SEED,
    SKIP_FEW_PAIRS,
    Pairs,
    cliffs_delta,
    cliffs_delta_paired,
    compare,
    comparison_table,
    holm,
    magnitude,
    merged_ties,
    paper_means,
    wilcoxon_p,
)
from peerlake.metrics.stats.bootstrap import bootstrap_mean_ci, resample_indices, resampled_mean_ci


def test_cliffs_delta_counts_every_cross_pair():
    # x = [3, 4, 1], y = [2, 2]: 3>2 twice, 4>2 twice, 1<2 twice → (4 − 2) / (3·2) = 1/3
    assert cliffs_delta([3, 4, 1], [2, 2]) == pytest.approx(1 / 3)
    # ties count neither way: x = [2, 2], y = [2, 1] → (2 greater − 0 less) / 4 = 0.5
    assert cliffs_delta([2, 2], [2, 1]) == pytest.approx(0.5)
    # a tie made of float noise ((0.1 + 0.2) vs 0.3) is still a tie
    assert cliffs_delta([0.1 + 0.2], [0.3]) == 0.0
    assert math.isnan(cliffs_delta([], [1.0]))


def test_paired_cliffs_delta_counts_the_signs_of_the_differences():
    # x = [3, 1, 2, 2], y = [1, 2, 2, 0]: d = [2, −1, 0, 2] → (2 positive − 1 negative) / 4 = 0.25
    assert cliffs_delta_paired([3, 1, 2, 2], [1, 2, 2, 0]) == 0.25
    # the unpaired form on the same values counts all 16 cross pairs: 9 greater, 2 less → 7/16
    assert cliffs_delta([3, 1, 2, 2], [1, 2, 2, 0]) == pytest.approx(7 / 16)
    # every paper's system below its own human: d = [−1, −1, −1] → −1; the cross pairs say less:
    # 4 > 3 once, 2 < 3, 4, 5 and 3 < 4, 5 and 4 < 5 six times, 3 = 3 and 4 = 4 ties → (1 − 6) / 9
    assert cliffs_delta_paired([2, 3, 4], [3, 4, 5]) == -1.0
    assert cliffs_delta([2, 3, 4], [3, 4, 5]) == pytest.approx(-5 / 9)
    assert cliffs_delta_paired([0.1 + 0.2], [0.3]) == 0.0  # float noise is a tie
    assert math.isnan(cliffs_delta_paired([], []))
    with pytest.raises(ValueError):
        cliffs_delta_paired([1.0, 2.0], [1.0])


@pytest.mark.parametrize("delta,band", [(0.0, "negligible"), (0.1469, "negligible"), (0.147, "small"),
                                        (-0.2, "small"), (0.33, "medium"), (1 / 3, "medium"),
                                        (0.474, "large"), (-1.0, "large")])
def test_magnitude_bands_are_closed_below(delta, band):
    assert magnitude(delta) == band


def test_magnitude_of_a_missing_delta_is_missing():
    assert magnitude(float("nan")) is None


def test_holm_on_three_p_values():
    # sorted 0.01, 0.03, 0.04 → 3·0.01 = 0.03, 2·0.03 = 0.06, 1·0.04 = 0.04 → monotone: 0.06
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    # capped at 1: sorted 0.01, 0.5, 0.6 → 0.03, min(1, 1.0) = 1, 0.6 → monotone 1
    assert holm([0.5, 0.6, 0.01]) == pytest.approx([1.0, 1.0, 0.03])


def test_holm_leaves_a_skipped_test_out_of_m():
    # m = 2: 2·0.02 = 0.04, 1·0.04 = 0.04
    out = holm([0.02, float("nan"), 0.04])
    assert out[0] == pytest.approx(0.04) and math.isnan(out[1]) and out[2] == pytest.approx(0.04)
    assert holm([]) == []


def test_wilcoxon_exact_p_by_hand():
    # 10 positive distinct differences: only the all-positive sign pattern is as extreme on each
    # side, so p = 2 · 1/2^10 = 0.001953125
    assert wilcoxon_p(np.arange(1, 11)) == (pytest.approx(2 / 1024), None)
    # rank 1 negative: W− = 1; sign patterns with W− ≤ 1 are {} and {1} → p = 2 · 2/1024
    assert wilcoxon_p([-1, *range(2, 11)])[0] == pytest.approx(4 / 1024)


def test_wilcoxon_all_zero_differences_is_p_one_with_a_note():
    assert wilcoxon_p([0.0] * 12) == (1.0, ALL_ZERO)
    assert wilcoxon_p([0.3 - (0.1 + 0.2)] * 12) == (1.0, ALL_ZERO)  # float noise is no difference


# A 12-paper study whose differences 5/12, −5/12, 5/12 are tied in exact arithmetic; paper A's system
# reviews average [1/3, 1/2], paper B's humans [1/4, 7/12], paper C's system [1/6, 2/3] (each 5/12).
TIE_PAPERS = {"A": ([1 / 3, 1 / 2], [0.0]), "B": ([0.0], [1 / 4, 7 / 12]), "C": ([1 / 6, 2 / 3], [0.0])}
TIE_REST = [0.1, 0.2, -0.3, 0.5, 0.6, -0.05, 0.7, 0.8, 0.9]  # papers D..L: the system's value, humans 0
TIE_EXACT = [Fraction(5, 12), -Fraction(5, 12), Fraction(5, 12)]


def _tie_frame() -> pd.DataFrame:
    rows = []
    papers = {**TIE_PAPERS, **{chr(ord("D") + i): ([v], [0.0]) for i, v in enumerate(TIE_REST)}}
    for paper, (system, human) in papers.items():
        rows += _rows("doa", "depth", "jd", "cfgA", "peerlake", {paper: system})
        rows += _rows("doa", "depth", "jd", "human", "human", {paper: human})
    return pd.DataFrame(rows)


def test_differences_tied_in_exact_arithmetic_share_a_rank():
    means = paper_means(_tie_frame()).set_index("paper_id").sort_index()
    naive = (means["system_mean"] - means["human_mean"]).to_numpy()
    # the float paper means really do differ: |d| of A and C is one ulp below B's
    assert naive[0] == naive[2] == 0.41666666666666663 and naive[1] == -0.4166666666666667
    exact = [float(f) for f in TIE_EXACT] + TIE_REST
    expected = stats.wilcoxon(exact, zero_method="wilcox", alternative="two-sided").pvalue
    # ranked as distinct values, the − difference gets rank 6 alone instead of sharing 5.5 with A and C
    assert stats.wilcoxon(naive).pvalue != pytest.approx(expected)
    assert wilcoxon_p(naive) == (pytest.approx(expected, rel=1e-12), None)
    (row,) = comparison_table(_tie_frame(), n_resamples=200).to_dict("records")
    assert row["wilcoxon_p"] == pytest.approx(expected, rel=1e-12)
    # paired δ on the same differences: 9 positive, 3 negative (B, −0.3, −0.05) → (9 − 3) / 12
    assert row["cliffs_delta_paired"] == pytest.approx(0.5)


def test_merged_ties_keep_signs_and_real_differences():
    d = merged_ties([0.4166666666666667, -0.41666666666666663, 0.3 - (0.1 + 0.2), 0.6 - 0.2, 0.4, 0.41])
    assert d.tolist() == [0.41666666666666663, -0.41666666666666663, 0.0, 0.39999999999999997,
                          0.39999999999999997, 0.41]


def test_bootstrap_interval_contains_the_mean_and_is_reproducible_with_its_seed():
    diff = np.array([0.4, -0.1, 0.3, 0.2, 0.0, 0.5, 0.1, 0.25, -0.05, 0.35, 0.15])
    lo, hi = resampled_mean_ci(diff, resample_indices(diff.size, seed=SEED))
    assert lo < diff.mean() < hi
    assert (lo, hi) == resampled_mean_ci(diff, resample_indices(diff.size, seed=SEED))
    assert (lo, hi) != resampled_mean_ci(diff, resample_indices(diff.size, seed=SEED + 1))
    # without missing values the shared draw is exactly the project's one bootstrap
    assert (lo, hi) == pytest.approx(bootstrap_mean_ci(diff, seed=SEED))


def test_shared_draw_averages_only_the_drawn_papers_with_a_value():
    values = np.array([1.0, np.nan, 3.0, 5.0])
    idx = resample_indices(4, n_resamples=60, seed=7)
    # By hand: each row's mean over its drawn papers 0, 2, 3 (paper 1 has no value); rows that drew
    # only paper 1 are left out; then the 2.5th/97.5th percentiles with linear interpolation.
    means = sorted(np.mean([values[i] for i in row if i != 1]) for row in idx if any(i != 1 for i in row))

    def pct(q):
        pos = q * (len(means) - 1)
        k = int(np.floor(pos))
        return means[k] + (pos - k) * (means[min(k + 1, len(means) - 1)] - means[k])
    assert resampled_mean_ci(values, idx) == pytest.approx((pct(0.025), pct(0.975)))
    assert all(math.isnan(v) for v in resampled_mean_ci([np.nan, np.nan], idx[:, :2] % 2))


def test_fewer_than_ten_pairs_gives_null_statistics_with_the_reason():
    x = np.arange(9, dtype=float)
    (row,) = compare([Pairs("doa", x + 1, x)], n_resamples=200)
    assert row["n_pairs"] == 9 and row["skip_reason"] == SKIP_FEW_PAIRS
    assert row["mean_diff"] == pytest.approx(1.0)  # the plain means stay: 9 differences of 1
    for col in ("ci_low", "ci_high", "wilcoxon_p", "holm_p", "cliffs_delta", "cliffs_delta_paired", "magnitude",
                "mean_system_ci_low"):
        assert row[col] is None


def test_no_pairs_at_all():
    (row,) = compare([Pairs("ns", np.array([0.5]), np.array([np.nan]))])
    assert row["n_pairs"] == 0 and row["skip_reason"] == SKIP_FEW_PAIRS
    assert row["mean_system"] is None and row["mean_diff"] is None


def _rows(metric, judge, judge_config, system, source, values, pool_system=None):
    """values: paper → list of review values (None = a null judgment)."""
    return [{"study_id": "s", "judge": judge, "judge_config": judge_config, "metric": metric,
             "review_key": f"{source}:{system}:{paper}:{i}:{pool_system}", "paper_id": paper, "source": source,
             "system": system, "pool_system": pool_system, "value": v,
             "null_reason": None if v is not None else "no_units", "n_repeats": 1}
            for paper, vs in values.items() for i, v in enumerate(vs)]


PAPERS = [f"P{i:02d}" for i in range(1, 13)]


def _lake_frame() -> pd.DataFrame:
    rows = []
    # doa: cfgA's two reviews of paper i average 0.3 + 0.01·i; two humans average 0.3 on every paper
    rows += _rows("doa", "depth", "jd", "cfgA", "peerlake",
                  {p: [0.3 + 0.01 * i - 0.05, 0.3 + 0.01 * i + 0.05] for i, p in enumerate(PAPERS, 1)})
    rows += _rows("doa", "depth", "jd", "human", "human", {p: [0.2, 0.4, None] for p in PAPERS})
    # ncps: cfgA 0.5 on all 12; the humans of cfgA's pools 0.5 on P01..P10 and null on P11, P12;
    # the same humans in cfgB's pools say 0.9 — those must never meet cfgA.
    rows += _rows("ncps", "flaws", "jf", "cfgA", "peerlake", {p: [0.5] for p in PAPERS})
    rows += _rows("ncps", "flaws", "jf", "human", "human",
                  {p: [0.5 if i <= 10 else None] for i, p in enumerate(PAPERS, 1)}, pool_system="cfgA")
    rows += _rows("ncps", "flaws", "jf", "human", "human", {p: [0.9] for p in PAPERS}, pool_system="cfgB")
    rows += _rows("ncps", "flaws", "jf", "cfgB", "external", {p: [0.7] for p in PAPERS[:3]})
    # mcs: 9 papers only
    rows += _rows("mcs", "constructiveness", "jc", "cfgA", "peerlake", {p: [0.6] for p in PAPERS[:9]})
    rows += _rows("mcs", "constructiveness", "jc", "human", "human", {p: [0.4] for p in PAPERS})
    return pd.DataFrame(rows)


def test_flaws_humans_are_those_of_the_same_pool():
    means = paper_means(_lake_frame()).set_index(["system", "metric", "paper_id"])
    assert means.loc[("cfgA", "ncps", "P01"), "human_mean"] == pytest.approx(0.5)
    assert pd.isna(means.loc[("cfgA", "ncps", "P11"), "human_mean"])
    assert means.loc[("cfgB", "ncps", "P01"), "human_mean"] == pytest.approx(0.9)
    # a metric without pools: the same humans for every system
    assert means.loc[("cfgA", "doa", "P05"), "human_mean"] == pytest.approx(0.3)
    assert means.loc[("cfgA", "doa", "P05"), "system_mean"] == pytest.approx(0.35)


def test_comparison_table_by_hand():
    table = comparison_table(_lake_frame(), n_resamples=2000)
    rows = {r["quality_comparison_id"]: r for r in table.to_dict("records")}
    assert sorted(rows) == ["s|cfgA|doa", "s|cfgA|mcs", "s|cfgA|ncps", "s|cfgB|ncps"]

    doa = rows["s|cfgA|doa"]
    # differences 0.01·i, i = 1..12: mean 0.01 · 6.5; all positive and distinct → exact p = 2/2^12;
    # every system mean beats every human mean → δ = 1
    assert doa["n_pairs"] == 12 and pd.isna(doa["skip_reason"])
    assert (doa["mean_system"], doa["mean_human"], doa["mean_diff"]) == pytest.approx((0.365, 0.3, 0.065))
    assert doa["wilcoxon_p"] == pytest.approx(2 / 4096)
    assert doa["cliffs_delta"] == 1.0 and doa["magnitude"] == "large"
    assert doa["cliffs_delta_paired"] == 1.0  # every paper's difference is positive
    # each resample mean lies between the smallest and largest difference
    assert 0.01 - 1e-9 <= doa["ci_low"] < 0.065 < doa["ci_high"] <= 0.12 + 1e-9
    diffs = [0.01 * i for i in range(1, 13)]  # all 12 papers paired: the union's draw is bootstrap_mean_ci's
    assert (doa["ci_low"], doa["ci_high"]) == pytest.approx(bootstrap_mean_ci(diffs, n_resamples=2000, seed=SEED))
    assert doa["mean_human_ci_low"] == doa["mean_human_ci_high"] == pytest.approx(0.3)
    assert (doa["bootstrap_seed"], doa["n_resamples"]) == (SEED, 2000)

    ncps = rows["s|cfgA|ncps"]
    assert ncps["n_pairs"] == 10 and ncps["mean_human"] == pytest.approx(0.5)
    assert (ncps["wilcoxon_p"], ncps["wilcoxon_note"]) == (1.0, ALL_ZERO)
    assert ncps["cliffs_delta"] == 0.0 and ncps["magnitude"] == "negligible"
    assert ncps["cliffs_delta_paired"] == 0.0
    assert ncps["ci_low"] == ncps["mean_diff"] == ncps["ci_high"] == 0.0
    # Holm over cfgA's two tested metrics: sorted 2/4096·2 = 1/1024, then 1·1.0 = 1
    assert doa["holm_p"] == pytest.approx(1 / 1024) and ncps["holm_p"] == 1.0

    mcs = rows["s|cfgA|mcs"]
    assert mcs["n_pairs"] == 9 and mcs["skip_reason"] == SKIP_FEW_PAIRS
    assert pd.isna(mcs["holm_p"]) and pd.isna(mcs["ci_low"]) and mcs["mean_diff"] == pytest.approx(0.2)
    cfgb = rows["s|cfgB|ncps"]
    assert (cfgb["n_pairs"], cfgb["source"], cfgb["judge"], cfgb["judge_config"]) == (3, "external", "flaws", "jf")
    assert cfgb["mean_diff"] == pytest.approx(0.7 - 0.9)


def test_several_judge_configurations_for_one_metric_fail_loudly():
    frame = _lake_frame()
    frame.loc[frame.index[0], "judge_config"] = "jd-other-model"
    with pytest.raises(ValueError, match="several judge configurations"):
        comparison_table(frame, n_resamples=100)


def test_an_empty_input_gives_an_empty_typed_table():
    table = comparison_table(pd.DataFrame(columns=_lake_frame().columns))
    assert table.empty and str(table["n_pairs"].dtype) == "int64" and "holm_p" in table


def _gate_failures(frame: pd.DataFrame) -> set[str]:
    from peerlake.expectations import validate_frame
    from peerlake.expectations.suite_quality_comparison import COLUMNS

    result = validate_frame("quality_comparison", frame[COLUMNS])
    return {f.split(": ", 1)[0] for f in result.failures} if not result.success else set()


def test_gate_passes_on_the_table_and_catches_each_broken_contract():
    table = comparison_table(_lake_frame(), n_resamples=500)
    assert _gate_failures(table) == set()
    doa = table.index[table["quality_comparison_id"] == "s|cfgA|doa"][0]

    broken = table.copy()
    broken.loc[doa, "ci_low"] = broken.loc[doa, "mean_diff"] + 0.01  # an interval missing its estimate
    assert _gate_failures(broken) == {"expect_column_pair_values_a_to_be_greater_than_b(column_A=mean_diff, "
                                      "column_B=ci_low, or_equal=True, ignore_row_if=either_value_is_missing)"}
    broken = table.copy()
    broken.loc[doa, "skip_reason"] = SKIP_FEW_PAIRS  # a reason beside real statistics
    assert any("where skip_reason is not null" in f for f in _gate_failures(broken))
    broken = table.copy()
    broken.loc[doa, "wilcoxon_p"] = None  # a statistic missing without a reason
    assert "expect_column_values_to_not_be_null(wilcoxon_p, where skip_reason is null)" in _gate_failures(broken)
    broken = table.copy()
    broken.loc[doa, "holm_p"] = broken.loc[doa, "wilcoxon_p"] - 0.001  # Holm lowered a p-value
    # (a repeated key, a p-value or δ out of range: dbt tests in quality_comparison.yml)
    assert _gate_failures(broken) == {"expect_column_pair_values_a_to_be_greater_than_b(column_A=holm_p, "
                                      "column_B=wilcoxon_p, or_equal=True, ignore_row_if=either_value_is_missing)"}


@pytest.mark.parametrize("null_side", ["everyone", "humans", "systems"])
def test_a_study_whose_judgments_are_all_null_on_one_side_compares_nothing_without_failing(null_side):
    # dbt hands the model DuckDB's frame: string columns as pandas' `str` dtype, values all NaN when
    # every judgment was null (e.g. a judge whose answers never parsed). That built no mart at all.
    frame = _lake_frame()
    if null_side in ("everyone", "humans"):
        frame.loc[frame["source"] == "human", "value"] = None
    if null_side in ("everyone", "systems"):
        frame.loc[frame["source"] != "human", "value"] = None
    strings = ["study_id", "judge", "judge_config", "metric", "review_key", "paper_id", "source", "system",
               "pool_system", "null_reason"]
    frame = frame.astype(dict.fromkeys(strings, "str") | {"value": "float64"})
    frame["pool_system"] = frame["pool_system"].where(frame["pool_system"] != "None")
    table = comparison_table(frame)
    assert set(table["system"]) == {"cfgA", "cfgB"}  # every system still gets its rows ...
    assert (table["n_pairs"] == 0).all() and (table["skip_reason"] == "fewer_than_10_pairs").all()  # ... unpaired
    assert table["wilcoxon_p"].isna().all()
