"""text_overlap recomputed per paper: a rebuild after a new human review of one paper recomputes that
paper's rows of int_text_overlap_reviews and keeps every other paper's rows as stored, and the mart
follows from the per-review rows (tests/dbt/score_prediction_lake.py says what is in the lake)."""

import json
import shutil
from datetime import timedelta

import duckdb
import pytest

from peerlake.warehouse import EventLog, Lake
from peerlake.warehouse.events import HumanReviewImported
from tests.dbt.score_prediction_lake import ICLR, T0, build_score_prediction_lake
from tests.dbt.test_marts import dbt_build
from tests.dbt.test_system_marts import rows


def _build(lake, work):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DBT_INDIRECT_SELECTION", "cautious")
        db, _ = dbt_build(lake, work, db=work / "marts.duckdb", select="+text_overlap")
    return db


def test_a_new_human_review_recomputes_only_its_papers_rows(tmp_path):
    build_score_prediction_lake(tmp_path / "lake")
    db = _build(tmp_path / "lake", tmp_path)
    before = {(r["study_id"], r["review_key"]): r for r in rows(db, "select * from int_text_overlap_reviews")}
    assert before[("S", "human:hC1")]["n_pairs"] == 1  # hC2 its one reference
    # A's stored rows are marked in a column no test bounds: a rebuild that recomputed A would lose the mark
    with duckdb.connect(str(db)) as con:
        con.execute("update int_text_overlap_reviews set n_pairs_bleu = n_pairs_bleu + 100 where paper_id = 'A'")
    log = EventLog(Lake(tmp_path / "lake"))
    sha = log.blobs.put_text(json.dumps({"content": {"review": "fine paper overall weak work"}}))
    log.append_many([HumanReviewImported(occurred_at=T0 + timedelta(hours=1), paper_id="C", review_id="hC3",
                                         source="openreview", venue=ICLR, rating=5.0,
                                         rating_scale="ICLR2025:1,3,5,6,8,10", confidence=3.0, body_sha256=sha)])
    log.seal()
    log.close()
    after = {(r["study_id"], r["review_key"]): r for r in rows(_build(tmp_path / "lake", tmp_path),
                                                               "select * from int_text_overlap_reviews")}
    assert set(after) == set(before) | {("S", "human:hC3")}
    for key, row in after.items():
        paper = row["paper_id"]
        if paper == "A":
            assert row["n_pairs_bleu"] == before[key]["n_pairs_bleu"] + 100, key  # kept as stored
        elif paper != "C":
            assert row == before[key], key
    # C recomputed: each human review of C now has two references
    assert [after[("S", f"human:hC{i}")]["n_pairs"] for i in (1, 2, 3)] == [2, 2, 2]
    mart = {(r["study_id"], r["reviewer"]): r for r in rows(tmp_path / "marts.duckdb", "select * from text_overlap")}
    human = [r for r in after.values() if r["study_id"] == "S" and r["source"] == "human" and r["is_compared"]]
    assert mart[("S", "human")]["n_pairs"] == sum(r["n_pairs"] for r in human) == 2 + 6
    assert mart[("S", "human")]["n_pairs_bleu"] == sum(r["n_pairs_bleu"] for r in human)  # the marks included
    assert mart[("S", "human")]["rouge_1"] == pytest.approx(sum(r["rouge_1"] for r in human) / len(human))
    shutil.rmtree(tmp_path / "target", ignore_errors=True)
