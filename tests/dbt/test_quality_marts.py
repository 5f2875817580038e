"""One real `dbt build` over hand-made judgments (tests/dbt/quality_lake.py); every PRISM score in the
quality marts is checked against a number worked out by hand in the comments here, and the gates
against a tampered copy."""

import math
import shutil

import duckdb
import pytest

from peerlake.expectations import run_gate
from tests.dbt.quality_lake import (
    CONSTRUCTIVE,
    DEPTH,
    E1,
    E1B,
    FLAWS,
    H1,
    H2,
    H3,
    H4,
    H5,
    NOVELTY,
    build_quality_lake,
)
from tests.dbt.test_marts import dbt_build

QUALITY_GATES = ("quality_depth", "quality_depth_aspects", "quality_novelty", "quality_flaws",
                 "quality_constructiveness", "quality_judge_repeatability")
LOG2_3 = math.log2(3)  # 1.5849625007211563


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("quality")
    lake = build_quality_lake(root / "lake")
    db, _ = dbt_build(root / "lake", root, db=root / "marts.duckdb")
    return lake, db


def rows(db, sql: str, *params) -> list[dict]:
    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute(sql, list(params))
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def one(db, table: str, key: str) -> dict:
    id_column = "judge_repeatability_id" if table == "quality_judge_repeatability" else f"{table}_id"
    [row] = rows(db, f"select * from {table} where {id_column} = ?", key)
    return row


def ids(lake, *labels) -> list[str]:
    return [lake.judgments[label].event_id for label in labels]


# ---- depth -------------------------------------------------------------------------------------

def test_depth_doa_is_the_mean_over_repeats_with_its_sd(built):
    lake, db = built
    r = one(db, "quality_depth", f"q|{DEPTH}|{H1}")
    # repeat 0: claim, premise g2, premise g1, premise (grounding skipped) -> R = 3/4;
    #   S = mean(2, 1) / 2 = 0.75 (the skipped premise is in R, not S); DoA = 2·.75·.75 / 1.5 = 0.75
    # repeat 1: claim, premise g2 -> R = 1/2, S = 1; DoA = 2·.5·1 / 1.5 = 2/3
    # (the older repeat-0 judgment, one premise g0, is superseded and counts nowhere)
    assert r["doa"] == pytest.approx((0.75 + 2 / 3) / 2)  # 17/24
    assert r["doa_sd"] == pytest.approx((0.75 - 2 / 3) / math.sqrt(2))  # |a − b| / √2 for two values
    assert r["premise_ratio"] == pytest.approx((0.75 + 0.5) / 2)
    assert r["grounding_norm"] == pytest.approx((0.75 + 1.0) / 2)
    assert (r["n_units"], r["n_premises"], r["n_premises_grounded"]) == (3.0, 2.0, 1.5)  # (4+2)/2, (3+1)/2, (2+1)/2
    assert (r["n_repeats"], r["n_repeats_scored"], r["is_null"], r["null_reason"]) == (2, 2, False, None)
    assert (r["source"], r["system"], r["paper_id"]) == ("human", "human", "P1")
    assert r["fields_used"] == "summary,strengths,weaknesses"
    assert r["judge_model"] == "qwen-1.5b"
    assert r["judgment_ids"] == ids(lake, "d_h1_r0", "d_h1_r1")


def aspects(db, study: str, review: str) -> list[dict]:
    return rows(db, "select * from quality_depth_aspects where study_id = ? and judge_config = ? and review_key = ?"
                    " order by aspect_order", study, DEPTH, review)


def test_depth_aspect_shares_over_units_and_over_premises(built):
    _, db = built
    r = aspects(db, "q", H1)
    # H1's judgments recorded no taxonomy (parser depth-1): prism-reference's four aspects, in its file's order
    assert [(a["aspect"], a["aspect_order"], a["depth_taxonomy"]) for a in r] == [
        ("soundness", 1, "prism-reference"), ("clarity", 2, "prism-reference"),
        ("contribution", 3, "prism-reference"), ("other", 4, "prism-reference")]
    # units  r0: soundness 2/4, clarity 1/4, contribution 1/4, other 0;  r1: soundness 1/2, other 1/2
    # premises r0: soundness, clarity, contribution 1/3 each;             r1: soundness 1
    assert [a["share_units"] for a in r] == pytest.approx([0.5, 0.125, 0.125, 0.25])
    assert [a["share_premises"] for a in r] == pytest.approx([(1 / 3 + 1) / 2, 1 / 6, 1 / 6, 0.0])
    assert {a["n_repeats_scored"] for a in r} == {2}
    # H2: two claims, no premise -> no share over premises; not-judged and null reviews have no rows
    assert [(a["share_units"], a["share_premises"]) for a in aspects(db, "q", H2)] == [
        (0.5, None), (0.5, None), (0.0, None), (0.0, None)]
    assert aspects(db, "q", H3) == [] and aspects(db, "q", lake_k1(db)) == []


def lake_k1(db) -> str:
    (r,) = rows(db, "select review_key from quality_depth where review_key like 'peerlake:%' and study_id = 'q'")
    return r["review_key"]


def test_depth_shows_what_the_cap_cut_and_the_taxonomy(built):
    _, db = built
    h2 = one(db, "quality_depth", f"q|{DEPTH}|{H2}")
    # 15 units answered under a cap of 12: 3 cut (dropped over_max_units), the cap reached
    assert (h2["units_cap"], h2["n_units_cut_by_cap"], h2["is_cap_reached"]) == (12, 3.0, True)
    assert h2["depth_taxonomy"] == "prism-reference"
    # H1's depth-1 judgments: the cap was 12, nothing recorded over it, whether the answer filled it unknown
    h1 = one(db, "quality_depth", f"q|{DEPTH}|{H1}")
    assert (h1["units_cap"], h1["n_units_cut_by_cap"], h1["is_cap_reached"], h1["depth_taxonomy"]) == (
        12, 0.0, None, "prism-reference")
    # a review nobody judged has no count
    h3 = one(db, "quality_depth", f"q|{DEPTH}|{H3}")
    assert (h3["n_units_cut_by_cap"], h3["depth_taxonomy"]) == (None, None)


def test_depth_r_plus_s_zero_is_zero_and_a_repeat_beyond_the_study_is_not_its_own(built):
    _, db = built
    r = one(db, "quality_depth", f"q|{DEPTH}|{H2}")
    # two claims, no premise: R = 0/2 = 0, S = 0 (no grounded premise) -> R + S = 0 -> DoA 0, not null.
    # Its repeat-2 judgment (one premise g2, DoA 1) is beyond q's 2 repeats.
    assert (r["doa"], r["premise_ratio"], r["grounding_norm"]) == (0.0, 0.0, 0.0)
    assert (r["n_repeats"], r["doa_sd"], r["is_null"]) == (1, None, False)


def test_depth_null_paths(built):
    lake, db = built
    no_units = one(db, "quality_depth", f"q|{DEPTH}|{lake.k1}")
    assert (no_units["doa"], no_units["is_null"], no_units["null_reason"]) == (None, True, "no_units")
    assert (no_units["n_repeats"], no_units["n_repeats_scored"]) == (1, 0)
    assert (no_units["source"], no_units["system"]) == ("peerlake", lake.k1_config)
    # H3: listed, never judged. E1: judged only under another configuration, which q does not use.
    for review, system in [(H3, "human"), (E1, "X")]:
        r = one(db, "quality_depth", f"q|{DEPTH}|{review}")
        assert (r["doa"], r["null_reason"], r["n_repeats"], r["judgment_ids"]) == (None, "not_judged", 0, [])
        # named from the review's own event: no judgment describes it
        assert (r["paper_id"], r["system"]) == ("P1", system)
    # a judged review no study lists has no row
    assert rows(db, "select * from quality_depth where review_key = 'human:H9'") == []


def test_depth_keeps_studies_apart(built):
    lake, db = built
    # study `other` counts 1 repeat of H1: repeat 0 alone, DoA 0.75
    r = one(db, "quality_depth", f"other|{DEPTH}|{H1}")
    assert (r["doa"], r["n_repeats"], r["judgment_ids"]) == (pytest.approx(0.75), 1, ids(lake, "d_h1_r0"))
    assert {x["study_id"] for x in rows(db, "select study_id from quality_depth")} == {"q", "other"}


# ---- constructiveness --------------------------------------------------------------------------

def test_constructiveness_mcs_and_shares(built):
    _, db = built
    r = one(db, "quality_constructiveness", f"q|{CONSTRUCTIVE}|{H1}")
    # comments (a, s, j, sol, t): (2,2,1,2,1) = 8 -> CLC .8; (1,1,1,0,1) = 4 -> .4; (0,2,2,1,1) = 6 -> .6
    # MCS = (.8 + .4 + .6) / 3 = .6; actionability >= 1: 2 of 3; solution = 2: 1 of 3;
    # CLC >= .6: .8 and .6 (the edge counts) -> 2 of 3
    assert r["mcs"] == pytest.approx(0.6)
    assert (r["share_actionable"], r["share_solution"], r["share_clc_06"]) == pytest.approx((2 / 3, 1 / 3, 2 / 3))
    assert (r["n_comments"], r["mcs_sd"], r["is_null"]) == (3.0, None, False)
    empty = one(db, "quality_constructiveness", f"q|{CONSTRUCTIVE}|{H2}")
    assert (empty["mcs"], empty["share_actionable"], empty["null_reason"]) == (None, None, "no_comments")


# ---- novelty -----------------------------------------------------------------------------------

def claims(db, review: str) -> dict[int, dict]:
    found = rows(db, "select * from int_quality_novelty_claims where study_id = 'q' and review_key = ?", review)
    return {c["claim_index"]: c for c in found}


def test_novelty_claim_score_is_relevance_weighted_over_the_three_most_relevant_verdicts(built):
    _, db = built
    c = claims(db, H1)
    # claim 0: E (r .95) has no verdict; the top 3 with a verdict are A .9 (+2), B .6 (+1), C .3 (−2);
    # D .1 (+2) is 4th. s_c = (.9·2 + .6·1 − .3·2) / (.9 + .6 + .3) = 1.8 / 1.8 = 1
    # (unweighted it would be (2 + 1 − 2) / 3 = 1/3)
    assert c[0]["claim_score"] == pytest.approx(1.0)
    assert (c[0]["top_candidate_ids"], c[0]["n_top_candidates"], c[0]["n_verdicts"]) == (["A", "B", "C"], 3, 4)
    # claim 1: A .5 (−1), B .25 (+2): (−.5 + .5) / .75 = 0
    assert c[1]["claim_score"] == pytest.approx(0.0)
    # claim 2: an empty candidate pool -> null, no_candidates
    assert (c[2]["claim_score"], c[2]["claim_score_null_reason"]) == (None, "no_candidates")


def test_novelty_changing_only_the_relevances_changes_the_claim_score(built):
    _, db = built
    h1, h2 = claims(db, H1)[0], claims(db, H2)[0]
    # H2's claim 0 has H1's candidates and verdicts with other relevances: A .1, B .6, C .9, D .05.
    # Top 3: C, B, A (the same three verdicts): (−.9·2 + .6·1 + .1·2) / 1.6 = −1 / 1.6 = −0.625
    assert sorted(h2["top_candidate_ids"]) == sorted(h1["top_candidate_ids"])
    assert h2["claim_score"] == pytest.approx(-0.625)
    assert h2["claim_score"] != pytest.approx(h1["claim_score"])


def test_novelty_ns_sr_ssr(built):
    _, db = built
    h1 = one(db, "quality_novelty", f"q|{NOVELTY}|{H1}")
    # scored claims s_c = 1, 0 (claim 2 has none): NS = ((1 + 0)/2 + 2) / 4 = .625; SR = 1/2; SSR = 0/2
    assert (h1["ns"], h1["sr"], h1["ssr"]) == pytest.approx((0.625, 0.5, 0.0))
    assert (h1["n_claims"], h1["n_claims_scored"]) == (3.0, 2.0)
    h2 = one(db, "quality_novelty", f"q|{NOVELTY}|{H2}")
    assert (h2["ns"], h2["sr"], h2["ssr"]) == pytest.approx(((-0.625 + 2) / 4, 0.0, 0.0))  # .34375


def test_novelty_ns_is_clipped_to_one(built):
    lake, db = built
    c = claims(db, lake.k1)[0]
    # a negative relevance: (1·2 + (−.5)·(−2)) / (1 − .5) = 3 / .5 = 6 -> (6 + 2) / 4 = 2 -> clip 1
    assert c["claim_score"] == pytest.approx(6.0)
    r = one(db, "quality_novelty", f"q|{NOVELTY}|{lake.k1}")
    assert (r["ns"], r["sr"], r["ssr"]) == (1.0, 1.0, 1.0)


def test_novelty_null_paths(built):
    lake, db = built
    c = claims(db, E1)
    # claim 0: its only candidate's verdict was unparseable; claim 1: its one verdict has relevance 0
    assert (c[0]["claim_score"], c[0]["claim_score_null_reason"]) == (None, "no_verdicts")
    assert (c[1]["claim_score"], c[1]["claim_score_null_reason"]) == (None, "zero_relevance")
    e1 = one(db, "quality_novelty", f"q|{NOVELTY}|{E1}")
    assert (e1["ns"], e1["sr"], e1["ssr"], e1["null_reason"]) == (None, None, None, "no_scored_claims")
    h3 = one(db, "quality_novelty", f"q|{NOVELTY}|{H3}")
    assert (h3["ns"], h3["is_null"], h3["null_reason"], h3["n_repeats"]) == (None, True, "no_claims", 1)
    # the claims judgment, then the paper extraction the queries came from
    assert one(db, "quality_novelty", f"q|{NOVELTY}|{H1}")["judgment_ids"] == ids(lake, "n_h1", "n_paper")


# ---- flaws -------------------------------------------------------------------------------------

POOL1, POOL4 = "pool:P1|X|s0", "pool:P1|X|s1"  # X's review E1 (sample 0), its sample 1 E1b


def flaws_row(db, pool: str, review: str) -> dict:
    return one(db, "quality_flaws", f"q|{FLAWS}|{pool}|{review}")


# Pool P1|X|s0, members H1, H2, E1 (3). Flaws and who raised them (distinct reviewers):
#   F1 valid critical {H1, E1} (E1 twice: one reviewer) · F2 valid critical {H2} · F3 valid minor {H1, H2, E1}
#   F4 invalid {E1} · F5 valid minor {H2}.   G_c = {F1, F2} (weights 2/3, 1/3), G_m = {F3, F5} (3/3, 1/3)
FLAWS_BY_HAND = {
    # found           recall_c  recall_m  weighted_c          weighted_m         hallucination
    H1: ((0.5, 0.5, 2 / 3, 3 / 4, 0.0), 2),  # {F1, F3}: W 2/(2+1), 3/(3+1); no invalid of 2
    H2: ((0.5, 1.0, 1 / 3, 4 / 4, 0.0), 3),  # {F2, F3, F5}: 1/3; (3+1)/4; 0 of 3
    E1: ((0.5, 0.5, 2 / 3, 3 / 4, 1 / 3), 3),  # {F1, F3, F4}: F4 invalid -> 1 of 3
}


def test_flaws_recall_weighted_recall_and_hallucination(built):
    _, db = built
    for review, (expected, raised) in FLAWS_BY_HAND.items():
        r = flaws_row(db, POOL1, review)
        got = (r["recall_critical"], r["recall_minor"], r["recall_critical_weighted"], r["recall_minor_weighted"],
               r["hallucination_rate"])
        assert got == pytest.approx(expected), review
        assert (r["n_critical_flaws"], r["n_minor_flaws"], r["n_flaws_raised"]) == (2.0, 2.0, raised)
        assert (r["pool_system"], r["pool_sample"], r["is_null"], r["null_reason"]) == ("X", "0", False, None)
        # N = 3 (H5 is not a recorded member); what the caps cut is the pool judgment's dropped count
        assert (r["n_pool_members"], r["n_flaws_over_cap"], r["n_raisers_over_cap"]) == (3, 2, 1)
    assert flaws_row(db, POOL1, E1)["system"] == "X"
    assert flaws_row(db, POOL1, H1)["system"] == "human"


def test_flaws_cps_icps_ncps(built):
    lake, db = built
    e1 = flaws_row(db, POOL1, E1)
    # the example, listed F2 (critical, questions @80), F3 (minor, weaknesses @10), F1 (critical,
    # weaknesses @40). Per section (PRISM): weaknesses in text order [1, 2], questions [2], i resets per section:
    # CPS = 1 + 2/log2(3) + 2 = 4.26186; ICPS = (2 + 1/log2(3)) + 2 = 4.63093; nCPS = .92030
    cps, icps = 1 + 2 / LOG2_3 + 2, 2 + 1 / LOG2_3 + 2
    assert (e1["cps"], e1["icps"], e1["ncps"]) == pytest.approx((cps, icps, cps / icps))
    assert round(e1["ncps"], 4) == 0.9203
    # whole review: text order F3, F1, F2 = [1, 2, 2]: CPS = 1 + 2/log2(3) + 2/2 = 3.26186;
    # ICPS [2, 2, 1] = 2 + 2/log2(3) + 1/2 = 3.76186; nCPS = .86709
    cps_w, icps_w = 1 + 2 / LOG2_3 + 1, 2 + 2 / LOG2_3 + 0.5
    assert (e1["cps_whole_review"], e1["icps_whole_review"], e1["ncps_whole_review"]) == pytest.approx(
        (cps_w, icps_w, cps_w / icps_w))
    assert round(e1["ncps_whole_review"], 4) == 0.8671
    assert (e1["n_mentions"], e1["ncps_null_when_none"]) == (3, pytest.approx(cps / icps))
    h1 = flaws_row(db, POOL1, H1)
    # F3 (minor) and F1 (critical) at one position: the judge's list order breaks the tie -> 1, 2
    # CPS = 1 + 2/log2(3) = 2.26186; ICPS = 2 + 1/log2(3) = 2.63093; nCPS = .85972
    cps, icps = 1 + 2 / LOG2_3, 2 + 1 / LOG2_3
    assert (h1["cps"], h1["icps"], h1["ncps"]) == pytest.approx((cps, icps, cps / icps))
    assert h1["ncps_whole_review"] == pytest.approx(cps / icps)  # one section: the two variants agree
    assert h1["judgment_ids"] == ids(lake, "f_pool1", "f_order_h1")
    # H2's order judgment has no mention: ICPS = 0 -> nCPS 0 as PRISM (null only in ncps_null_when_none)
    h2 = flaws_row(db, POOL1, H2)
    assert (h2["ncps"], h2["ncps_whole_review"], h2["cps"], h2["icps"], h2["ncps_null_reason"]) == (0, 0, 0, 0, None)
    assert (h2["ncps_null_when_none"], h2["n_mentions"], h2["is_null"]) == (None, 0, False)


def test_flaws_null_paths_and_one_row_per_pool_for_a_human_review(built):
    lake, db = built
    pool2 = f"pool:P1|{lake.k1_config}|s0"
    # pool 2's judgment is null: every review in it (H1, H2, H5 human of P1; K1 the system's) carries its reason
    members = rows(db, "select review_key, recall_critical, ncps, null_reason, is_null from quality_flaws"
                       " where pool_key = ?", pool2)
    assert sorted(m["review_key"] for m in members) == sorted([H1, H2, H5, lake.k1])
    assert {(m["recall_critical"], m["ncps"], m["null_reason"], m["is_null"]) for m in members} == {
        (None, None, "unparseable:extract", True)}
    # H5: the study expects it in pool 1, the pool judgment does not list it
    h5 = flaws_row(db, POOL1, H5)
    assert (h5["recall_critical"], h5["null_reason"], h5["n_repeats"]) == (None, "not_in_pool", 1)
    # pool P2|X|s0 was never judged: its human review H4 is not_judged
    h4 = flaws_row(db, "pool:P2|X|s0", H4)
    assert (h4["null_reason"], h4["n_repeats"], h4["paper_id"], h4["judgment_ids"]) == ("not_judged", 0, "P2", [])
    # H1 is scored once per system review: X's two samples and K1
    assert sorted(r["pool_key"] for r in rows(db, "select pool_key from quality_flaws where review_key = ?",
                                              H1)) == sorted([POOL1, POOL4, pool2])


def test_a_second_sample_is_a_pool_of_its_own_and_leaves_the_first_pools_humans_alone(built):
    _, db = built
    # each pool holds the humans and ONE review of X: E1b is expected in s1 only, E1 in s0 only
    members = {pool: sorted(r["review_key"] for r in rows(db, "select review_key from quality_flaws where pool_key = ?",
                                                         pool)) for pool in (POOL1, POOL4)}
    assert members == {POOL1: sorted([H1, H2, H5, E1]), POOL4: sorted([H1, H2, H5, E1B])}
    # pool 1's human numbers are FLAWS_BY_HAND's, N = 3 (test above); pool 4 (N = 3 too) is its own: G_c = {F1}
    # raised by H1 and E1b, G_m = {F2} raised by H2; no order judgment yet
    h1, h2, e1b = (flaws_row(db, POOL4, r) for r in (H1, H2, E1B))
    assert (h1["recall_critical"], h1["recall_minor"], h1["n_pool_members"], h1["pool_sample"]) == (1.0, 0.0, 3, "1")
    assert (h2["recall_critical"], h2["recall_minor"], e1b["recall_critical"], e1b["system"]) == (0.0, 1.0, 1.0, "X")
    assert (h1["ncps"], h1["ncps_null_reason"], h1["n_flaws_over_cap"]) == (None, "order_not_judged", 0)
    assert flaws_row(db, POOL4, H5)["null_reason"] == "not_in_pool"


# ---- long format, judge repeatability ----------------------------------------------------------

def test_review_metrics_long_format_matches_the_marts(built):
    lake, db = built
    long = rows(db, "select * from int_quality_review_metrics")
    by_key = {r["review_metric_id"]: r for r in long}
    assert len(by_key) == len(long)
    # 6 depth rows (q: H1 H2 H3 K1 E1; other: H1) × 3 + 2 constructiveness × 4 + 5 novelty × 3 + 13 flaws × 6
    # (pool 1: H1 H2 H5 E1; pool 2: H1 H2 H5 K1; pool 3: H4; pool 4: H1 H2 H5 E1b)
    assert len(long) == 6 * 3 + 2 * 4 + 5 * 3 + 13 * 6
    assert by_key[f"q|{DEPTH}|{H1}|doa"]["value"] == pytest.approx(17 / 24)
    assert by_key[f"q|{NOVELTY}|{H1}|sr"]["value"] == pytest.approx(0.5)
    assert by_key[f"q|{CONSTRUCTIVE}|{H1}|share_clc_06"]["value"] == pytest.approx(2 / 3)
    e1 = by_key[f"q|{FLAWS}|{POOL1}|{E1}|hallucination_rate"]
    assert (e1["value"], e1["source"], e1["system"], e1["pool_system"]) == (pytest.approx(1 / 3), "external", "X", "X")
    h1 = by_key[f"q|{FLAWS}|pool:P1|{lake.k1_config}|s0|{H1}|recall_minor"]
    assert (h1["value"], h1["null_reason"], h1["system"], h1["pool_system"]) == (
        None, "unparseable:extract", "human", lake.k1_config)
    h2_ncps = by_key[f"q|{FLAWS}|{POOL1}|{H2}|ncps"]  # no mention: 0 as PRISM, not null
    assert (h2_ncps["value"], h2_ncps["null_reason"]) == (0, None)
    assert by_key[f"q|{DEPTH}|{H3}|doa"]["null_reason"] == "not_judged"
    assert by_key[f"q|{DEPTH}|{H3}|doa"]["n_repeats"] == 0
    assert by_key[f"q|{NOVELTY}|{H1}|ns"]["pool_system"] is None
    # every null value says why
    assert [r["review_metric_id"] for r in long if r["value"] is None and r["null_reason"] is None] == []
    assert [r["review_metric_id"] for r in long if r["value"] is not None and r["null_reason"] is not None] == []


def test_judge_repeatability(built):
    _, db = built
    d = one(db, "quality_judge_repeatability", f"q|{DEPTH}|doa")
    # q's depth reviews: H1 (2 scored repeats, SD (3/4 − 2/3)/√2), H2 (1), K1, H3, E1 (none)
    assert (d["n_reviews"], d["n_reviews_scored"], d["n_reviews_repeated"], d["repeats_max"]) == (5, 2, 1, 2)
    sd = (0.75 - 2 / 3) / math.sqrt(2)
    assert (d["within_review_sd_mean"], d["within_review_sd_max"]) == pytest.approx((sd, sd))
    # between reviews: H1 17/24 and H2 0 -> mean 17/48, SD (17/24)/√2
    assert (d["score_mean"], d["between_review_sd"]) == pytest.approx((17 / 48, 17 / 24 / math.sqrt(2)))
    c = one(db, "quality_judge_repeatability", f"q|{CONSTRUCTIVE}|mcs")
    assert (c["n_reviews_repeated"], c["within_review_sd_mean"]) == (0, None)  # one repeat: no SD
    assert rows(db, "select metric from quality_judge_repeatability where study_id = 'q' order by metric") == [
        {"metric": "doa"}, {"metric": "mcs"}, {"metric": "ns"}]


# ---- gates -------------------------------------------------------------------------------------

def test_gates_pass_and_fail_on_a_planted_bad_row(built, tmp_path):
    _, db = built
    for suite in QUALITY_GATES:
        result = run_gate(suite, db)
        assert result.success and result.statistics["rows"] > 0, result.describe()
    bad = tmp_path / "bad.duckdb"
    shutil.copy(db, bad)
    key = f"q|{DEPTH}|{H1}"
    with duckdb.connect(str(bad)) as con:
        # a reason beside a score (a DoA out of [0, 1] is a dbt test in quality_depth.yml now)
        con.execute("update quality_depth set doa = 0.5, null_reason = 'no_units' where quality_depth_id = ?", [key])
        con.execute("update quality_novelty set null_reason = null where null_reason = 'not_judged'"
                    " or review_key = ?", [H3])
    [failure] = run_gate("quality_depth", bad).failures
    assert failure.startswith("expect_column_values_to_be_null(null_reason, where doa is not null): 1 of ")
    assert failure.endswith(f"rows unexpected; values ['no_units']; quality_depth_id ['{key}']")
    [failure] = run_gate("quality_novelty", bad).failures
    assert failure.startswith("expect_column_values_to_not_be_null(null_reason, where ns is null)")
    assert f"q|{NOVELTY}|{H3}" in failure
