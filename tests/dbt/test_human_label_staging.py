"""The staging views over human_label_imported, one per dataset, built by dbt (with their column checks) on a
tiny lake the three importers wrote from hand-made files: each row's typed columns read back by hand."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from peerlake.ingest.disapere import import_disapere
from peerlake.ingest.label_mapping import load
from peerlake.ingest.reviewcritique import import_reviewcritique
from peerlake.ingest.revutil import ASPECTS, import_revutil
from peerlake.warehouse import EventLog, Lake

PROJECT_DIR = Path(__file__).resolve().parents[2] / "dbt_project"
MODELS = ("stg_events__disapere_labels", "stg_events__revutil_labels", "stg_events__reviewcritique_labels")


def _disapere(root: Path) -> Path:
    folder = root / "disapere" / "final_dataset" / "dev"
    folder.mkdir(parents=True)
    sentences = [("The novelty is low.", "arg_evaluative", "asp_originality", "pol_negative"),
                 ("Table 2 shows no gain.", "arg_fact", "asp_substance", "none"),
                 ("Thanks.", "arg_social", "none", "none")]
    doc = {"metadata": {"review_id": "rv1", "forum_id": "f1", "annotator": "anno3"}, "review_sentences": [
        {"sentence_index": k, "text": t, "suffix": " ", "review_action": a, "fine_review_action": "none",
         "aspect": asp, "polarity": p} for k, (t, a, asp, p) in enumerate(sentences)]}
    (folder / "rv1.json").write_text(json.dumps(doc), encoding="utf-8")
    return root / "disapere"


def _revutil(root: Path) -> Path:
    path = root / "revutil.csv"
    row = {"review_point": "Cite X.", "paper_id": "p1", "venue": "V", "focused_review": "Weak. Cite X.", "batch": "1"}
    labels = {"actionability": "3", "grounding_specificity": "4", "verifiability": "X", "helpfulness": "4",
              "professional_tone": "1", "valid_point": "0", "addressed_to_author": "1"}
    for a in ASPECTS:
        row[a] = str({"annotators": ["r1"], "labels": [labels[a]]})
        row[f"{a}_label"], row[f"{a}_label_type"] = labels[a], "gold"
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(row))
        w.writeheader()
        w.writerow(row)
    return path


def _reviewcritique(root: Path) -> Path:
    path = root / "critique.jsonl"
    path.write_text(json.dumps({"title": "T", "body_text": "Intro.", "gpt4": {"review": [
        {"segment_text": "Good.", "reliability": "Yes"},
        {"segment_text": "Not about this paper.", "reliability": "No", "error_type": "Out-of-scope",
         "explanation": "Out of scope."}]}}) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("human_labels")
    log = EventLog(Lake(root / "lake"))
    for found in (import_disapere(log, _disapere(root)), import_revutil(log, _revutil(root)),
                  import_reviewcritique(log, _reviewcritique(root))):
        assert not [o for o in found.outcomes if o.status == "rejected"]
    log.seal()
    log.close()
    env = {k: v for k, v in os.environ.items() if k != "PEERLAKE_DUCKDB_PATH"}
    env.update(PEERLAKE_HOME=str(root / "lake"), PEERLAKE_DUCKDB_PATH=str(root / "marts.duckdb"))
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("dbt")), "build", "--select", *MODELS,
         "--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR),
         "--target-path", str(root / "target"), "--log-path", str(root / "logs")],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"dbt build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
    return root / "marts.duckdb"


def _rows(db: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_disapere_sentences_read_back_typed(db):
    rows = _rows(db, "select item_key, annotator, is_reference, review_action, depth_role, is_argument_unit, "
                     "depth_aspect, depth_aspect_prism_paper, novelty_stance, sentence_start, judged_start "
                     "from stg_events__disapere_labels order by item_key")
    assert rows == [
        ("rv1#0", "anno3", True, "arg_evaluative", "claim", True, "contribution", "novelty", "not_novel", 0, 6),
        ("rv1#1", "anno3", True, "arg_fact", "premise", True, "soundness", "experiments", None, 20, 26),
        ("rv1#2", "anno3", True, "arg_social", None, False, None, None, None, 43, 49)]
    [(sha,)] = _rows(db, "select distinct label_mapping_sha256 from stg_events__disapere_labels")
    assert sha == load("disapere").sha256


def test_revutil_comment_read_back_typed(db):
    rows = _rows(db, "select annotator, is_reference, revutil_actionability, actionability, specificity, "
                     "justification, tone_professional, revutil_verifiability, comment_start "
                     "from stg_events__revutil_labels order by annotator nulls last")
    # actionability 3 (explicit, vague) → 2; grounding 4 → 2; verifiability X → not compared; tone yes → 1
    assert rows == [("r1", False, "3", 2, 2, None, 1, "X", 6), (None, True, "3", 2, 2, None, 1, "X", 6)]


def test_reviewcritique_segments_read_back_typed(db):
    rows = _rows(db, "select item_key, reliability, error_type, is_valid_flaw, invalid_reason, expert_explanation "
                     "from stg_events__reviewcritique_labels order by item_key")
    [(pid,)] = _rows(db, "select distinct paper_id from stg_events__reviewcritique_labels")
    assert rows == [(f"{pid}.gpt4#0", "Yes", "reliable", True, None, None),
                    (f"{pid}.gpt4#1", "No", "out-of-scope", False, "unreasonable_request", "Out of scope.")]
