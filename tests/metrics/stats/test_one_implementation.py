"""One implementation per statistic: the AUC, the within-paper variance and the bootstrap each live
in one function in metrics.stats, and every caller uses it (the issue found two AUCs with different
empty-input results and three bootstrap helpers)."""

import re
from pathlib import Path

import numpy as np
import pytest

from peerlake.metrics.stats import acceptance_auc, bootstrap_mean_ci, pooled_variance, within_paper_sd

METRICS = Path(__file__).resolve().parents[3] / "metrics"


def _sources() -> dict[str, str]:
    return {str(p.relative_to(METRICS)): p.read_text() for p in METRICS.rglob("*.py")}


@pytest.mark.parametrize("pattern,home", [
    (r"^def acceptance_auc\b", "stats/validity.py"),
    (r"^def within_paper_sd\b", "stats/repeatability.py"),
    (r"ddof\s*=\s*1", "stats/repeatability.py"),  # the unbiased per-paper variance S_i²
    (r"\.integers\(", "stats/bootstrap.py"),  # resampling papers with replacement
    (r"np\.percentile\(", "stats/bootstrap.py"),
])
def test_each_statistic_is_written_once(pattern, home):
    hits = [name for name, text in _sources().items() if re.search(pattern, text, re.MULTILINE)]
    assert hits == [home]


def test_auc_without_both_classes_is_nan_not_a_number_that_looks_measured():
    assert np.isnan(acceptance_auc([5, 6], [True, True]))
    assert np.isnan(acceptance_auc([5, 6], [False, False]))
    assert np.isnan(acceptance_auc([], []))
    assert acceptance_auc([7, 7, 5, 3], [True, False, True, False]) == pytest.approx(2.5 / 4)


def test_within_paper_sd_is_the_root_of_the_mean_variance():
    papers = [[4, 6], [5, 5, 8], [7]]  # S² = 2 and 3; the single score is left out
    assert pooled_variance(papers) == pytest.approx(2.5)
    assert within_paper_sd(papers) == pytest.approx(np.sqrt(2.5))
    assert np.isnan(within_paper_sd([[3]]))


def test_bootstrap_interval_by_hand():
    values = np.array([0.5, -1.0, 2.0, 0.0, 1.5])
    # The documented draw: 200 rows of 5 paper indices from default_rng(3).integers, row means,
    # 2.5th and 97.5th percentiles (numpy's default linear interpolation), written out here.
    rng = np.random.default_rng(3)
    means = sorted(sum(values[i] for i in rng.integers(0, 5, size=5)) / 5 for _ in range(200))
    def pct(q):
        pos = q * (len(means) - 1)
        lo = int(np.floor(pos))
        return means[lo] + (pos - lo) * (means[min(lo + 1, len(means) - 1)] - means[lo])
    assert bootstrap_mean_ci(values, n_resamples=200, seed=3) == pytest.approx((pct(0.025), pct(0.975)))
    assert all(np.isnan(bootstrap_mean_ci([], seed=1)))
