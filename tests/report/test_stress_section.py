"""The report's stress-suite section on hand-made stress_cards frames: n beside every statistic, the small-sample
warning, a calls link per row, "not measured" with the reason (never 0), variants not built with theirs, and
the section wired into the page."""

import json

import pandas as pd

from peerlake.report import build
from peerlake.report.data import EXPERIMENT_SECTIONS, ReportData, all_needs
from peerlake.report.stress import MART, section

TOL = {"invariance_max_noise_units": 1.5, "sensitivity_min_noise_units": 1.0, "noise_k": 1.96, "n_bootstrap": 500}
NULLS = {"shift_ci_null_reason": None, "shift_null_reason": None, "sigma_null_reason": None,
         "discrimination": None, "discrimination_null_reason": None, "n_gamed_papers": None, "gameability": None,
         "gameability_ci_low": None, "gameability_ci_high": None, "gameability_null_reason": None,
         "n_reviews_judged": None, "n_reviews_mentioning": None, "detection_rate": None,
         "detection_null_reason": None, "not_built_reasons": None, "n_not_built": 0}


def _row(family: str, edit: str, **values) -> dict:
    return {"study_id": "S", "stress_card_id": f"S|cfg-a|{family}|{edit}", "reviewer_config": "cfg-a",
            "reviewer": "stressed", "family": family, "edit": edit, "n_variants": 3, "n_papers": 3, "sigma": 0.82,
            "n_sigma_papers": 3, **TOL, **NULLS, **values}


def _cards() -> pd.DataFrame:
    return pd.DataFrame([
        _row("soundness", "all", shift_mean=-1.33, shift_ci_low=-2.0, shift_ci_high=-1.0, shift_noise_units=-1.63,
             discrimination=1.0, n_reviews_judged=4, n_reviews_mentioning=3, detection_rate=0.75, n_not_built=1,
             not_built_reasons=json.dumps({"no_ablation_section": 1}), verdict="pass",
             verdict_reason="shift -1.63σ, sensitivity needs ≤ -1.00σ"),
        _row("soundness", "remove_ablation", n_variants=0, n_papers=0, shift_mean=None, shift_ci_low=None,
             shift_ci_high=None, shift_noise_units=None, n_not_built=1,
             not_built_reasons=json.dumps({"no_ablation_section": 1}),
             shift_null_reason="no variant built (not built: no_ablation_section)",
             shift_ci_null_reason="no variant built (not built: no_ablation_section)",
             discrimination_null_reason="no variant built (not built: no_ablation_section)", n_reviews_judged=0,
             detection_null_reason="no review of these variants read by the mention judge", verdict="not_measured",
             verdict_reason="no variant built (not built: no_ablation_section)"),
        _row("prestige", "all", shift_mean=1.33, shift_ci_low=0.0, shift_ci_high=2.0, shift_noise_units=1.63,
             n_gamed_papers=2, gameability=2 / 3, gameability_ci_low=0.21, gameability_ci_high=0.94, verdict="fail",
             verdict_reason="|shift| 1.63σ, invariance allows at most 1.50σ"),
    ])


def test_each_statistic_has_its_n_and_each_row_its_calls():
    page = section(ReportData(tables={MART: _cards()}), {"cfg-a": "stressed · m · cfg-a"})
    assert "<h3>stressed · m · cfg-a</h3>" in page
    assert "-1.33 [-2.00, -1.00] <small>(n=3)</small>" in page  # shift, interval and its papers
    assert "σ = 0.82 <small>(n=3 original papers)</small>" in page
    assert "discrimination 1.00 <small>(n=3)</small>" in page
    assert "2 of 3 (67%) [21%, 94%]" in page  # gameability as papers gamed of papers
    assert "3 of 4 reviews" in page  # detection
    assert "<b>fail</b>" in page and "invariance ≤ 1.50σ" in page
    table, audit = page.split("<details", 1)
    assert table.count("class='calls'") == 3  # one viewer link per card row, and the audit commands below
    assert "peerlake audit &#x27;stress_cards:S|cfg-a|prestige|all&#x27;" in audit
    assert "stress_cards%3AS%7Ccfg-a%7Cprestige%7Call" in page
    assert "Small sample" in page and "3 papers" in page


def test_not_measured_and_not_built_say_why_never_zero():
    page = section(ReportData(tables={MART: _cards()}), {})
    assert "not measured: no variant built (not built: no_ablation_section)" in page
    assert "1: no_ablation_section (1)" in page
    assert "<h3>stressed · cfg-a</h3>" in page  # the reviewer's name when the page has no label for it
    empty = section(ReportData(tables={MART: _cards().iloc[0:0]}), {})
    assert "not measured in this study" in empty and "[stress]" in empty
    absent = section(ReportData(missing={MART: "is not there"}), {})
    assert "Stress suite: not shown" in absent


def test_the_section_is_on_the_page_and_its_columns_are_loaded():
    assert "stress" in EXPERIMENT_SECTIONS and set(all_needs()[MART]) <= set(_cards().columns)
    assert section in build.SECTIONS
