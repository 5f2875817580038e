"""quality_comparison's per-side PPI columns on a case worked by hand: each side's prediction-powered mean with
its interval and its labelled (n) and unlabelled (N) reviews, a side with labels debiased even when the other
side has too few; and a metric's labels never reach another metric's row."""

import math

import pandas as pd
import pytest

from peerlake.metrics.quality.ppi import ppi_row, with_ppi

# the judge's premise ratio of five system reviews and three human reviews
SYSTEM = {"s1": 1.0, "s2": 0.5, "s3": 1.0, "s4": 0.5, "s5": 0.0}
HUMAN = {"h1": 0.5, "h2": 0.5, "h3": 0.5}
# people's premise ratio of two system reviews and one human review; x9 was never judged
LABELS = {"s1": 0.5, "s2": 0.5, "h1": 1.0, "x9": 0.0}

# system side: N = 3 unlabelled (1, 1/2, 0) → mean 1/2, σ̂² = (1/4 + 0 + 1/4)/3 = 1/6, over N: 1/18;
# rectifier Y − Ŷ = −1/2, 0 over n = 2 → mean −1/4, σ̂² = 1/16, over n: 1/32.
# θ̂ = 1/2 − 1/4 = 1/4; se² = 1/18 + 1/32 = 25/288
SYSTEM_MEAN, SYSTEM_HALF = 0.25, 1.959964 * math.sqrt(25 / 288)


def test_each_side_has_its_own_ppi_mean_by_hand():
    row = ppi_row(SYSTEM, HUMAN, LABELS)
    assert row["ppi_mean_system"] == pytest.approx(SYSTEM_MEAN)
    assert (row["ppi_mean_system_ci_low"], row["ppi_mean_system_ci_high"]) == (
        pytest.approx(SYSTEM_MEAN - SYSTEM_HALF, abs=1e-6), pytest.approx(SYSTEM_MEAN + SYSTEM_HALF, abs=1e-6))
    assert (row["n_labelled_system"], row["n_unlabelled_system"]) == (2, 3)
    # the human side has one labelled review (fewer than 2): no mean of its own, and so no difference
    assert (row["ppi_mean_human"], row["ppi_mean_human_ci_low"], row["ppi_mean_human_ci_high"]) == (None, None, None)
    assert (row["n_labelled_human"], row["n_unlabelled_human"]) == (1, 2)
    assert (row["ppi_diff"], row["ppi_null_reason"]) == (None, "too_few_labels_human")
    # the counts across the sides: 3 labelled, 8 judged (x9's label is on no judged review)
    assert (row["n_human_labels"], row["n_judged"]) == (3, 8)
    # naive: 3/5 − 1/2; σ̂²(system) = 0.7/5 = 0.14 over 5, the human side no spread
    half = 1.959964 * math.sqrt(0.14 / 5)
    assert (row["naive_diff"], row["naive_ci_low"], row["naive_ci_high"]) == (
        pytest.approx(0.1), pytest.approx(0.1 - half, abs=1e-6), pytest.approx(0.1 + half, abs=1e-6))


def test_every_review_labelled_is_the_labels_own_mean():
    # N = 0 on the human side: the mean of Y (1/2 and 1 → 3/4) with se = σ̂(Y)/√n = (1/4)/√2
    row = ppi_row(SYSTEM, {"h1": 0.5, "h2": 0.5}, {"s1": 0.5, "s2": 0.5, "h1": 0.5, "h2": 1.0})
    assert (row["n_labelled_human"], row["n_unlabelled_human"]) == (2, 0)
    assert row["ppi_mean_human"] == pytest.approx(0.75)
    assert row["ppi_mean_human_ci_high"] == pytest.approx(0.75 + 1.959964 * 0.25 / math.sqrt(2), abs=1e-6)
    # both sides labelled: the difference is the sides' means, their variances added
    assert row["ppi_diff"] == pytest.approx(SYSTEM_MEAN - 0.75)
    se = math.sqrt(25 / 288 + 0.0625 / 2)
    assert row["ppi_ci_high"] == pytest.approx(SYSTEM_MEAN - 0.75 + 1.959964 * se, abs=1e-6)


def _frames():
    table = pd.DataFrame({"study_id": ["st", "st"], "judge_config": ["cfg", "cfg"], "system": ["sysx", "sysx"],
                          "metric": ["premise_ratio", "doa"]})
    rows = [*[("sysx", "external", k, v) for k, v in SYSTEM.items()],
            *[("human", "human", k, v) for k, v in HUMAN.items()]]
    metrics = pd.DataFrame([{"study_id": "st", "judge_config": "cfg", "metric": metric, "system": system,
                             "source": source, "pool_system": None, "review_key": key,
                             "value": v if metric == "premise_ratio" else 0.4}
                            for metric in ("premise_ratio", "doa") for system, source, key, v in rows])
    labels = pd.DataFrame({"review_key": list(LABELS), "metric": "premise_ratio", "human_value": list(LABELS.values())})
    return table, metrics, labels


def test_a_metrics_labels_reach_only_its_own_row():
    out = with_ppi(*_frames()).set_index("metric")
    ratio, doa = out.loc["premise_ratio"], out.loc["doa"]
    assert ratio["ppi_mean_system"] == pytest.approx(SYSTEM_MEAN)
    assert (ratio["n_labelled_system"], ratio["n_unlabelled_system"], ratio["n_labelled_human"]) == (2, 3, 1)
    # doa has no human value (its premises' grounding is labelled nowhere): every review unlabelled
    assert (doa["n_labelled_system"], doa["n_unlabelled_system"], doa["n_labelled_human"],
            doa["n_unlabelled_human"], doa["ppi_null_reason"]) == (0, 5, 0, 3, "no_human_labels")
    assert pd.isna(doa["ppi_mean_system"]) and pd.isna(doa["ppi_mean_human"])
    assert str(out["n_unlabelled_system"].dtype) == "int64" and str(out["ppi_mean_system"].dtype) == "float64"
