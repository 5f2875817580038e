"""The report's review-quality section: rendered from the quality_comparison mart, one line for a study
without judgments, a note (not a crash) for a warehouse built before the mart existed."""

import duckdb
import pandas as pd
import pytest

from peerlake.metrics.quality.comparison import comparison_table
from peerlake.report import render_report
from tests.metrics.quality.test_quality_comparison import _lake_frame


def _scores(study: str) -> pd.DataFrame:
    return pd.DataFrame({"study_id": [study] * 2, "reviewer_config": ["cfgA"] * 2,
                         "prompt_template": ["reviewer_scoring"] * 2, "model": ["m"] * 2, "paper_id": ["P01", "P02"],
                         "overall_score": [5.0, 6.0], "is_parsed": [True, True]})


def _warehouse(path, tables: dict[str, pd.DataFrame]):
    with duckdb.connect(str(path)) as con:
        for name, df in tables.items():
            con.register("df", df)
            con.execute(f"create table {name} as select * from df")
            con.unregister("df")
    return path


@pytest.fixture
def db(tmp_path):
    quality = comparison_table(_lake_frame(), n_resamples=500)  # study "s": cfgA tested on doa and ncps
    return _warehouse(tmp_path / "w.duckdb", {"fct_ai_review_scores": pd.concat([_scores("s"), _scores("t")]),
                                              "quality_comparison": quality})


def test_section_renders_the_profile_and_the_comparison(db):
    page = render_report(db, "s")
    assert "<h2>Review quality against the human reviews</h2>" in page
    assert page.count('alt="quality profile per system"') == 1
    # doa of cfgA (hand-worked in tests/metrics/quality): difference 0.065, p = 2/4096 → "< 0.001", δ = 1
    assert "<td>0.065 [" in page and "<td>1.00 (large)</td>" in page and "<td>&lt; 0.001</td>" in page
    assert "<td>fewer_than_10_pairs</td>" in page and "<td>all_differences_zero</td>" in page
    assert "500 resamples, seed 42" in page
    assert "reviewer_scoring · m · cfgA" in page  # peerlake systems by their configuration label
    assert "No judgments in this study" not in page


def test_a_study_without_judgments_gets_one_line(db):
    page = render_report(db, "t")
    assert "<h2>Review quality against the human reviews</h2><p>No judgments in this study.</p>" in page
    assert "quality profile per system" not in page


def test_only_skipped_rows_still_render(tmp_path):
    frame = _lake_frame()
    few = frame[frame["paper_id"].isin(["P01", "P02", "P03"])]  # 3 pairs: means only, no intervals
    db = _warehouse(tmp_path / "w.duckdb", {"fct_ai_review_scores": _scores("s"),
                                            "quality_comparison": comparison_table(few, n_resamples=100)})
    page = render_report(db, "s")
    assert page.count('alt="quality profile per system"') == 1
    body = page.split("Review quality against")[1].split("</th></tr>")[1]  # the table's rows
    assert "<td>—</td>" in body and "[" not in body


def test_a_warehouse_without_the_mart_notes_it(tmp_path):
    db = _warehouse(tmp_path / "w.duckdb", {"fct_ai_review_scores": _scores("s")})
    page = render_report(db, "s")
    assert ("Review quality: not shown — the warehouse's <code>quality_comparison</code> is not there (built before "
            "this mart existed); <code>peerlake build</code> brings it up to date.") in page


def test_judged_reviews_are_shown_without_any_system_to_compare(tmp_path):
    """A study that judged only human reviews: each judge's headline metrics per source, n per metric (the
    quality_sources mart's rows: 3 human reviews judged, doa on 2 of them, mcs on none)."""
    sources = pd.DataFrame({"study_id": ["t"] * 2, "quality_source_id": ["t|human|depth|doa", "t|human|c|mcs"],
                            "reviewed_by": ["human"] * 2, "source": ["human"] * 2, "system": [None] * 2,
                            "judge": ["depth", "constructiveness"], "metric": ["doa", "mcs"],
                            "n_reviews_judged": [3, 3], "n_values": [2, 0], "mean_value": [0.3, None]})
    db = _warehouse(tmp_path / "w.duckdb", {"fct_ai_review_scores": _scores("t"), "quality_sources": sources,
                                            "quality_comparison": comparison_table(_lake_frame(), n_resamples=100)})
    page = render_report(db, "t").split("Review quality against the human reviews</h2>")[1]
    assert "<td>human</td><td>3</td><td>0.300 (n=2)</td>" in page  # doa's mean over the two with a value
    assert "Constructiveness: MCS" not in page.split("</table>")[0]  # a metric no review has is not a column
    assert "No system reviews paired with human ones in this study." in page
    assert "No judgments in this study" not in page
