"""quality_judge_validation on a tiny lake of hand-made depth judgments and human spans: unit extraction
and claim/premise labels scored against the spans, every expected number worked out by hand below."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from peerlake.expectations import run_gate
from peerlake.studies import resolution_event
from peerlake.warehouse import EventLog, Lake
from peerlake.warehouse.events import JudgmentRecorded, SpanAnnotationImported

PROJECT_DIR = Path(__file__).resolve().parents[2] / "dbt_project"
CONFIG = "cfg0000000000001"
R1, R2, R3 = "external:substanreview:1", "external:substanreview:2", "external:substanreview:3"
R6 = "external:substanreview:6"  # the train split
HUMAN = "human:H1"  # judged, but nobody annotated it: in no row

# Gold spans [judged_start, judged_end) by review; r1's last one starts beyond the 1,000 characters the
# judge read (chars_judged), so it is unseen.
GOLD = {
    R1: [(0, 10, "Eval_pos_1", "claim"), (20, 40, "Jus_neg_1", "premise"), (50, 60, "Major_claim", None),
         (105, 130, "Jus_pos_2", "premise"), (2000, 2010, "Eval_neg_3", "claim")],
    R2: [(0, 30, "Jus_neg_1", "premise")],
    R3: [(0, 5, "Eval_pos_1", "claim")],
    R6: [(100, 120, "Jus_neg_1", "premise")],
}
# Units (start, end, role). r1:
#   u0 claim   [0, 8)    vs g0 claim [0, 10):    ∩ 8,  ∪ 10           IoU 0.8  -> match, roles agree
#   u1 claim   [25, 45)  vs g1 premise [20, 40): ∩ 15, ∪ 20 + 20 - 15 IoU 0.6  -> match, roles differ
#   u2 premise [55, 75)  vs g2 none [50, 60):    ∩ 5,  ∪ 10 + 20 - 5  IoU 0.2  -> overlap only
#   u3 premise [100, 110) vs g4 premise [105, 130): ∩ 5, ∪ 10 + 25 - 5 IoU 1/6 -> overlap only
# r6 (train): one claim unit [0, 5) far from its gold premise [100, 120).
UNITS = {
    R1: [(0, 8, "claim"), (25, 45, "claim"), (55, 75, "premise"), (100, 110, "premise")],
    R6: [(0, 5, "claim")],
    HUMAN: [(0, 12, "premise")],
}


def _judgment(subject: str, status: str = "ok", null_reason: str | None = None) -> JudgmentRecorded:
    units = [{"unit_index": k, "text": "x" * (end - start), "start": start, "field": "text", "role": role,
              "aspect": "soundness", "grounding": None} for k, (start, end, role) in enumerate(UNITS.get(subject, []))]
    return JudgmentRecorded(
        judgment_key=hashlib.sha256(subject.encode()).hexdigest(), judge="depth", step="units", judge_config=CONFIG,
        subject_key=subject, paper_id=subject, repeat=0, status=status, null_reason=null_reason,
        units_json=json.dumps(units if status == "ok" else []), dropped_json="{}", llm_call_ids_json="[]",
        request_keys_json="[]", inputs_json=json.dumps({"chars": 5000, "chars_judged": 1000}), study="val")


def _annotation(review_key: str, split: str) -> SpanAnnotationImported:
    # dbt reads judged_start/judged_end only; the raw offsets ride along (here: the same numbers)
    spans = [{"start": s, "end": e, "label": label, "role": role, "pair": None, "judged_start": s, "judged_end": e}
             for s, e, label, role in GOLD[review_key]]
    return SpanAnnotationImported(review_key=review_key, dataset="substanreview", split=split, annotator=None,
                                  spans_json=json.dumps(spans), text_sha256="0" * 64, source_path="t.jsonl",
                                  line_no=1)


def _build_lake(root: Path) -> None:
    log = EventLog(Lake(root))
    keys = [R1, R2, R3, R6, HUMAN]
    judges = [{"judge": "depth", "judge_config": CONFIG, "provider": "fake", "model": "judge-m", "repeats": 1,
               "review_keys": keys, "pools": []}]
    log.append_many([
        _judgment(R1), _judgment(R2, "null", "no_units"), _judgment(R6), _judgment(HUMAN),  # R3: not judged
        *[_annotation(k, "train" if k == R6 else "test") for k in (R1, R2, R3, R6)],
        resolution_event("val", "f" * 64, ["substanreview-1"], [], ["substanreview"], paper_source="test",
                         asset="judgments", judges=judges),
    ])
    log.seal()
    log.close()


def build_validation_mart(lake_root: Path, work: Path) -> Path:
    """`dbt build` of quality_judge_validation and everything upstream (models, data tests, unit tests)
    for the lake at lake_root, in a subprocess as the orchestrator runs it; returns the DuckDB file."""
    env = {k: v for k, v in os.environ.items() if k != "PEERLAKE_DUCKDB_PATH"}
    env.update(PEERLAKE_HOME=str(lake_root), PEERLAKE_DUCKDB_PATH=str(work / "marts.duckdb"))
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("dbt")), "build", "--select", "+quality_judge_validation",
         "--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR),
         "--target-path", str(work / "target"), "--log-path", str(work / "logs")],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"dbt build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
    return work / "marts.duckdb"


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("judge_validation")
    _build_lake(root / "lake")
    return build_validation_mart(root / "lake", root)


def _row(db: Path, split: str) -> dict:
    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute("select * from quality_judge_validation where dataset_split = ?", [split])
        cols = [d[0] for d in cur.description]
        rows = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    assert len(rows) == 1
    return rows[0]


def test_one_row_per_split_and_the_unannotated_review_is_left_out(db):
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("select judge_validation_id, judge_model, span_match_iou from quality_judge_validation "
                           "order by 1").fetchall()
    assert rows == [(f"val|{CONFIG}|substanreview|test", "judge-m", 0.5),
                    (f"val|{CONFIG}|substanreview|train", "judge-m", 0.5)]


def test_counts(db):
    row = _row(db, "test")
    # r1 ok + r2 null are judged; r3 has no judgment (not judged); the human review has no annotation
    assert (row["n_reviews"], row["n_judgments"], row["n_null_judgments"], row["n_not_judged"]) == (2, 2, 1, 1)
    # seen gold: r1's g0..g2, g4 and r2's one = 5 (r3's is not judged); r1's g3 starts at 2000 >= 1000
    assert (row["n_gold_spans"], row["n_gold_spans_unseen"]) == (5, 1)
    assert (row["n_gold_claims"], row["n_gold_premises"]) == (1, 3)  # g0 | g1, g4, r2's
    assert (row["n_units"], row["n_unit_claims"], row["n_unit_premises"]) == (4, 2, 2)


def test_span_extraction_by_iou_and_by_overlap(db):
    row = _row(db, "test")
    # IoU >= 0.5: units u0, u1 match (2 of 4); gold g0, g1 are matched (2 of 5)
    assert row["span_precision_iou"] == pytest.approx(2 / 4)
    assert row["span_recall_iou"] == pytest.approx(2 / 5)
    assert row["span_f1_iou"] == pytest.approx(2 * 0.5 * 0.4 / (0.5 + 0.4))  # 0.444
    # overlap: all 4 units; gold g0, g1, g2, g4 (4 of 5; r2's span is missed by its null judgment)
    assert row["span_precision_overlap"] == pytest.approx(1.0)
    assert row["span_recall_overlap"] == pytest.approx(4 / 5)
    assert row["span_f1_overlap"] == pytest.approx(2 * 1.0 * 0.8 / 1.8)  # 0.889


def test_roles_over_matched_pairs(db):
    row = _row(db, "test")
    # IoU pairs with a gold role: (u0 claim, g0 claim) agree, (u1 claim, g1 premise) do not
    assert row["role_accuracy_iou"] == pytest.approx(1 / 2)
    assert row["claim_precision_iou"] == pytest.approx(1 / 2)  # labelled claim: u0, u1; right: u0
    assert row["claim_recall_iou"] == pytest.approx(1.0)  # gold claim pairs: g0, labelled claim
    assert row["claim_f1_iou"] == pytest.approx(2 * 0.5 * 1.0 / 1.5)
    # no pair labelled premise: precision null (empty denominator), recall 0/1, so F1 null
    assert row["premise_precision_iou"] is None
    assert row["premise_recall_iou"] == 0
    assert row["premise_f1_iou"] is None
    # overlap adds (u2, g2) -- gold without a role, left out -- and (u3 premise, g4 premise)
    assert row["role_accuracy_overlap"] == pytest.approx(2 / 3)
    assert row["premise_precision_overlap"] == pytest.approx(1.0)  # u3
    assert row["premise_recall_overlap"] == pytest.approx(1 / 2)  # gold premise pairs g1, g4; right: g4
    assert row["premise_f1_overlap"] == pytest.approx(2 * 1.0 * 0.5 / 1.5)


def test_roles_end_to_end(db):
    row = _row(db, "test")
    # IoU: claim units u0 (matches g0, a claim) and u1 (matches g1, a premise) -> 1/2; gold claims: g0 -> 1/1
    assert (row["claim_all_precision_iou"], row["claim_all_recall_iou"]) == (pytest.approx(0.5), pytest.approx(1.0))
    # premise units u2, u3 match nothing at IoU 0.5 -> 0/2; gold premises g1, g4, r2's: none -> 0/3; F1 0
    assert (row["premise_all_precision_iou"], row["premise_all_recall_iou"], row["premise_all_f1_iou"]) == (0, 0, 0)
    # overlap: u3 touches g4 (a premise) -> 1/2; gold premises: g4 only -> 1/3; F1 = 2(1/2)(1/3)/(5/6) = 0.4
    assert row["premise_all_precision_overlap"] == pytest.approx(1 / 2)
    assert row["premise_all_recall_overlap"] == pytest.approx(1 / 3)
    assert row["premise_all_f1_overlap"] == pytest.approx(0.4)


def test_nothing_matched_is_zero_and_empty_denominators_are_null(db):
    row = _row(db, "train")  # r6: claim unit [0, 5), gold premise [100, 120)
    assert (row["n_units"], row["n_gold_spans"]) == (1, 1)
    assert (row["span_precision_iou"], row["span_recall_iou"], row["span_f1_iou"]) == (0, 0, 0)
    assert row["claim_precision_iou"] is None and row["role_accuracy_overlap"] is None  # no matched pair
    assert row["claim_all_precision_iou"] == 0 and row["claim_all_recall_iou"] is None  # no gold claim
    assert row["claim_all_f1_iou"] is None


def test_gate_passes(db):
    result = run_gate("quality_judge_validation", db)
    assert result.success, result.describe()
