"""The statistic marts' suites on small hand-made frames: a valid one passes, each broken one fails
naming the broken expectation (values worked out by hand, not by the marts' code)."""

import pandas as pd
import pytest

from peerlake.expectations import validate_frame


def frame(rows: list[dict], **changes) -> pd.DataFrame:
    out = pd.DataFrame(rows)
    for column, values in changes.items():
        out[column] = values
    return out


def failed(suite: str, data: pd.DataFrame) -> dict[str, str]:
    """expectation text -> full failure line, for a gate that must fail."""
    result = validate_frame(suite, data)
    assert not result.success, result.describe()
    return {f.split(": ", 1)[0]: f for f in result.failures}


VALIDITY = [  # c over all papers and one venue-year; d has no human scores or labels: nulls, zeros
    {"validity_id": "c|all", "reviewer_config": "c", "scope": "all", "n_papers": 7, "pearson": 0.5,
     "spearman": 0.4, "mae": 1.2, "rmse": 1.5, "n_papers_labeled": 6, "n_accepted": 3,
     "acceptance_auc": 0.75, "n_papers_labeled_not_withdrawn": 5, "acceptance_auc_excluding_withdrawn": 0.7},
    {"validity_id": "c|venue_year:ICLR / 2017", "reviewer_config": "c", "scope": "venue_year:ICLR / 2017",
     "n_papers": 2, "pearson": -1.0, "spearman": -1.0, "mae": 0.5, "rmse": 0.5, "n_papers_labeled": 2,
     "n_accepted": 1, "acceptance_auc": 0.0, "n_papers_labeled_not_withdrawn": 2,
     "acceptance_auc_excluding_withdrawn": 0.0},
    {"validity_id": "d|all", "reviewer_config": "d", "scope": "all", "n_papers": 0, "pearson": None,
     "spearman": None, "mae": None, "rmse": None, "n_papers_labeled": 0, "n_accepted": 0,
     "acceptance_auc": None, "n_papers_labeled_not_withdrawn": 0, "acceptance_auc_excluding_withdrawn": None},
]


def test_validity_passes_with_null_statistics_where_inputs_are_missing():
    result = validate_frame("validity", frame(VALIDITY))
    assert result.success, result.describe()


def test_validity_fails_on_more_accepted_than_labeled():
    # (a correlation beyond 1 or a negative error: dbt tests in the mart's yml)
    failures = failed("validity", frame(VALIDITY, n_accepted=[7, 1, 0]))
    assert set(failures) == {
        "expect_column_pair_values_a_to_be_greater_than_b(column_A=n_papers_labeled, column_B=n_accepted, "
        "or_equal=True)"}
    assert "(6, 7)" in failures["expect_column_pair_values_a_to_be_greater_than_b(column_A=n_papers_labeled, "
                                "column_B=n_accepted, or_equal=True)"]


def test_validity_fails_on_an_unknown_scope():
    failures = failed("validity", frame(VALIDITY, scope=["all", "venue:ICLR", "all"]))
    assert set(failures) == {"expect_column_values_to_match_regex(scope, regex=^(?:all|venue_year:.+)$)"}


REPEATABILITY = [
    # c1: 3 papers, 2 repeated ([5,5,6] and [4,6,8,8]: ⌊3/2⌋ + ⌊4/2⌋ = 3 disjoint pairs), one single score
    {"repeatability_id": "s|c1", "reviewer_config": "c1", "n_reviews": 9, "n_parsed_reviews": 8, "n_papers": 3,
     "reviews_per_paper_mean": 8 / 3, "reviews_per_paper_min": 1, "n_papers_repeated": 2,
     "n_certified_pairs": 3, "parse_success_rate": 8 / 9, "share_papers_identical": 0.0,
     "share_papers_range_le_1": 0.5, "pairwise_agreement_mean": 0.25, "share_scores_5_to_7": 0.5,
     "share_scores_5_to_6": 0.375, "variance_hat": 2.0, "within_paper_sd": 2.0 ** 0.5,
     "paper_variance_p10": 0.4, "paper_variance_p25": 1.0, "paper_variance_p50": 2.0,
     "paper_variance_p75": 3.0, "paper_variance_p90": 3.6, "drift_ci_low": -1.0, "drift_ci_high": 1.5},
    # c3: only an unparsable answer: no papers, every statistic null, counts 0
    {"repeatability_id": "s|c3", "reviewer_config": "c3", "n_reviews": 1, "n_parsed_reviews": 0, "n_papers": 0,
     "reviews_per_paper_mean": None, "reviews_per_paper_min": None, "n_papers_repeated": 0,
     "n_certified_pairs": 0, "parse_success_rate": 0.0, "share_papers_identical": None,
     "share_papers_range_le_1": None, "pairwise_agreement_mean": None, "share_scores_5_to_7": None,
     "share_scores_5_to_6": None, "variance_hat": None, "within_paper_sd": None,
     "paper_variance_p10": None, "paper_variance_p25": None, "paper_variance_p50": None,
     "paper_variance_p75": None, "paper_variance_p90": None, "drift_ci_low": None, "drift_ci_high": None},
]


def test_repeatability_passes_including_a_configuration_with_nothing_parsed():
    result = validate_frame("repeatability", frame(REPEATABILITY))
    assert result.success, result.describe()


def test_repeatability_fails_on_more_parsed_than_answered():
    # (a negative SD or a share above 1: dbt tests in the mart's yml)
    failures = failed("repeatability", frame(REPEATABILITY, n_parsed_reviews=[10, 0]))
    pair = [f for f in failures if "column_A=n_reviews, column_B=n_parsed_reviews" in f]
    assert len(pair) == 1 and "['s|c1']" in failures[pair[0]]


def test_repeatability_of_one_configuration_in_two_studies_passes():
    # (a repeated key: the dbt test unique on repeatability_id)
    two_studies = frame(REPEATABILITY, repeatability_id=["s|c1", "t|c1"], reviewer_config=["c1", "c1"])
    assert validate_frame("repeatability", two_studies).success


def test_repeatability_fails_when_nested_shares_or_pairs_do_not_nest():
    # [5, 6] ⊂ [5, 7], so fewer scores can lie in [5, 7]; two repeated papers need ≥ 2 disjoint pairs.
    bad = frame(REPEATABILITY, share_scores_5_to_6=[0.625, None], n_certified_pairs=[1, 0])
    failures = failed("repeatability", bad)
    assert [f.split("(")[1].split(",")[:2] for f in failures] == [
        ["column_A=n_certified_pairs", " column_B=n_papers_repeated"],
        ["column_A=share_scores_5_to_7", " column_B=share_scores_5_to_6"]]


def histogram(config: str, counts: list[int], study: str | None = None) -> pd.DataFrame:
    """Ten bins of one configuration (in one study); shares worked out from the counts by hand below."""
    total = sum(counts)
    prefix = config if study is None else f"{study}|{config}"
    return pd.DataFrame({"score_histogram_id": [f"{prefix}|{b}" for b in range(1, 11)],
                         "reviewer_config": config, "score_bin": range(1, 11), "n_scores": counts,
                         "share_of_scores": [c / total for c in counts]})


HIST = pd.concat([histogram("c1", [0, 0, 0, 0, 2, 0, 1, 0, 0, 1]),  # 2/4, 1/4, 1/4
                  histogram("c2", [1, 1, 1, 0, 0, 0, 0, 0, 0, 0])], ignore_index=True)  # thirds


def test_score_histogram_passes_on_ten_bins_whose_shares_sum_to_one():
    result = validate_frame("score_histogram", HIST)
    assert result.success, result.describe()
    assert validate_frame("score_histogram", HIST.iloc[0:0]).success  # an empty lake


def test_one_configuration_in_two_studies_is_two_histograms_each_summing_to_one():
    both = pd.concat([histogram("c1", [0, 0, 0, 0, 2, 0, 1, 0, 0, 1], study="demo"),
                      histogram("c1", [1, 1, 1, 0, 0, 0, 0, 0, 0, 0], study="mine")], ignore_index=True)
    # Grouped by configuration alone they would be one histogram of 20 bins summing to 2.
    result = validate_frame("score_histogram", both)
    assert result.success, result.describe()


def test_score_histogram_fails_when_shares_do_not_match_their_counts():
    bad = HIST.copy()
    bad.loc[4, "share_of_scores"] = 0.6  # c1 bin 5: 2 of 4 is 0.5; the shares now sum to 1.1
    failures = failed("score_histogram", bad)
    assert set(failures) == {
        "expect_column_values_to_be_between(histogram_share_total, min_value=0.999999999, max_value=1.000000001)",
        "expect_column_values_to_be_between(share_deviation, max_value=1e-09)"}
    assert "['c1|5']" in failures["expect_column_values_to_be_between(share_deviation, max_value=1e-09)"]


def test_score_histogram_fails_on_a_missing_bin():
    # (a bin off the scale or a negative count: dbt tests in the mart's yml)
    bad = HIST.drop(index=19).copy()  # c2 loses bin 10 (an empty one: shares still sum to 1)
    failures = failed("score_histogram", bad)
    assert set(failures) == {"expect_column_values_to_be_between(histogram_n_bins, min_value=10.0, max_value=10.0)"}
    assert "c2|1" in failures["expect_column_values_to_be_between(histogram_n_bins, min_value=10.0, max_value=10.0)"]


COSTS = [  # the cost_by_model unit test's groups, by hand (dbt_project/models/marts/cost_by_model.yml)
    {"cost_group_id": "g1", "provider": "p", "model": "m1", "n_calls": 4, "n_ok_calls": 3, "n_failed_calls": 1,
     "input_tokens": 400, "cached_input_tokens": 40, "cache_write_tokens": None, "output_tokens": 90,
     "reasoning_tokens": None, "cost_usd": 0.75, "n_calls_cost_unknown": 2, "n_ok_calls_cost_unknown": 1,
     "is_cost_complete": False},
    {"cost_group_id": "g2", "provider": "p", "model": "m2", "n_calls": 2, "n_ok_calls": 1, "n_failed_calls": 1,
     "input_tokens": None, "cached_input_tokens": None, "cache_write_tokens": None, "output_tokens": None,
     "reasoning_tokens": None, "cost_usd": 0.25, "n_calls_cost_unknown": 1, "n_ok_calls_cost_unknown": 0,
     "is_cost_complete": True},
    {"cost_group_id": "g3", "provider": "p", "model": "m3", "n_calls": 1, "n_ok_calls": 1, "n_failed_calls": 0,
     "input_tokens": None, "cached_input_tokens": None, "cache_write_tokens": None, "output_tokens": None,
     "reasoning_tokens": None, "cost_usd": None, "n_calls_cost_unknown": 1, "n_ok_calls_cost_unknown": 1,
     "is_cost_complete": False},
]


def costs(**changes) -> pd.DataFrame:
    out = frame(COSTS, **changes)
    tokens = ["input_tokens", "cached_input_tokens", "cache_write_tokens", "output_tokens", "reasoning_tokens"]
    return out.astype(dict.fromkeys(tokens, "Int64"))


def test_cost_by_model_passes_with_unknown_costs_counted_and_flagged():
    result = validate_frame("cost_by_model", costs())
    assert result.success, result.describe()


@pytest.mark.parametrize("changes, expectation", [  # (a negative cost or token count: dbt tests)
    # an unknown cost summed as 0: m3's only call has no price
    ({"cost_usd": [0.75, 0.25, 0.0]}, "expect_column_values_to_be_null(cost_usd, where n_calls_cost_known == 0)"),
    # m1 has an answered call without a price, yet claims a complete total
    ({"is_cost_complete": [True, True, False]},
     "expect_column_values_to_be_in_set(is_cost_complete, value_set=[False], where n_ok_calls_cost_unknown > 0)"),
    ({"n_failed_calls": [0, 1, 0]},
     "expect_column_values_to_be_between(n_calls_unaccounted, min_value=0.0, max_value=0.0)"),
])
def test_cost_by_model_fails_naming_the_broken_expectation(changes, expectation):
    assert set(failed("cost_by_model", costs(**changes))) == {expectation}


STUDY_COSTS = [  # the cost_by_study unit test's rows, by hand (dbt_project/models/marts/cost_by_study.yml)
    {"study_cost_id": "k1", "study_id": "demo", "provider": "p", "model": "m", "n_attempts": 1, "n_paid_calls": 1,
     "n_failed_attempts": 0, "input_tokens": 100, "output_tokens": 20, "cost_usd": 1.0,
     "n_paid_calls_cost_unknown": 0, "n_review_calls_used": 1, "n_review_calls_replayed": 0,
     "replayed_cost_usd_saved": None},
    {"study_cost_id": "k2", "study_id": "mine", "provider": "p", "model": "m", "n_attempts": 2, "n_paid_calls": 1,
     "n_failed_attempts": 1, "input_tokens": 100, "output_tokens": 20, "cost_usd": 2.0,
     "n_paid_calls_cost_unknown": 0, "n_review_calls_used": 2, "n_review_calls_replayed": 1,
     "replayed_cost_usd_saved": 1.0},
]


def test_cost_by_study_passes_with_a_replay_paid_by_another_study():
    result = validate_frame("cost_by_study", frame(STUDY_COSTS))
    assert result.success, result.describe()


def test_cost_by_study_fails_on_more_replays_than_uses_and_an_attempt_counted_twice():
    bad = frame(STUDY_COSTS, n_review_calls_replayed=[0, 3], n_failed_attempts=[1, 1])
    assert set(failed("cost_by_study", bad)) == {
        "expect_column_pair_values_a_to_be_greater_than_b(column_A=n_review_calls_used, "
        "column_B=n_review_calls_replayed, or_equal=True)",
        "expect_column_values_to_be_between(n_attempts_unaccounted, min_value=0.0, max_value=0.0)"}


def _budget_rows(variance_hat, variance_upper, planning, certified):
    return pd.DataFrame({"budget_id": ["s|c|eps=0.5"], "reviewer_config": ["c"], "tolerance": [0.5],
                         "variance_hat": [variance_hat], "variance_upper": [variance_upper],
                         "planning_budget": [planning], "certified_budget": [certified],
                         "range_only_budget": [1000], "scale_min": [1.0], "scale_max": [10.0]})


def test_budgets_allow_a_variance_estimate_above_the_scales_maximum_variance():
    # One paper scored 1 and 8 by a small model: V̂ = 24.5 exceeds (10 − 1)²/4 = 20.25, the most any
    # distribution on 1..10 can vary, so the certified U is that cap and its budget is the smaller one.
    capped = validate_frame("budgets", _budget_rows(24.5, 20.25, 1960, 1620))
    assert capped.success, capped.failures
    # Within the cap, U below V̂ (or a certified budget below the planning one) is a broken bound.
    broken = validate_frame("budgets", _budget_rows(5.0, 4.0, 400, 320))
    assert not broken.success
    assert any("variance_upper" in f for f in broken.failures)
    assert any("certified_budget" in f for f in broken.failures)
    over_cap = validate_frame("budgets", _budget_rows(5.0, 30.0, 400, 2400))
    assert not over_cap.success and any("variance_cap" in f for f in over_cap.failures)


PROBES = [  # a pass inside ±0.5; a fail wholly above it; a single pair: no interval, inconclusive
    {"judge_probe_id": "s|j|length|n_units", "shift": 0.1, "ci_low": -0.2, "ci_high": 0.4, "tolerance": 0.5,
     "status": "pass", "n": 5},
    {"judge_probe_id": "s|j|comment_order|n_units", "shift": 2.0, "ci_low": 1.0, "ci_high": 3.0, "tolerance": 0.5,
     "status": "fail", "n": 5},
    {"judge_probe_id": "s|j|pool_order|n_flaws", "shift": 1.0, "ci_low": None, "ci_high": None, "tolerance": 0.5,
     "status": "inconclusive", "n": 1},
]


def test_judge_probes_passes_on_verdicts_that_follow_their_intervals():
    result = validate_frame("judge_probes", frame(PROBES))
    assert result.success, result.describe()


def test_judge_probes_fails_on_a_pass_beyond_its_tolerance_or_without_an_interval():
    # row 1 "passes" with an interval reaching 3.0 > 0.5; row 3 "passes" on one pair, no interval
    failures = failed("judge_probes", frame(PROBES, status=["pass", "pass", "pass"]))
    assert {f.split("(")[0] for f in failures} == {
        "expect_column_pair_values_a_to_be_greater_than_b", "expect_column_values_to_not_be_null",
        "expect_column_values_to_be_between"}, failures
    assert any("column_A=tolerance" in f for f in failures), failures


def test_judge_probes_fails_on_a_shift_outside_its_own_interval():
    failures = failed("judge_probes", frame(PROBES, shift=[0.1, 4.0, 1.0]))
    assert any("column_A=ci_high" in f and "column_B=shift" in f for f in failures), failures
