"""int_review_items and the review_consistency mart built by real dbt over a hand-written lake
(tests/embeddings/consistency_lake.py says what is in it), the vector store it leaves behind, and the
gate on the built mart. Repeated item texts make most cosines exactly 1, so S follows from list lengths;
the one value that depends on the model (c3 against c1, c2) is checked against a brute-force matching
over the stored vectors, not against metrics.stats.consistency."""

import itertools
import json
import shutil
from datetime import timedelta

import numpy as np
import pytest

from peerlake.expectations import run_gate
from peerlake.llm_calls.embeddings import MODEL_HASH, MODEL_NAME, embed_counted
from peerlake.warehouse import EventLog, Lake
from peerlake.warehouse.events import SystemReviewRecorded
from tests.dbt.test_marts import dbt_build
from tests.dbt.test_system_marts import rows
from tests.embeddings.consistency_lake import T0, TEXTS, build_consistency_lake


@pytest.fixture(scope="module")
def built(tmp_path_factory, embedding_model_dir):
    root = tmp_path_factory.mktemp("consistency_lake")
    configs = build_consistency_lake(root / "lake")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DBT_INDIRECT_SELECTION", "cautious")  # only tests whose every parent is built
        db, run_results = dbt_build(root / "lake", root, db=root / "marts.duckdb", select="+review_consistency")
    return configs, db, run_results, root / "lake"


def _mart(db) -> dict:
    return {(r["polarity"], r["kind"], frozenset((r["config_a"], r["config_b"]))): r
            for r in rows(db, "select * from review_consistency")}


def test_the_build_ran_the_models_and_their_tests(built):
    *_, run_results, _ = built
    ran = {part: r["status"] for r in run_results["results"] for part in r["unique_id"].split(".")[2:]}
    for name in ("int_review_items", "review_consistency", "int_review_items_column_checks",
                 "review_consistency_column_checks"):
        assert ran.get(name) in ("success", "pass"), (name, ran.get(name))


def test_items_come_from_parsed_template_and_system_reviews_only(built):
    configs, db, *_ = built
    items = rows(db, "select * from int_review_items order by review_item_id")
    assert not [r for r in items if r["text"].startswith("excluded")]  # beyond K, unparsed, a variant's
    by_config = {}
    for r in items:
        by_config.setdefault(r["reviewer_config"], []).append((r["paper_id"], r["polarity"], r["item_index"]))
    # A: P1/0 2+2, P1/1 2+1 (the empty concern dropped), P2/0 1+1 → 9; B: 1+1 + 2+1 → 5; sys: 2+2 → 4
    assert {c: len(v) for c, v in by_config.items()} == {configs["A"]: 9, configs["B"]: 5, "cfg-sys": 4}
    sys_concerns = sorted(r["text"] for r in items if r["reviewer_config"] == "cfg-sys" and r["polarity"] == "concern")
    assert sys_concerns == sorted([TEXTS["c1"], TEXTS["c2"]])  # the system's weaknesses are its concerns
    import hashlib

    assert all(r["text_sha256"] == hashlib.sha256(r["text"].encode()).hexdigest() for r in items)
    assert {r["reviewer_label"] for r in items if r["reviewer_config"] == "cfg-sys"} == {"mlr"}


def test_values_worked_by_hand(built):
    configs, db, *_ = built
    a, b, s = configs["A"], configs["B"], "cfg-sys"
    m = _mart(db)
    # within A, strengths: only P1 has two A reviews: [s1, s2] vs [s1, s2] → (1 + 1) / 2 = 1
    r = m[("strength", "within", frozenset([a]))]
    assert (r["n_papers"], r["n_pairs"], r["s_mean"]) == (1, 1, pytest.approx(1, abs=1e-5))
    assert (r["s_ci_low"], r["s_ci_high"]) == (pytest.approx(1, abs=1e-5), pytest.approx(1, abs=1e-5))
    # within A, concerns: [c1, c2] vs [c1] → 1 / max(2, 1) = 0.5
    assert m[("concern", "within", frozenset([a]))]["s_mean"] == pytest.approx(0.5, abs=1e-5)
    # B and the system have one review per paper: no within rows
    assert ("strength", "within", frozenset([b])) not in m and ("strength", "within", frozenset([s])) not in m
    # cross A–B strengths: P1 [s1,s2]~[s1] = 1/2 twice; P2 [s1]~[s1,s2] = 1/2 → 0.5, 2 papers, 3 pairs
    r = m[("strength", "cross", frozenset([a, b]))]
    assert (r["n_papers"], r["n_pairs"], r["s_mean"]) == (2, 3, pytest.approx(0.5, abs=1e-5))
    assert r["s_ci_low"] == pytest.approx(0.5, abs=1e-5) and r["s_ci_high"] == pytest.approx(0.5, abs=1e-5)
    # cross A–sys strengths: [s1,s2]~[s2,s1] = 1 (the matching crosses the order) twice
    assert m[("strength", "cross", frozenset([a, s]))]["s_mean"] == pytest.approx(1, abs=1e-5)
    # cross A–sys concerns: P1 [c1,c2]~[c1,c2] = 1, [c1]~[c1,c2] = 1/2 → 0.75
    assert m[("concern", "cross", frozenset([a, s]))]["s_mean"] == pytest.approx(0.75, abs=1e-5)
    # overall cross strengths: P1 pairs A0-B .5, A1-B .5, A0-sys 1, A1-sys 1, B-sys ([s1]~[s2,s1]) .5 → 3.5/5 = .7;
    # P2: A0-B .5 → (0.7 + 0.5) / 2 = 0.6 over 6 pairs
    r = m[("strength", "cross", frozenset(["*"]))]
    assert (r["n_papers"], r["n_pairs"], r["s_mean"]) == (2, 6, pytest.approx(0.6, abs=1e-5))
    assert r["s_ci_low"] == pytest.approx(0.5, abs=1e-5) and r["s_ci_high"] == pytest.approx(0.7, abs=1e-5)
    assert {r["embedding_model"] for r in m.values()} == {MODEL_NAME}
    assert {r["embedding_model_hash"] for r in m.values()} == {MODEL_HASH}
    assert {(r["n_resamples"], r["bootstrap_seed"]) for r in m.values()} == {(5000, 20250)}


def test_the_model_dependent_value_against_a_brute_force_matching(built):
    configs, db, _, lake = built
    v = dict(zip(["c1", "c2", "c3"], embed_counted([TEXTS[k] for k in ("c1", "c2", "c3")], lake).vectors,
                 strict=True))

    def brute(xs, ys):  # every one-to-one assignment of the shorter list into the longer
        short, long_ = (xs, ys) if len(xs) <= len(ys) else (ys, xs)
        best = max(sum(float(v[p] @ v[q]) for p, q in zip(short, perm, strict=True))
                   for perm in itertools.permutations(long_, len(short)))
        return best / max(len(xs), len(ys))

    # cross A–B concerns: P1 A0 [c1,c2]~[c3], A1 [c1]~[c3] → paper mean; P2 [c2]~[c2] = 1
    p1 = (brute(["c1", "c2"], ["c3"]) + brute(["c1"], ["c3"])) / 2
    r = _mart(db)[("concern", "cross", frozenset([configs["A"], configs["B"]]))]
    assert r["s_mean"] == pytest.approx((p1 + 1) / 2, abs=1e-5)
    assert r["s_mean"] < 1  # c3 is a different complaint


def test_the_build_embedded_each_text_once_and_a_second_call_computes_none(built):
    _, db, _, lake = built
    m = _mart(db)
    # distinct texts embedded by the build: s1, s2, c1, c2, c3
    assert {(r["n_embeddings_computed"], r["n_embeddings_cached"]) for r in m.values()} == {(5, 0)}
    again = embed_counted(list(TEXTS.values()), lake)
    assert (again.n_computed, again.n_cached) == (0, 5)
    assert np.allclose(np.linalg.norm(again.vectors, axis=1), 1, atol=1e-5)


def test_the_gate_passes_on_the_built_mart(built):
    _, db, *_ = built
    result = run_gate("review_consistency", db)
    assert result.success, result


def test_the_report_section_reads_the_built_mart(built):
    from peerlake.report import consistency
    from peerlake.report.data import load

    _, db, *_ = built
    page = consistency.section(load(db, "S"), {})
    assert MODEL_NAME in page and "all-mpnet-base-v2" in page and "<img" in page


def test_a_rebuild_recomputes_only_the_papers_whose_items_changed(built, tmp_path):
    import duckdb

    configs, db, _, lake = built
    shutil.copytree(lake, tmp_path / "lake")
    shutil.copy(db, tmp_path / "marts.duckdb")
    # P1's stored rows are marked (in a column no test bounds above): a rebuild that recomputed P1 would
    # overwrite the mark
    with duckdb.connect(str(tmp_path / "marts.duckdb")) as con:
        con.execute("update int_consistency_paper_sums set n_items_a = n_items_a + 1000 where paper_id = 'P1'")
        marked = con.execute("select count(*) from int_consistency_paper_sums where paper_id = 'P1'").fetchone()[0]
    # the reviewer system's review of P2: strengths [s1], weaknesses [c2]; P1's items are unchanged
    log = EventLog(Lake(tmp_path / "lake"))
    log.append_many([SystemReviewRecorded(
        occurred_at=T0 + timedelta(hours=1), review_key="rk-sys-P2", system="mlr", system_config="cfg-sys",
        system_version=1, paper_id="P2", package_sha256="b" * 64, sample_index=0, provider="openai", model="m",
        status="ok", null_reason=None, calls_json="[]", options_json="{}", study="S", score=5.0,
        score_scale="neurips_1_10", confidence=None,
        review_json=json.dumps({"strengths": [TEXTS["s1"]], "weaknesses": [TEXTS["c2"]]}))])
    log.seal()
    log.close()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DBT_INDIRECT_SELECTION", "cautious")
        db2, _ = dbt_build(tmp_path / "lake", tmp_path, db=tmp_path / "marts.duckdb", select="+review_consistency")
    sums = rows(db2, "select * from int_consistency_paper_sums")
    p1 = [r for r in sums if r["paper_id"] == "P1"]
    assert len(p1) == marked and all(r["n_items_a"] > 1000 for r in p1)  # kept as stored, not recomputed
    p2 = {(r["polarity"], frozenset((r["config_a"], r["config_b"]))): r for r in sums if r["paper_id"] == "P2"}
    # P2 strengths: A0 [s1] ~ sys [s1] = 1; B0 [s1, s2] ~ sys [s1] = 1/2 (the system's one review)
    assert p2[("strength", frozenset((configs["A"], "cfg-sys")))]["s_sum"] == pytest.approx(1, abs=1e-5)
    b_sys = p2[("strength", frozenset((configs["B"], "cfg-sys")))]
    assert (b_sys["s_sum"], b_sys["n_pairs"]) == (pytest.approx(0.5, abs=1e-5), 1)
    assert {b_sys["n_reviews_a"], b_sys["n_reviews_b"]} == {1}
