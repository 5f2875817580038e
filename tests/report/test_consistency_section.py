"""The report's semantic-consistency section on a hand-made mart: the model named with its deviation, the
table's rows with their intervals, a figure, and a note (not a crash) when the mart is missing or empty.
(The section over a real dbt build: tests/embeddings/test_review_consistency_mart.py.)"""

import pandas as pd

from peerlake.report import consistency
from peerlake.report.data import ReportData


def _row(pol, kind, a, b, mean, lo, hi):
    return {"study_id": "s", "review_consistency_id": f"s|{pol}|{kind}|{a}|{b}", "polarity": pol, "kind": kind,
            "config_a": a, "config_b": b, "label_a": "tmpl · m" if a != "*" else "*",
            "label_b": "tmpl · m" if b != "*" else "*", "n_papers": 3, "n_pairs": 9, "s_mean": mean, "s_ci_low": lo,
            "s_ci_high": hi, "n_resamples": 5000, "embedding_model": "sentence-transformers/all-MiniLM-L6-v2",
            "embedding_model_hash": "9ad53ef8955d1827", "n_embeddings_computed": 40, "n_embeddings_cached": 2}


MART = pd.DataFrame([_row("strength", "within", "cfgA1234567", "cfgA1234567", 0.61, 0.55, 0.66),
                     _row("strength", "within", "*", "*", 0.61, 0.55, 0.66),
                     _row("strength", "cross", "*", "*", 0.42, 0.38, 0.47),
                     _row("concern", "within", "*", "*", 0.70, 0.64, 0.75),
                     _row("concern", "cross", "*", "*", 0.52, 0.47, 0.58)])


def test_section_names_the_model_and_its_deviation_and_shows_intervals():
    page = consistency.section(ReportData({"review_consistency": MART}), {})
    assert "sentence-transformers/all-MiniLM-L6-v2" in page and "all-mpnet-base-v2" in page
    assert "40 item texts embedded in this build, 2 read from the vector store" in page
    assert "0.610 [0.550, 0.660]" in page and "0.520 [0.470, 0.580]" in page
    assert "tmpl · m · cfgA1234" in page and "all configurations" in page
    assert page.count("<img") == 1


def test_missing_or_empty_mart_is_a_note():
    missing = consistency.section(ReportData({}, {"review_consistency": "is not there"}), {})
    assert "Consistency: not shown" in missing and "<code>review_consistency</code> is not there" in missing
    empty = consistency.section(ReportData({"review_consistency": MART.iloc[0:0]}), {})
    assert "not measured" in empty and "<img" not in empty
