"""The report shows the system's validity and score-prediction figures beside the trivial baselines."""

import pandas as pd

from peerlake.report.build import _validity_baselines
from peerlake.report.score_prediction import _baselines


def test_validity_baselines_table_shows_system_and_baselines():
    v = pd.DataFrame([{"reviewer_config": "c1", "scope": "all", "mae": 1.25, "baseline_constant_mae": 1.5,
                       "pearson": 0.4, "baseline_length_pearson": 0.1, "acceptance_auc": 0.7,
                       "baseline_constant_auc": 0.5, "baseline_length_auc": 0.55, "baseline_human_mean_auc": 0.9,
                       "acceptance_accuracy": 0.6, "baseline_human_threshold_accuracy": 0.88,
                       "baseline_human_threshold": 6.0}])
    html = _validity_baselines(v, {"c1": "config one"})
    for text in ("config one", "MAE of the constant", "1.50", "AUC of the human mean", "0.90", "0.88"):
        assert text in html
    assert _validity_baselines(v.drop(columns="baseline_constant_mae"), {}) == ""  # an older mart: nothing


def test_score_prediction_baselines_table():
    corr = pd.DataFrame([{"source": "peerlake", "reviewer": "r1", "venue": "V", "venue_year": 2025, "mae": 1.0,
                          "baseline_constant_mae": 2.0, "spearman": 0.5, "baseline_length_spearman": None}])
    html = _baselines(corr, {"r1": "reviewer one"})
    assert "reviewer one" in html and "<td>1.00</td><td>2.00</td><td>0.50</td><td>—</td>" in html
