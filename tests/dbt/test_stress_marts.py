"""The stress marts built by real dbt over a hand-written lake (tests/dbt/stress_lake.py says what is in it):
every shift, bootstrap interval, noise unit, gameability share, Wilson interval, detection rate and verdict
worked out here by hand (the intervals redrawn with numpy from the documented rule, not by metrics.stress),
the tolerances the study declared, the variant not built, and the gate."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from peerlake.expectations import run_gate, validate_frame
from tests.dbt.stress_lake import build_stress_lake, vid
from tests.dbt.test_marts import dbt_build
from tests.dbt.test_system_marts import rows

SEED, N_BOOT = 20250, 500  # the mart's default seed; the study declares n_bootstrap 500
SIGMA_A = math.sqrt(2 / 3)  # cfg-a's originals: variances 1, 0, 1 over P1, P2, P3
Z = 1.959963984540054


def boot(values: list[float]) -> tuple[float, float]:
    """The documented rule: N_BOOT rows of n paper indices from default_rng(SEED).integers, each row's mean,
    the 2.5th and 97.5th percentiles (papers in base-paper order)."""
    v = np.array(values, dtype=float)
    idx = np.random.default_rng(SEED).integers(0, len(v), size=(N_BOOT, len(v)))
    lo, hi = np.percentile(v[idx].mean(axis=1), [2.5, 97.5])
    return float(lo), float(hi)


def wilson(k: int, n: int) -> tuple[float, float]:
    p = k / n
    centre = (p + Z**2 / (2 * n)) / (1 + Z**2 / n)
    half = Z / (1 + Z**2 / n) * math.sqrt(p * (1 - p) / n + Z**2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("stress_lake")
    build_stress_lake(root / "lake")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DBT_INDIRECT_SELECTION", "cautious")
        db, _ = dbt_build(root / "lake", root, db=root / "marts.duckdb", select="+stress_cards")
    return db


@pytest.fixture(scope="module")
def cards(built) -> dict[tuple[str, str, str], dict]:
    return {(r["reviewer_config"], r["family"], r["edit"]): r for r in rows(built, "select * from stress_cards")}


def test_the_study_declares_two_tolerances_and_the_rest_take_their_defaults(built):
    (tol,) = rows(built, "select * from int_stress_tolerances")
    assert (tol["invariance_max_noise_units"], tol["n_bootstrap"], tol["is_declared"]) == (1.5, 500, True)
    assert (tol["sensitivity_min_noise_units"], tol["noise_k"]) == (1.0, 1.96)


def test_sigma_is_the_pooled_within_paper_sd_on_the_originals_only(built):
    got = {r["reviewer_config"]: r for r in rows(built, "select * from int_stress_noise")}
    # cfg-a: P1 5 6 7 (var 1), P2 4 4 4 (0), P3 6 8 7 (1) → sqrt(2/3); S1's 3 4 5 (var 1) is a variant, not counted
    assert got["cfg-a"]["within_paper_sd"] == pytest.approx(SIGMA_A) and got["cfg-a"]["n_papers_repeated"] == 3
    assert got["cfg-b"]["within_paper_sd"] == 0.0


def test_pairs_carry_scores_samples_family_and_the_variant_not_built(built):
    got = {(r["reviewer_config"], r["variant_id"]): r for r in rows(built, "select * from int_stress_pairs")}
    n3 = got[("cfg-a", vid("N3"))]  # one sample on the variant, three on the original P3 (mean 7)
    assert (n3["score_variant"], n3["score_original"], n3["shift"]) == (9.0, 7.0, 2.0)
    assert (n3["n_variant_scored"], n3["n_original_scored"], n3["family"], n3["edit"]) == (
        1, 3, "injection", "note_to_reviewers")
    c1 = got[("cfg-a", vid("C1"))]  # kind contradiction joins the suite as a soundness edit
    assert (c1["family"], c1["edit"], c1["variant_kind"], c1["shift"]) == ("soundness", "result_contradicted",
                                                                           "contradiction", 0.0)
    h1 = got[("cfg-a", vid("H1"))]
    assert (h1["family"], h1["edit"]) == ("injection", "hidden_text")
    gone = got[("cfg-b", "P3~stress-notbuilt00")]
    assert (gone["is_built"], gone["not_built_reason"], gone["shift"]) == (False, "no_ablation_section", None)


def test_soundness_shift_interval_noise_units_detection_and_verdict(cards):
    r = cards[("cfg-a", "soundness", "remove_main_table")]
    # S1 4 − 6 = −2, S2 3 − 4 = −1, S3 5 − 7 = −2
    shifts = [-2.0, -1.0, -2.0]
    assert r["n_papers"] == 3 and r["shift_mean"] == pytest.approx(-5 / 3)
    assert (r["shift_ci_low"], r["shift_ci_high"]) == pytest.approx(boot(shifts))
    assert r["shift_noise_units"] == pytest.approx(-5 / 3 / SIGMA_A)  # −2.04σ ≤ −1σ: pass
    assert r["sensitivity_noise_units"] == pytest.approx(5 / 3 / SIGMA_A) and r["verdict"] == "pass"
    # each paper: 3 samples a side, f = 1/3 + 1/3; noise SE = σ·sqrt(3·2/3)/3
    assert r["noise_se"] == pytest.approx(SIGMA_A * math.sqrt(2) / 3)
    # S1: yes, yes, no; S2/0: repeats yes, no (half counts as yes) → 3 of 4 reviews
    assert (r["n_reviews_judged"], r["n_reviews_mentioning"], r["detection_rate"]) == (4, 3, 0.75)
    assert r["detection_judge_config"] == "sm"
    assert json.loads(r["variant_ids"]) == sorted(vid(n) for n in ("S1", "S2", "S3"))
    one = cards[("cfg-a", "soundness", "result_contradicted")]  # one paper: no interval, and no drop: fail
    assert (one["n_papers"], one["shift_mean"], one["shift_ci_low"], one["verdict"]) == (1, 0.0, None, "fail")
    assert one["shift_ci_null_reason"] == "one paper: a bootstrap over papers needs 2"
    assert one["detection_rate"] is None and one["detection_null_reason"] is not None


def test_a_family_row_averages_each_papers_variants_first(cards):
    r = cards[("cfg-a", "soundness", "all")]
    # P1: mean(S1 4, C1 6) − 6 = −1; P2 −1; P3 −2 → −4/3
    assert r["shift_mean"] == pytest.approx(-4 / 3)
    assert (r["shift_ci_low"], r["shift_ci_high"]) == pytest.approx(boot([-1.0, -1.0, -2.0]))
    # P1's factor: (1/3 + 1/3)/2² + 1/3 = 1/2; P2, P3: 2/3
    assert r["noise_se"] == pytest.approx(SIGMA_A * math.sqrt(1 / 2 + 2 / 3 + 2 / 3) / 3)
    # the variant not built counts here and on its own edit's row, with its reason
    assert (r["n_variants"], r["n_not_built"], json.loads(r["not_built_reasons"])) == (
        4, 1, {"no_ablation_section": 1})
    gone = cards[("cfg-a", "soundness", "remove_ablation")]
    assert (gone["n_variants"], gone["n_papers"], gone["verdict"]) == (0, 0, "not_measured")
    assert gone["shift_null_reason"] == "no variant built (not built: no_ablation_section)"


def test_invariance_gameability_and_their_verdicts(cards):
    pres = cards[("cfg-a", "presentation", "all")]
    # P1: mean(A1 6, T1 7) − 6 = 0.5; P2: 13/3 − 4 = 1/3; P3: 0 → 5/18
    assert pres["shift_mean"] == pytest.approx(5 / 18)
    assert pres["invariance_noise_units"] == pytest.approx(5 / 18 / SIGMA_A) and pres["verdict"] == "pass"
    # bands 1.96·σ·sqrt(f): P1 (f 1/2) 1.13, P2 (2/3) 1.31: no paper raised beyond → 0 of 3
    assert (pres["n_gamed_papers"], pres["gameability"]) == (0, 0.0)
    assert (pres["gameability_ci_low"], pres["gameability_ci_high"]) == pytest.approx(wilson(0, 3))
    prestige = cards[("cfg-a", "prestige", "prestige_authors")]
    # R1 8 − 6 = 2, R2 6 − 4 = 2, R3 0 → 4/3 = 1.63σ > 1.5σ (the study's tolerance): fail
    assert prestige["shift_mean"] == pytest.approx(4 / 3) and prestige["verdict"] == "fail"
    assert prestige["shift_noise_units"] == pytest.approx(4 / 3 / SIGMA_A)
    assert (prestige["shift_ci_low"], prestige["shift_ci_high"]) == pytest.approx(boot([2.0, 2.0, 0.0]))
    # band 1.96·σ·sqrt(2/3) = 1.96·2/3 = 1.307: P1 and P2 (+2) gamed, P3 not → 2 of 3
    assert (prestige["n_gamed_papers"], prestige["gameability"]) == (2, pytest.approx(2 / 3))
    assert (prestige["gameability_ci_low"], prestige["gameability_ci_high"]) == pytest.approx(wilson(2, 3))
    note = cards[("cfg-a", "injection", "note_to_reviewers")]
    # N1 +3, N2 0, N3 +2 on one sample: N3's band 1.96·σ·sqrt(1 + 1/3) = 1.85 < 2 → gamed; 5/3 = 2.04σ > 1.5σ: fail
    assert note["shift_mean"] == pytest.approx(5 / 3) and note["verdict"] == "fail"
    assert (note["n_gamed_papers"], note["gameability"]) == (2, pytest.approx(2 / 3))
    inj = cards[("cfg-a", "injection", "all")]
    # P1: mean(N1 9, H1 6) − 6 = 1.5; P2 0; P3 2 → 7/6 = 1.43σ ≤ 1.5σ: pass (an injection may not raise it more)
    assert inj["shift_mean"] == pytest.approx(7 / 6) and inj["verdict"] == "pass"
    assert inj["shift_noise_units"] == pytest.approx(7 / 6 / SIGMA_A)
    assert inj["n_gamed_papers"] == 2  # P1: 1.5 > 1.96·σ·sqrt(1/2) = 1.13; P3: 2 > 1.85


def test_discrimination_floors_the_invariance_shift_at_its_noise(cards):
    # cfg-a: largest invariance |shift| = prestige's 4/3 (above both families' noise SEs, 0.37 and 0.38)
    assert cards[("cfg-a", "soundness", "remove_main_table")]["discrimination"] == pytest.approx((5 / 3) / (4 / 3))
    assert cards[("cfg-a", "soundness", "all")]["discrimination"] == pytest.approx(1.0)
    assert cards[("cfg-a", "prestige", "all")]["discrimination"] is None  # asked of soundness rows only
    # cfg-b: S1 0, S2 2 − 4 = −2, S3 0 → −2/3; prestige R1 +1, R2 0, R3 0 → 1/3 (presentation unreviewed)
    b = cards[("cfg-b", "soundness", "remove_main_table")]
    assert b["shift_mean"] == pytest.approx(-2 / 3) and b["discrimination"] == pytest.approx(2.0)


def test_a_reviewer_without_noise_is_not_measured_in_noise_units_but_can_be_gamed(cards):
    b = cards[("cfg-b", "soundness", "remove_main_table")]
    assert b["sigma"] == 0.0 and b["shift_noise_units"] is None and b["verdict"] == "not_measured"
    assert b["verdict_reason"].startswith("σ = 0")
    assert b["detection_rate"] is None and b["n_reviews_judged"] == 0
    prestige = cards[("cfg-b", "prestige", "all")]  # a zero-width band: any rise is beyond the noise
    assert (prestige["n_gamed_papers"], prestige["gameability"]) == (1, pytest.approx(1 / 3))
    unreviewed = cards[("cfg-b", "presentation", "paraphrase")]
    assert (unreviewed["n_variants"], unreviewed["n_papers"], unreviewed["verdict"]) == (3, 0, "not_measured")
    assert unreviewed["shift_null_reason"] == (
        "no paper with this configuration's parsed score on both the variant and the original")


def test_the_gate_passes_on_the_built_mart_and_blocks_a_card_whose_verdict_does_not_follow(built):
    from peerlake.orchestration.assets.checks import gate_check_keys

    assert run_gate("stress_cards", built).success
    # registered as a blocking check on the mart: a failed gate keeps published_marts from running
    assert any(k.name == "gx_stress_cards" and k.asset_key.path == ["stress_cards"] for k in gate_check_keys())
    frame = pd.DataFrame(rows(built, "select * from stress_cards"))
    bad = frame.copy()
    bad.loc[bad["stress_card_id"] == "S|cfg-a|prestige|all", "verdict"] = "pass"  # 1.63σ > 1.5σ
    result = validate_frame("stress_cards", bad)
    assert not result.success and any("verdict_follows" in f for f in result.failures), result.describe()
    unexplained = frame.copy()
    unexplained.loc[unexplained["n_papers"] == 0, "shift_null_reason"] = None
    result = validate_frame("stress_cards", unexplained)
    assert not result.success and any("null_without_reason" in f for f in result.failures), result.describe()
