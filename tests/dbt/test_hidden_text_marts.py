"""The hidden-text marts built by real dbt over a hand-written lake (tests/dbt/hidden_text_lake.py says what
is in it): self Δ and judge Δ per method with and without the defence, the injection judge's counts, the
detector's recall, precision and false alarms, dim_papers' new columns, and the gates."""

import math

import pytest

from peerlake.expectations import run_gate
from tests.dbt.hidden_text_lake import O1, W1, W2, build_hidden_text_lake
from tests.dbt.test_marts import dbt_build
from tests.dbt.test_system_marts import rows

BOTH = "no paper with a predicted score on both versions"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("hidden_text_lake")
    build_hidden_text_lake(root / "lake")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DBT_INDIRECT_SELECTION", "cautious")
        db, _ = dbt_build(root / "lake", root, db=root / "marts.duckdb",
                          select="+hidden_text_effects +hidden_text_detector +dim_papers")
    return db


def test_self_and_judge_delta_per_method_with_and_without_the_defence(built):
    got = {(r["reviewer_config"], r["method"]): r for r in rows(built, "select * from hidden_text_effects")}
    a = got[("cfg-a", "white")]
    # own: W1 8 − B1 mean(5, 7) = 2; W2 5 − B2 4 = 1 → mean 1.5, SD sqrt((0.5² + 0.5²) / 1) = 0.7071
    assert (a["n_variants"], a["n_self_pairs"], a["is_defence"], a["reviewer"]) == (2, 2, False, "mlr")
    assert a["self_delta_mean"] == pytest.approx(1.5) and a["self_delta_sd"] == pytest.approx(math.sqrt(0.5))
    # predicted: W1 9 − B1 mean(5, 7) = 3; W2 mean(4, 6) − B2 4 = 1 → mean 2, SD sqrt((1 + 1) / 1) = 1.4142
    assert a["judge_config"] == "sp" and a["judge_delta_mean"] == pytest.approx(2.0)
    assert a["judge_delta_sd"] == pytest.approx(math.sqrt(2)) and a["judge_null_reason"] is None
    # judged: W1/0 yes, W1/1 no, W2/0 no, W2/1 no → 1 of 4 (the control judgment of B1 is not counted)
    assert (a["n_reviews_judged"], a["n_reviews_mentioning"], a["mention_share"]) == (4, 1, 0.25)
    every = got[("cfg-a", "all")]
    # + O1: 6 − 6 = 0 → deltas 2, 1, 0: mean 1, SD sqrt((1 + 0 + 1) / 2) = 1
    assert (every["n_self_pairs"], every["self_delta_mean"], every["self_delta_sd"]) == (3, 1.0, 1.0)
    assert (every["n_reviews_judged"], every["n_reviews_mentioning"]) == (5, 1)
    off = got[("cfg-a", "off_page")]
    assert off["self_delta_mean"] == 0.0 and off["self_delta_sd"] is None  # one paper: no SD
    # O1 has no predicted scores at all
    assert off["judge_delta_mean"] is None and off["judge_null_reason"] == BOTH
    d = got[("cfg-d", "white")]
    # W1 6 − B1 6 = 0; W2 5 − B2 4 = 1 → mean 0.5
    assert d["is_defence"] is True and d["self_delta_mean"] == pytest.approx(0.5)
    assert d["judge_delta_mean"] is None and d["judge_null_reason"] == BOTH
    assert (d["n_reviews_judged"], d["n_reviews_mentioning"]) == (1, 1)
    d_off = got[("cfg-d", "off_page")]  # no review of O1: null with the reason, never 0
    assert d_off["self_delta_mean"] is None
    assert d_off["self_null_reason"] == "no paper with an own score on both versions"
    assert d_off["n_reviews_mentioning"] is None and d_off["mention_null_reason"] is not None


def test_detector_recall_precision_and_false_alarms(built):
    got = {r["method"]: r for r in rows(built, "select * from hidden_text_detector")}
    white = got["white"]
    # W1, W2 in the package and flagged: recall 2/2; clean B1, B2, C with C flagged: false alarms 1/3;
    # precision = 2 / (2 + 1)
    assert (white["n_variants"], white["n_in_package"], white["n_detected"], white["recall"]) == (2, 2, 2, 1.0)
    assert (white["n_clean_papers"], white["n_false_alarm_papers"]) == (3, 1)
    assert white["false_alarm_rate"] == pytest.approx(1 / 3) and white["precision"] == pytest.approx(2 / 3)
    assert white["n_other_records_flagged"] == 1  # W2's second flagged record
    off = got["off_page"]
    assert (off["n_not_in_package"], off["recall"], off["recall_null_reason"]) == (
        1, None, "no injected text reached a package")
    assert got["all"]["n_variants"] == 3 and got["all"]["recall"] == 1.0


def test_dim_papers_names_each_variants_base_and_hidden_records(built):
    got = {r["paper_id"]: r for r in rows(built, "select paper_id, n_hidden_records, base_paper_id, variant_kind "
                                                "from dim_papers")}
    assert (got[W2]["n_hidden_records"], got[W2]["base_paper_id"], got[W2]["variant_kind"]) == (2, "B2", "hidden_text")
    assert (got["C"]["n_hidden_records"], got["C"]["base_paper_id"], got["C"]["variant_kind"]) == (1, None, None)
    assert got[O1]["base_paper_id"] == "B1" and got[W1]["n_hidden_records"] == 1


@pytest.mark.parametrize("suite", ["hidden_text_effects", "hidden_text_detector"])
def test_the_gates_pass_on_the_built_marts(built, suite):
    assert run_gate(suite, built).success
