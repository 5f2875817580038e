"""quality_judge_agreement from one dbt build over the issue's case: PRISM's released depth and
constructiveness answers imported into study `prism` (`peerlake ingest judgments --study`), beside
peerlake's own judges' judgments of the same three reviews (SEA's, Human_1's, Human_2's). PRISM's
per-review figures come from tests/ingest/test_judgment_import.py's spec formulas over the released
answers, peerlake's are worked out by hand below; the agreement statistics are recomputed here with
numpy and scipy, not with metrics.quality.agreement."""

import json

import duckdb
import numpy as np
import pytest
from scipy import stats

from peerlake.expectations import STATISTIC_GATES, run_gate
from peerlake.ingest.judgment_scope import add_to_study
from peerlake.warehouse import EventLog, Lake
from peerlake.warehouse.events import JudgmentRecorded
from tests.dbt.test_marts import dbt_build
from tests.ingest import prism_layout as layout
from tests.ingest.test_judgment_import import (
    CONSTRUCTIVE,
    DEPTH,
    H1,
    H2,
    ICLR,
    SEA,
    _cli,
    _imported,
    prism_constructiveness,
    prism_depth,
)

OWN_C, OWN_C2, OWN_D = "c000000000000001", "c000000000000002", "d000000000000001"  # hex sorts before "prism-…"
REVIEWS = (SEA, H1, H2)


def comment(i, a, s, j, sol, t) -> dict:
    return {"comment_index": i, "text": f"comment {i}", "section": "weaknesses", "anchor_quote": None,
            "anchor_found": True, "actionability": a, "specificity": s, "justification": j, "solution": sol,
            "tone": t}


def unit(i, role, grounding=None) -> dict:
    return {"unit_index": i, "text": f"unit {i}", "start": 10 * i, "field": "weaknesses", "role": role,
            "aspect": "soundness", "grounding": grounding}


# peerlake's own constructiveness judge C (2 repeats): SEA r0 one comment of 10 points (CLC 1), r1 one
# of 5 (.5) → MCS .75, solution = 2 in r0 only → share_solution .5, actionable in both → 1;
# H1 (1,1,1,0,1) → .4, PRISM's own number; H2 (0,0,1,0,1) → .2.
OWN_COMMENTS = {(SEA, 0): [comment(0, 2, 2, 2, 2, 2)], (SEA, 1): [comment(0, 1, 1, 1, 1, 1)],
                (H1, 0): [comment(0, 1, 1, 1, 0, 1)], (H2, 0): [comment(0, 0, 0, 1, 0, 1)]}
OWN = {"mcs": [0.75, 0.4, 0.2], "share_actionable": [1.0, 1.0, 0.0], "share_solution": [0.5, 0.0, 0.0],
       "share_clc_06": [0.5, 0.0, 0.0]}
# its depth judge D: SEA two premises grounded 2 → R 1, S_norm 1, DoA 1; H1 and H2 a premise grounded 2
# and a claim → R .5, S_norm 1, DoA 2·.5·1/1.5 = 2/3. grounding_norm is 1 everywhere: a constant side.
OWN_UNITS = {SEA: [unit(0, "premise", 2), unit(1, "premise", 2)],
             H1: [unit(0, "premise", 2), unit(1, "claim")], H2: [unit(0, "premise", 2), unit(1, "claim")]}
OWN_DEPTH = {"doa": [1.0, 2 / 3, 2 / 3], "premise_ratio": [1.0, 0.5, 0.5], "grounding_norm": [1.0, 1.0, 1.0]}


def _judgment(config, judge, step, subject, repeat, units, null_reason=None) -> JudgmentRecorded:
    source = subject.split(":")[0]
    return JudgmentRecorded(
        judgment_key=f"{config}|{subject}|{repeat}", judge=judge, step=step, judge_config=config, subject_key=subject,
        paper_id=ICLR, repeat=repeat, status="ok" if null_reason is None else "null", null_reason=null_reason,
        units_json=json.dumps(units), dropped_json="{}", llm_call_ids_json="[]", request_keys_json="[]",
        inputs_json=json.dumps({"source": source, "system": "human" if source == "human" else subject.split(":")[1]}))


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    root = tmp_path_factory.mktemp("agreement")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PEERLAKE_HOME", str(root / "lake"))
        lake = Lake(root / "lake").ensure()
        demo = _imported(root, "--study", "prism")
        # peerlake's own judges ran first (their resolution), PRISM's answers imported into the study after
        log = EventLog(lake)
        log.append_many([
            *[_judgment(OWN_C, "constructiveness", "comments", s, r, c) for (s, r), c in OWN_COMMENTS.items()],
            # a second own configuration: H1 all 2s (CLC 1), H2 listed but null
            _judgment(OWN_C2, "constructiveness", "comments", H1, 0, [comment(0, 2, 2, 2, 2, 2)]),
            _judgment(OWN_C2, "constructiveness", "comments", H2, 0, [], null_reason="no_comments"),
            *[_judgment(OWN_D, "depth", "units", s, 0, u) for s, u in OWN_UNITS.items()]])
        own = [{"judge": "constructiveness", "judge_config": OWN_C, "provider": "local", "model": "m", "repeats": 2,
                "review_keys": sorted(REVIEWS)},
               {"judge": "constructiveness", "judge_config": OWN_C2, "provider": "local", "model": "m2",
                "repeats": 1, "review_keys": sorted([H1, H2])},
               {"judge": "depth", "judge_config": OWN_D, "provider": "local", "model": "m", "repeats": 1,
                "review_keys": sorted(REVIEWS)}]
        add_to_study(log, "prism", own, {ICLR})
        log.close()
        _cli("judgments", str(demo / "depth_of_analysis"), "--judge", "depth", "--study", "prism")
        _cli("judgments", str(demo / "constructiveness"), "--judge", "constructiveness", "--study", "prism")
        log = EventLog(lake)
        log.seal()
        log.close()
        path, _ = dbt_build(root / "lake", root, db=root / "marts.duckdb", select="+quality_judge_agreement")
    return path


def rows(db) -> dict[str, dict]:
    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute("select * from quality_judge_agreement")
        names = [d[0] for d in cur.description]
        return {r[0]: dict(zip(names, r, strict=True)) for r in cur.fetchall()}


def prism_values() -> dict[str, list[float]]:
    """PRISM's per-review figures in REVIEWS order, by the spec's formulas over the released answers."""
    comments = [layout.CONSTRUCTIVE_SEA["atomic_comments"], *(r["atomic_comments"]
                                                              for r in layout.CONSTRUCTIVE_HUMAN["reviewers"])]
    analyses = [layout.DEPTH_SEA["reviews_analysis"]["SEA_ICLR2025"], layout.DEPTH_HUMAN["reviews_analysis"]["Human_1"],
                layout.DEPTH_HUMAN["reviews_analysis"]["Human_2"]]
    per_review = [{**prism_constructiveness(c), **prism_depth(a)} for c, a in zip(comments, analyses, strict=True)]
    return {m: [r[m] for r in per_review] for m in [*OWN, *OWN_DEPTH]}


def expected(x, y) -> dict:
    x, y = np.asarray(x), np.asarray(y)
    out = {"n_reviews": len(x), "mean_x": x.mean(), "mean_y": y.mean(), "mean_diff": (x - y).mean(),
           "mean_abs_diff": np.abs(x - y).mean(), "share_equal": float(np.mean(np.isclose(x, y, rtol=0, atol=1e-12)))}
    if np.ptp(x) and np.ptp(y):
        out.update(pearson=stats.pearsonr(x, y).statistic, spearman=stats.spearmanr(x, y).statistic)
    return out


def test_peerlakes_judges_against_prisms_released_answers(db):
    got, prism = rows(db), prism_values()
    assert prism["mcs"] == pytest.approx([17 / 30, 0.4, 0.45])  # the released MCS 0.5667, 0.4, 0.45
    assert prism["doa"] == pytest.approx([0.6, 0.0, 0.8])  # SEA: R 2/4, S_norm 1.5/2 → 2·.5·.75/1.25
    for own_config, prism_config, own_values in [(OWN_C, CONSTRUCTIVE, OWN), (OWN_D, DEPTH, OWN_DEPTH)]:
        for metric, x in own_values.items():
            row = got[f"prism|{metric}|{own_config}|{prism_config}"]
            assert (row["study_id"], row["judge_config_x"], row["judge_config_y"], row["n_reviews_shared"]) == (
                "prism", own_config, prism_config, 3)
            assert (row["judge_provider_x"], row["judge_provider_y"]) == ("local", "imported")
            want = expected(x, prism[metric])
            if metric == "grounding_norm":  # peerlake's side is constant: no correlation
                assert (row["pearson"], row["spearman"], row["correlation_null_reason"]) == (None, None, "constant_x")
            else:
                assert row["correlation_null_reason"] is None and "pearson" in want
            assert {k: row[k] for k in want} == pytest.approx(want), metric
    # by hand: MCS .75/.4/.2 against 17/30/.4/.45 → means .45 and 17/36, one review equal (H1's .4);
    # ranks 3 2 1 against 3 1 2 → ρ = 1 − 6·(0 + 1 + 1)/(3·8) = .5
    mcs = got[f"prism|mcs|{OWN_C}|{CONSTRUCTIVE}"]
    assert (mcs["mean_x"], mcs["mean_y"], mcs["share_equal"], mcs["spearman"]) == pytest.approx(
        (0.45, 17 / 36, 1 / 3, 0.5))


def test_every_two_configurations_of_a_judge_pair_and_no_others(db):
    got = rows(db)
    constructive = [f"prism|{m}|{x}|{y}" for m in OWN
                    for x, y in [(OWN_C, OWN_C2), (OWN_C, CONSTRUCTIVE), (OWN_C2, CONSTRUCTIVE)]]
    depth = [f"prism|{m}|{OWN_D}|{DEPTH}" for m in OWN_DEPTH]
    assert sorted(got) == sorted(constructive + depth)
    # the second own configuration listed H1 and H2 but scored only H1: one review, no correlation
    for key, x, y in [(f"prism|mcs|{OWN_C}|{OWN_C2}", 0.4, 1.0), (f"prism|mcs|{OWN_C2}|{CONSTRUCTIVE}", 1.0, 0.4)]:
        r = got[key]
        assert (r["n_reviews_shared"], r["n_reviews"], r["correlation_null_reason"]) == (2, 1, "fewer_than_3_reviews")
        assert (r["mean_x"], r["mean_y"], r["mean_diff"], r["pearson"]) == (pytest.approx(x), pytest.approx(y),
                                                                            pytest.approx(x - y), None)


def test_the_gate_passes_on_the_built_mart_and_fails_on_a_swapped_pair(db, tmp_path):
    assert STATISTIC_GATES["quality_judge_agreement"] == "quality_judge_agreement"  # blocks publishing
    assert run_gate("quality_judge_agreement", db).success
    bad = tmp_path / "bad.duckdb"
    with duckdb.connect(str(bad)) as con:
        con.execute(f"attach '{db}' as built (read_only)")
        con.execute("create table quality_judge_agreement as select * from built.quality_judge_agreement")
        con.execute("update quality_judge_agreement set judge_config_x = judge_config_y,"
                    " judge_config_y = judge_config_x, pearson = 0 where metric = 'grounding_norm'")
    result = run_gate("quality_judge_agreement", bad)
    assert not result.success
    failures = " ".join(result.failures)
    assert "expect_column_pair_values_a_to_be_greater_than_b(column_A=judge_config_y" in failures
    assert "expect_column_values_to_be_null(pearson, where correlation_null_reason is not null)" in failures
