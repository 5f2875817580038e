"""The report's focus section on hand-made mart frames: a missing or empty mart says "not measured" and why,
a system without weaknesses shows its reason instead of a number, and the bars draw every reviewer."""

import pandas as pd

from peerlake.report.data import ReportData
from peerlake.report.focus import section


def _dist() -> pd.DataFrame:
    rows = []
    for cfg, label in (("human", "human"), ("cfg-a", "mlr")):
        for pol in ("strength", "weakness"):
            for dim, cats in (("target", ("method", "paper")), ("aspect", ("validity", "novelty"))):
                total = 0 if (cfg == "cfg-a" and pol == "weakness") else 2
                for cat in cats:
                    rows.append({"study_id": "S", "focus_distribution_id": f"S|{cfg}|{pol}|{dim}|{cat}",
                                 "reviewer_config": cfg, "reviewer_label": label, "polarity": pol, "dimension": dim,
                                 "label": cat, "n_items": total // 2, "n_items_total": total,
                                 "share": 0.5 if total else None, "n_reviews": 1, "n_reviews_labelled": 1,
                                 "n_taxonomies": 1})
    return pd.DataFrame(rows)


def _div() -> pd.DataFrame:
    return pd.DataFrame([{"study_id": "S", "focus_divergence_id": "S|cfg-a", "reviewer_config": "cfg-a",
                          "reviewer_label": "mlr", "kl_strength_target": 0.0, "kl_strength_aspect": 0.0,
                          "kl_weakness_target": None, "kl_weakness_aspect": None, "kl_mean": None,
                          "null_reason": "no_system_items:weakness"}])


def test_missing_and_empty_marts_are_not_measured_never_zero():
    page = section(ReportData(missing={"focus_distributions": "is not there"}), {})
    assert "Focus: not shown" in page and "<code>focus_distributions</code> is not there" in page and "<img" not in page
    page = section(ReportData(tables={"focus_distributions": _dist().iloc[0:0]}), {})
    assert "not measured: no focus judgments in this study" in page


def test_bars_and_the_kl_table_with_a_reason_where_a_component_is_missing():
    page = section(ReportData(tables={"focus_distributions": _dist(), "focus_divergence": _div()}), {})
    assert page.count("<img") == 1
    assert page.count("<td>0.000</td>") == 2
    assert page.count("not measured: no_system_items:weakness") == 3  # two components and the mean
    page = section(ReportData(tables={"focus_distributions": _dist()}, missing={"focus_divergence": "not built"}),
                   {"cfg-a": "mlr · gpt · cfg-a"})
    assert "KL divergence from the human reviews: <span class='nm'>not measured: not built" in page
