"""metrics.quality.agreement on hand-made per-review rows: which configurations pair on which reviews,
and each statistic against a hand computation or scipy directly (not through metrics.stats)."""

import math

import pandas as pd
import pytest
from scipy import stats

from peerlake.metrics.quality.agreement import agreement, agreement_table


def row(config, review, metric, value, *, study="s", judge="constructiveness", pool=None, provider="local"):
    return {"study_id": study, "judge": judge, "judge_config": config, "judge_provider": provider,
            "judge_model": f"model-{config}", "review_key": review, "pool_key": pool, "metric": metric,
            "value": value}


def table(rows) -> dict[str, dict]:
    out = agreement_table(pd.DataFrame(rows))
    return {r["quality_judge_agreement_id"]: r for r in out.to_dict("records")}


def test_statistics_by_hand_and_against_scipy():
    x, y = [0.2, 0.4, 0.6, 0.8], [0.3, 0.4, 0.9, 0.5]
    a = agreement(x, y)
    # differences −.1, 0, −.3, .3 → mean −.025, mean |d| .175, one of four equal
    assert (a["mean_x"], a["mean_y"]) == pytest.approx((0.5, 0.525))
    assert (a["mean_diff"], a["mean_abs_diff"], a["share_equal"]) == pytest.approx((-0.025, 0.175, 0.25))
    assert a["pearson"] == pytest.approx(stats.pearsonr(x, y).statistic)
    # ranks x 1 2 3 4, y 1 2 4 3 → ρ = 1 − 6·(0+0+1+1)/(4·15) = 0.8
    assert a["spearman"] == pytest.approx(0.8)
    assert a["correlation_null_reason"] is None


def test_float_noise_of_averaging_is_a_tie_not_an_order():
    # (0.1 + 0.2) / 1 and 0.3 differ in the last bit; as scores they are one value
    x, y = [0.1 + 0.2, 0.3, 0.9], [0.5, 0.7, 0.6]
    a = agreement(x, y)
    assert a["spearman"] == pytest.approx(stats.spearmanr([0.3, 0.3, 0.9], y).statistic)
    assert a["spearman"] != pytest.approx(stats.spearmanr(x, y).statistic)  # what exact ranks would give
    assert agreement([0.1 + 0.2], [0.3])["share_equal"] == 1.0
    # a side constant up to float noise has no correlation
    assert agreement([0.1 + 0.2, 0.3, 0.3], [0.1, 0.5, 0.9])["correlation_null_reason"] == "constant_x"


@pytest.mark.parametrize(("x", "y", "reason"), [
    ([], [], "fewer_than_3_reviews"),
    ([0.1, 0.5], [0.2, 0.9], "fewer_than_3_reviews"),
    ([0.5, 0.5, 0.5], [0.1, 0.2, 0.3], "constant_x"),
    ([0.1, 0.2, 0.3], [1.0, 1.0, 1.0], "constant_y"),
])
def test_correlations_are_null_with_a_reason_never_zero(x, y, reason):
    a = agreement(x, y)
    assert (a["pearson"], a["spearman"], a["correlation_null_reason"]) == (None, None, reason)
    if x:  # the plain statistics are still given
        assert a["mean_diff"] == pytest.approx(sum(x) / len(x) - sum(y) / len(y))
    else:
        assert a["mean_x"] is None and a["share_equal"] is None


def test_every_two_configs_of_a_judge_pair_on_the_reviews_they_share_in_order_of_name():
    rows = [
        # three configurations of one judge; "prism-released:…" sorts after the hex identities
        *[row("prism-released:constructiveness", r, "mcs", v, provider="imported")
          for r, v in [("h1", 0.5), ("h2", 0.7), ("h3", None), ("h4", 0.1)]],
        *[row("c000000000000001", r, "mcs", v) for r, v in [("h1", 0.4), ("h2", 0.8), ("h3", 0.2), ("h4", 0.2)]],
        *[row("c000000000000002", r, "mcs", v) for r, v in [("h1", 0.6), ("h9", 0.2)]],
        # another judge's configuration on the same reviews never pairs with these
        row("d000000000000001", "h1", "doa", 0.5, judge="depth"),
        # the same configurations in another study: their own rows
        row("c000000000000001", "h1", "mcs", 0.4, study="t"), row("c000000000000002", "h1", "mcs", 0.4, study="t"),
    ]
    got = table(rows)
    p = "prism-released:constructiveness"
    assert sorted(got) == sorted([
        f"s|mcs|c000000000000001|{p}", "s|mcs|c000000000000001|c000000000000002",
        f"s|mcs|c000000000000002|{p}", "t|mcs|c000000000000001|c000000000000002"])
    own = got[f"s|mcs|c000000000000001|{p}"]
    # h3 is listed by both but scored only by c…01: shared, not in the statistics
    assert (own["n_reviews_shared"], own["n_reviews"]) == (4, 3)
    assert (own["judge_provider_x"], own["judge_provider_y"], own["judge_model_y"]) == (
        "local", "imported", f"model-{p}")
    x, y = [0.4, 0.8, 0.2], [0.5, 0.7, 0.1]
    assert own["mean_diff"] == pytest.approx((0.4 - 0.5 + 0.8 - 0.7 + 0.2 - 0.1) / 3)
    assert own["pearson"] == pytest.approx(stats.pearsonr(x, y).statistic)
    assert own["spearman"] == pytest.approx(1.0)
    one = got["s|mcs|c000000000000002|" + p]
    assert (one["n_reviews_shared"], one["n_reviews"], one["correlation_null_reason"]) == (1, 1, "fewer_than_3_reviews")
    assert one["mean_diff"] == pytest.approx(0.1) and math.isnan(one["pearson"])


def test_a_flaws_subject_is_the_pool_review_pair():
    rows = [row(c, "h1", "recall_critical", v, judge="flaws", pool=pool)
            for c, vals in [("f1", (1.0, 0.0)), ("f2", (1.0, 0.5))]
            for pool, v in zip(("pool:P|X|s0", "pool:P|Y|s0"), vals, strict=True)]
    [r] = table(rows).values()
    assert (r["n_reviews_shared"], r["n_reviews"], r["share_equal"], r["mean_abs_diff"]) == (2, 2, 0.5, 0.25)


def test_no_rows_and_no_shared_review_give_an_empty_typed_table():
    empty = agreement_table(pd.DataFrame([row("a", "h1", "mcs", 0.1)]).iloc[0:0])
    assert empty.empty and empty["n_reviews"].dtype == "int64"
    assert table([row("a", "h1", "mcs", 0.1), row("b", "h2", "mcs", 0.1)]) == {}
