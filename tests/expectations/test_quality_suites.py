"""The quality marts' suites on small hand-made frames: a valid one (with every kind of null row)
passes, and each broken one fails naming the broken expectation."""

import pandas as pd
import pytest

from peerlake.expectations import GATES, STATISTIC_GATES, validate_frame


def frame(rows: list[dict], **changes) -> pd.DataFrame:
    out = pd.DataFrame(rows)
    for column, values in changes.items():
        out[column] = values
    return out


def failed(suite: str, data: pd.DataFrame) -> set[str]:
    """The failed expectations' texts (up to the first ': ') of a gate that must fail."""
    result = validate_frame(suite, data)
    assert not result.success, result.describe()
    return {f.split(": ", 1)[0] for f in result.failures}


def base(key: str, rid: str, **values) -> dict:
    return {key: f"s|c|{rid}", "study_id": "s", "review_key": rid, "judge_config": "c", "source": "human",
            "is_null": False, "null_reason": None, "n_repeats": 2, "n_repeats_scored": 2, **values}


NOT_JUDGED = {"is_null": True, "null_reason": "not_judged", "n_repeats": 0, "n_repeats_scored": 0}


def depth_row(rid: str, doa=None, **values) -> dict:
    scored = doa is not None
    defaults = {"doa": doa, "premise_ratio": 0.5 if scored else None, "grounding_norm": 0.5 if scored else None,
                "doa_sd": 0.1 if scored else None, "n_units": 4.0 if scored else None,
                "n_premises": 2.0 if scored else None, "n_premises_grounded": 2.0 if scored else None,
                "n_units_cut_by_cap": 0.0 if scored else None}
    return base("quality_depth_id", rid, **{**defaults, **values})


DEPTH = [
    depth_row("human:a", 0.5),
    depth_row("human:b", 0.0, doa_sd=None, n_repeats=1, n_repeats_scored=1),  # R + S = 0 -> 0, not null
    depth_row("human:c", None, is_null=True, null_reason="no_units", n_repeats=1, n_repeats_scored=0),
    depth_row("human:d", None, **NOT_JUDGED),
]


def test_quality_depth_passes_with_every_null_path():
    result = validate_frame("quality_depth", frame(DEPTH))
    assert result.success, result.describe()


def test_quality_depth_fails_on_a_null_without_reason_and_a_score_without_a_judgment():
    # row b: a DoA from 0 judgments; row d: null without a reason (a DoA of 1.2: a dbt test)
    bad = frame(DEPTH, null_reason=[None, None, "no_units", None],
                n_repeats=[2, 0, 1, 0], n_repeats_scored=[2, 0, 0, 0])
    assert failed("quality_depth", bad) == {
        "expect_column_values_to_not_be_null(null_reason, where doa is null)",
        "expect_column_values_to_be_between(n_repeats, min_value=1.0, where null_reason is null)"}


def test_quality_depth_fails_on_a_missing_cut_count():
    bad = frame(DEPTH, n_units_cut_by_cap=[0.0, None, None, None])  # row b is scored: it must say 0
    assert failed("quality_depth", bad) == {
        "expect_column_values_to_not_be_null(n_units_cut_by_cap, where doa is not null)"}


def aspect_row(rid: str, aspect: str, order: int, units: float, premises: float | None, **values) -> dict:
    return {"quality_depth_aspect_id": f"s|c|{rid}|{aspect}", "study_id": "s", "judge_config": "c",
            "review_key": rid, "source": "human", "depth_taxonomy": "prism-paper", "aspect": aspect,
            "aspect_order": order, "n_repeats_scored": 1, "share_units": units, "share_premises": premises, **values}


ASPECTS = [  # review a: 3 units, 1 premise (experiments); review b: two claims, no premise
    *[aspect_row("human:a", a, k, u, p) for k, (a, u, p) in enumerate(
        [("novelty", 1 / 3, 0.0), ("methodology", 0.0, 0.0), ("experiments", 2 / 3, 1.0), ("clarity", 0.0, 0.0)], 1)],
    *[aspect_row("human:b", a, k, u, None) for k, (a, u) in enumerate(
        [("novelty", 0.5), ("methodology", 0.0), ("experiments", 0.0), ("clarity", 0.5)], 1)],
]


def test_quality_depth_aspects_passes_and_fails_when_shares_do_not_sum_to_one():
    assert validate_frame("quality_depth_aspects", frame(ASPECTS)).success
    bad = frame([*ASPECTS[:7], {**ASPECTS[7], "share_units": 0.25}])  # b's units: 0.5 + 0.25
    assert failed("quality_depth_aspects", bad) == {
        "expect_column_values_to_be_between(share_units_sum, min_value=0.999999999, max_value=1.000000001)"}


def test_quality_depth_fails_on_a_reason_on_a_scored_row():
    bad = frame(DEPTH, null_reason=["no_units", None, "no_units", "not_judged"])  # row a has a DoA and a reason
    assert failed("quality_depth", bad) == {"expect_column_values_to_be_null(null_reason, where doa is not null)"}


NOVELTY = [
    base("quality_novelty_id", "human:a", ns=0.625, sr=0.5, ssr=0.0, ns_sd=0.0, n_claims=3.0, n_claims_scored=2.0),
    base("quality_novelty_id", "human:b", ns=None, sr=None, ssr=None, ns_sd=None, n_claims=2.0, n_claims_scored=0.0,
         is_null=True, null_reason="no_scored_claims"),
    base("quality_novelty_id", "human:c", ns=None, sr=None, ssr=None, ns_sd=None, n_claims=None,
         n_claims_scored=None, **NOT_JUDGED),
]


def test_quality_novelty_passes_and_fails_when_ssr_exceeds_sr():
    assert validate_frame("quality_novelty", frame(NOVELTY)).success
    # s_c >= 2 implies s_c >= 1: SSR can never exceed SR (NS clipped into [0, 1]: a dbt test)
    bad = frame(NOVELTY, ssr=[0.75, None, None])
    assert failed("quality_novelty", bad) == {
        "expect_column_pair_values_a_to_be_greater_than_b(column_A=sr, column_B=ssr, or_equal=True, "
        "ignore_row_if=either_value_is_missing)"}


CONSTRUCTIVE = [
    base("quality_constructiveness_id", "human:a", mcs=0.6, mcs_sd=None, n_comments=3.0, share_actionable=2 / 3,
         share_solution=1 / 3, share_clc_06=2 / 3, share_anchor_found=1.0, n_repeats=1, n_repeats_scored=1),
    base("quality_constructiveness_id", "human:b", mcs=None, mcs_sd=None, n_comments=None, share_actionable=None,
         share_solution=None, share_clc_06=None, share_anchor_found=None, is_null=True, null_reason="no_comments",
         n_repeats=1, n_repeats_scored=0),
]


def test_quality_constructiveness_passes_and_fails_on_comments_missing_behind_a_score():
    assert validate_frame("quality_constructiveness", frame(CONSTRUCTIVE)).success
    # (a negative SD or an unknown source: dbt tests in the mart's yml)
    bad = frame(CONSTRUCTIVE, n_comments=[0.0, None])
    assert failed("quality_constructiveness", bad) == {
        "expect_column_values_to_be_between(n_comments, min_value=1.0, where mcs is not null)"}


def flaws_row(rid: str, scored: bool = True, **values) -> dict:
    numbers = {"n_critical_flaws": 2.0, "n_minor_flaws": 2.0, "n_flaws_raised": 3.0, "n_critical_found": 1.0,
               "n_minor_found": 1.0, "n_invalid_raised": 1.0, "n_mentions": 3.0, "recall_critical": 0.5,
               "recall_minor": 0.5, "recall_critical_weighted": 2 / 3, "recall_minor_weighted": 0.75,
               "hallucination_rate": 1 / 3, "ncps": 0.92, "ncps_sd": None, "ncps_null_reason": None,
               "ncps_whole_review": 0.87, "ncps_null_when_none": 0.92, "n_pool_members": 3.0, "n_flaws_over_cap": 0.0,
               "n_raisers_over_cap": 0.0}
    if not scored:
        numbers = dict.fromkeys(numbers)
    row = base("quality_flaws_id", rid, pool_key="pool:p|X|s0", pool_system="X", pool_sample="0", n_repeats=1,
               n_repeats_scored=1, **numbers)
    row.update(values)
    return row


FLAWS = [
    flaws_row("external:X:e"),
    # a pool without valid critical flaws: recall_critical null for want of a denominator, the row scored;
    # no mention: nCPS 0 as PRISM, null only in the null variant
    flaws_row("human:a", n_critical_flaws=0.0, n_critical_found=0.0, recall_critical=None,
              recall_critical_weighted=None, ncps=0.0, ncps_whole_review=0.0, ncps_null_when_none=None,
              n_mentions=0.0),
    flaws_row("human:b", scored=False, is_null=True, null_reason="unparseable:extract", n_repeats_scored=0,
              ncps_null_reason="unparseable:extract"),
    flaws_row("human:c", scored=False, ncps_null_reason="not_judged", **NOT_JUDGED),
]


def test_quality_flaws_passes_with_a_null_recall_for_want_of_critical_flaws():
    result = validate_frame("quality_flaws", frame(FLAWS))
    assert result.success, result.describe()


def test_quality_flaws_fails_on_a_recall_null_with_flaws_a_recall_without_flaws_and_found_beyond_the_pool():
    bad = frame(FLAWS, recall_critical=[None, 0.5, None, None], n_minor_found=[3.0, 1.0, None, None],
                ncps_null_reason=[None, None, "unparseable:extract", "not_judged"],
                ncps=[0.84, None, None, None], ncps_whole_review=[0.87, None, None, None])
    failures = failed("quality_flaws", bad)
    assert failures == {
        "expect_column_values_to_not_be_null(recall_critical, where null_reason is null and n_critical_flaws > 0)",
        "expect_column_values_to_be_null(recall_critical, where n_critical_flaws == 0)",
        "expect_column_values_to_not_be_null(ncps_null_reason, where ncps is null)",
        "expect_column_pair_values_a_to_be_greater_than_b(column_A=n_minor_flaws, column_B=n_minor_found, "
        "or_equal=True, ignore_row_if=either_value_is_missing)"}



def test_quality_flaws_fails_on_an_ncps_above_zero_without_mentions_and_a_null_variant_without_mentions():
    # human:a mentions nothing: its nCPS must be 0 (PRISM) and only the null variant null; the system review's
    # variant is missing although its nCPS stands; pool members 0 on a scored row
    bad = frame(FLAWS, ncps=[0.92, 0.5, None, None], ncps_null_when_none=[0.92, 0.0, None, None],
                ncps_whole_review=[None, 0.0, None, None], n_pool_members=[0.0, 3.0, None, None])
    assert failed("quality_flaws", bad) == {
        "expect_column_values_to_be_between(ncps, max_value=0.0, where n_mentions == 0)",
        "expect_column_values_to_be_null(ncps_null_when_none, where n_mentions == 0)",
        "expect_column_values_to_not_be_null(ncps_whole_review, where ncps is not null)",
        "expect_column_values_to_be_between(n_pool_members, min_value=1.0, where null_reason is null)"}


REPEATABILITY = [
    {"judge_repeatability_id": "s|c|doa", "study_id": "s", "judge_config": "c", "metric": "doa", "n_reviews": 5,
     "n_reviews_scored": 2, "n_reviews_repeated": 1, "within_review_sd_mean": 0.06, "within_review_sd_max": 0.06,
     "score_mean": 0.35, "between_review_sd": 0.5},
    {"judge_repeatability_id": "s|d|mcs", "study_id": "s", "judge_config": "d", "metric": "mcs", "n_reviews": 2,
     "n_reviews_scored": 1, "n_reviews_repeated": 0, "within_review_sd_mean": None, "within_review_sd_max": None,
     "score_mean": 0.6, "between_review_sd": None},
]


def test_quality_judge_repeatability_passes_and_fails_when_counts_do_not_nest():
    assert validate_frame("quality_judge_repeatability", frame(REPEATABILITY)).success
    bad = frame(REPEATABILITY, n_reviews_repeated=[3, 0])  # (an unknown metric: a dbt test)
    assert failed("quality_judge_repeatability", bad) == {
        "expect_column_pair_values_a_to_be_greater_than_b(column_A=n_reviews_scored, column_B=n_reviews_repeated, "
        "or_equal=True)"}


@pytest.mark.parametrize("mart", ["quality_depth", "quality_depth_aspects", "quality_novelty", "quality_flaws",
                                  "quality_constructiveness", "quality_judge_repeatability"])
def test_quality_marts_are_gated_as_statistics(mart):
    assert mart in GATES.values() and mart in STATISTIC_GATES.values()
