"""judge_probes from one dbt build over tests/dbt/quality_lake.py plus hand-made probe variants: each shift
worked out by hand from the units written here and there; what no study scopes is left out."""

import hashlib
import json
from datetime import timedelta

import pytest
from scipy import stats

from peerlake.warehouse import EventLog, Lake
from peerlake.warehouse.events import JudgmentRecorded, StudyResolved
from tests.dbt.quality_lake import (
    CONSTRUCTIVE,
    DEPTH,
    E1,
    FLAWS,
    H1,
    H2,
    OTHER_DEPTH,
    T0,
    build_quality_lake,
    comment,
    mention,
    unit,
)
from tests.dbt.test_marts import dbt_build
from tests.dbt.test_quality_marts import rows

POOL1 = "pool:P1|X|s0"


def _variant(at, probe, judge, step, config, original, units, repeat=0):
    return JudgmentRecorded(
        occurred_at=at, judgment_key=hashlib.sha256(f"{probe}|{original}|{repeat}".encode()).hexdigest(),
        judge=judge, step=step, judge_config=config, subject_key=f"probe:{probe}:{original}", paper_id="P1",
        repeat=repeat, status="ok", null_reason=None, units_json=json.dumps(units), dropped_json="{}",
        llm_call_ids_json="[]", request_keys_json="[]",
        inputs_json=json.dumps({"probe": {"name": probe, "original_subject": original, "seed": 0}}))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("probes")
    lake = build_quality_lake(root / "lake")
    at = T0 + timedelta(days=1)
    log = EventLog(Lake(root / "lake"))
    log.append_many([
        # constructiveness H1 (original: 8, 4, 6 of 10 points → mcs 0.6, 3 comments) padded: a fourth
        # comment of 10 points → mcs 0.7, 4 comments. H2's original is null: unmeasured.
        _variant(at, "length", "constructiveness", "comments", CONSTRUCTIVE, H1, [
            comment(0, 2, 2, 1, 2, 1), comment(1, 1, 1, 1, 0, 1), comment(2, 0, 2, 2, 1, 1),
            comment(3, 2, 2, 2, 2, 2)]),
        _variant(at, "length", "constructiveness", "comments", CONSTRUCTIVE, H2, [comment(0, 1, 1, 1, 1, 1)]),
        # depth H1 repeat 0 (original 4 units, 3 premises) → 5 units, 4 premises; repeat 1 (2 units, 1
        # premise) → 2 units, 2 premises
        _variant(at, "length", "depth", "units", DEPTH, H1, [
            unit(0, "claim", "soundness"), *(unit(i, "premise", "soundness", 2) for i in range(1, 5))]),
        _variant(at, "length", "depth", "units", DEPTH, H1, [
            unit(0, "premise", "other", 1), unit(1, "premise", "soundness", 2)], repeat=1),
        # a configuration study q does not run now: no study owns the pair
        _variant(at, "length", "depth", "units", OTHER_DEPTH, E1, [unit(0, "claim", "other")]),
        # flaws order step of pool 1, H1 (original 2 mentions) with the flaws listed in reverse → 1 mention
        _variant(at, "candidate_order", "flaws", "order", FLAWS, f"{POOL1}|{H1}", [
            mention(H1, "F1", "critical", 20)]),
        StudyResolved(occurred_at=at, study_id="q", study_sha256="q" * 8, paper_ids_json='["P1", "P2"]',
                      reviewers_json="[]", external_systems_json='["*"]', paper_source="test", asset="judge_probes",
                      judges_json=json.dumps([{"judge": "depth", "judge_config": DEPTH, "probes": ["length"],
                                               "tolerances": {"length.n_units": 10}}])),
    ])
    log.seal()
    log.close()
    db, _ = dbt_build(root / "lake", root, db=root / "marts.duckdb", select="+judge_probes")
    return lake, db


def probe(db, key):
    [row] = rows(db, "select * from judge_probes where judge_probe_id = ?", key)
    return row


def test_one_pair_gives_the_shift_without_an_interval(built):
    _, db = built
    mcs = probe(db, f"q|{CONSTRUCTIVE}|length|mcs")
    assert mcs["shift"] == pytest.approx(0.1) and (mcs["n"], mcs["n_unmeasured"]) == (1, 1)
    assert (mcs["mean_reference"], mcs["mean_variant"]) == (pytest.approx(0.6), pytest.approx(0.7))
    assert (mcs["ci_low"], mcs["status"], mcs["tolerance"]) == (None, "inconclusive", 0.05)
    assert probe(db, f"q|{CONSTRUCTIVE}|length|n_comments")["shift"] == 1.0


def test_repeats_pair_each_with_its_own_original_and_the_declared_tolerance_applies(built):
    _, db = built
    n_units = probe(db, f"q|{DEPTH}|length|n_units")
    # d = 5 − 4, 2 − 2: mean 0.5, sd √0.5, se 0.5; t(0.975, 1) = 12.7062 → [−5.853, 6.853] within ±10
    half = stats.t.ppf(0.975, 1) * 0.5
    assert (n_units["n"], n_units["shift"]) == (2, 0.5)
    assert (n_units["ci_low"], n_units["ci_high"]) == (pytest.approx(0.5 - half), pytest.approx(0.5 + half))
    assert (n_units["tolerance"], n_units["status"], n_units["is_pass"]) == (10.0, "pass", True)
    ratio = probe(db, f"q|{DEPTH}|length|premise_ratio")  # 0.8 − 0.75, 1.0 − 0.5: mean 0.275, default 0.05
    assert ratio["shift"] == pytest.approx(0.275) and (ratio["tolerance"], ratio["status"]) == (0.05, "inconclusive")
    # study `other` counts repeat 0 only, and declared nothing: the default tolerance of one unit
    other = probe(db, f"other|{DEPTH}|length|n_units")
    assert (other["n"], other["shift"], other["tolerance"]) == (1, 1.0, 1.0)


def test_the_flaws_order_step_is_scoped_by_its_pool(built):
    _, db = built
    row = probe(db, f"q|{FLAWS}|candidate_order|n_mentions")
    assert (row["n"], row["shift"]) == (1, -1.0)


def test_a_configuration_no_study_runs_is_left_out(built):
    _, db = built
    assert not rows(db, "select * from judge_probes where judge_config = ?", OTHER_DEPTH)
    assert not rows(db, "select * from int_judge_probe_pairs where judge_config = ?", OTHER_DEPTH)


def test_self_preference_flags_each_quality_row(built):
    _, db = built
    flagged = rows(db, "select review_key, source, judge_family, reviewer_family, is_same_family "
                       "from int_judge_probe_self_preference where study_id = 'q'")
    by_source = {}
    for r in flagged:
        by_source.setdefault(r["source"], set()).add((r["judge_family"], r["reviewer_family"], r["is_same_family"]))
    # the judge is qwen-1.5b; K1 was written by qwen-1.5b (same family); humans and system X: not computable
    assert by_source["peerlake"] == {("qwen", "qwen", True)}
    assert by_source["human"] == {("qwen", None, None)} and by_source["external"] == {("qwen", None, None)}
    # only same-family rows exist: a row per metric with a mean, never a shift
    selfpref = rows(db, "select * from judge_probes where probe = 'self_preference' and study_id = 'q'")
    assert selfpref and all(r["shift"] is None and r["status"] == "inconclusive" and r["n_reference"] == 0
                            for r in selfpref)
