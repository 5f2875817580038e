"""ReviewCritique → the 20 papers, their 60 LLM reviews and one expert label row per segment: the real
dataset (skipped when ../shared/data is absent) and hostile lines made here; and `peerlake ingest labels
--format` through typer."""

import json
import math
import re

import pytest
import typer
from typer.testing import CliRunner

from peerlake.commands.ingest import register
from peerlake.ingest.package import load_package
from peerlake.ingest.reviewcritique import FILE, MODELS, import_reviewcritique
from peerlake.judging.reviews import external_reviews
from peerlake.warehouse import EventLog, Lake
from tests.conftest import SHARED_DATA


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    root = SHARED_DATA / "reviewcritique"
    if not (root / FILE).is_file():
        pytest.skip(f"ReviewCritique not present at {root}")
    log = EventLog(Lake(tmp_path_factory.mktemp("reviewcritique") / "lake"))
    first = import_reviewcritique(log, root)
    n_events = sum(1 for _ in log.iter_events())
    second = import_reviewcritique(log, root)
    yield root, log, first, second, n_events
    log.close()


def test_the_real_dataset_counts(real):
    root, log, first, second, n_events = real
    papers = [json.loads(line) for line in (root / FILE).read_text(encoding="utf-8").splitlines() if line.strip()]
    segments = [s for p in papers for m in MODELS for s in p[m]["review"]]
    assert (len(papers), len(segments), sum(s["reliability"] == "No" for s in segments)) == (20, 1610, 226)
    rows = list(log.iter_events("human_label_imported"))
    # one segment is marked reliable yet given an error type: set aside, named
    [bad] = [o for o in first.outcomes if o.status == "rejected"]
    assert bad.reason == (f"{root / FILE} line 18 claude_opus segment 33: marked reliable yet given error type "
                          "'Contradiction': the labels contradict each other")
    assert len(rows) == len(first.items) == 1609 and first.annotators == set() and first.has_reference
    assert sum(json.loads(r.labels_json)["reliability"] == "No" for r in rows) == 226
    assert len(list(log.iter_events("external_review_imported"))) == 60
    assert len(list(log.iter_events("paper_ingested"))) == 20
    assert {o.status for o in second.outcomes} == {"skipped", "unchanged", "rejected"}
    assert sum(1 for _ in log.iter_events()) == n_events  # the second import wrote nothing, not even the rejection


def test_hand_checked_segments_and_the_paper_at_hand(real):
    root, log, _, _, _ = real
    first = json.loads((root / FILE).read_text(encoding="utf-8").splitlines()[0])
    assert first["title"] == "UNDERSTANDING HTML WITH LARGE LANGUAGE MODELS"
    seg = first["gpt4"]["review"][16]
    assert (seg["reliability"], seg["error_type"]) == ("No", "Out-of-scope")
    rows = {r.item_key: r for r in log.iter_events("human_label_imported") if r.line_no == 1}
    [pid] = {r.paper_id for r in rows.values()}
    out_of_scope = rows[f"{pid}.gpt4#16"]
    assert out_of_scope.item_text == seg["segment_text"] and out_of_scope.annotator is None
    assert json.loads(out_of_scope.mapped_json) == {"validity": False, "invalid_reason": "unreasonable_request"}
    assert json.loads(rows[f"{pid}.gpt4#14"].mapped_json) == {"validity": False, "invalid_reason": "hallucinated"}
    assert json.loads(rows[f"{pid}.gpt4#18"].mapped_json) == {"validity": None, "invalid_reason": None}  # Writing
    assert json.loads(rows[f"{pid}.gpt4#0"].mapped_json) == {"validity": True, "invalid_reason": None}
    assert math.isnan(first["gpt4"]["review"][0]["error_type"])  # NaN in the file: no error type
    [judged] = [r for r in external_reviews(log) if r.review_key == out_of_scope.review_key]
    assert judged.text[out_of_scope.judged_start:out_of_scope.judged_end] == seg["segment_text"].strip()
    [paper] = [e for e in log.iter_events("paper_ingested") if e.paper_id == pid]
    assert "HTML" in load_package(log.blobs, paper.package_sha256).body_text()


def test_hostile_lines_are_named_and_set_aside(tmp_path, log):
    good = {"title": "T", "body_text": "Intro.\nWe do X.", "decision": "accepted",
            "gpt4": {"review": [{"segment_text": "X is wrong.", "reliability": "No", "error_type": "Neglect",
                                 "explanation": "It is right.", "topic_class_1": None, "topic_class_2": None},
                                {"segment_text": "Nice.", "reliability": "Maybe"}]}}
    path = tmp_path / "critique.jsonl"
    path.write_text("\n".join([json.dumps(good), "[" * 100_000 + "]" * 100_000, '{"title": "T2", "body_text": 3}',
                               json.dumps({"title": "T3", "body_text": "B", "gpt4": {"review": "oops"}})]) + "\n",
                    encoding="utf-8")
    found = import_reviewcritique(log, path)
    rejected = [o.reason for o in found.outcomes if o.status == "rejected"]
    assert rejected == [
        f"{path} line 1 gpt4 segment 1: reliability must be Yes or No, got 'Maybe'",
        f"{path} line 2: is nested too deeply to read (more than about 1,000 levels of arrays/objects)",
        f"{path} line 3: 3 is not text",
        f"{path} line 4: gpt4: 'review' must be a non-empty list of segments with segment_text"]
    [row] = log.iter_events("human_label_imported")
    assert json.loads(row.mapped_json) == {"validity": False, "invalid_reason": "hallucinated"}
    with pytest.raises(ValueError, match="is not a ReviewCritique folder"):
        import_reviewcritique(log, tmp_path)


def _flat(output: str) -> str:
    """typer's error box, its frame and line breaks taken out."""
    return re.sub(r"[│╭╮╰╯─\s]+", " ", output)


def test_the_cli_imports_a_format_and_refuses_a_wrong_one(lake, tmp_path):
    app = typer.Typer()
    register(app)
    runner = CliRunner()
    path = tmp_path / "critique.jsonl"
    path.write_text(json.dumps({"title": "T", "body_text": "Intro.", "gpt4": {"review": [
        {"segment_text": "Fine.", "reliability": "Yes"}, {"segment_text": "Bad.", "reliability": "No",
                                                          "error_type": "Vague Critique"}]}}) + "\n", encoding="utf-8")
    r = runner.invoke(app, ["ingest", "labels", "--format", "reviewcritique", str(path)])
    assert r.exit_code == 0 and "imported 2 · skipped 0 · ingested 1 · rejected 0 · 2 items" in r.output, r.output
    r = runner.invoke(app, ["ingest", "labels", "--format", "reviewcritique", str(path)])
    assert r.exit_code == 0 and "imported 0 · skipped 2 · unchanged 1 · rejected 0" in r.output, r.output
    r = runner.invoke(app, ["ingest", "labels", "--format", "disapere", str(tmp_path)])
    assert r.exit_code == 2 and "is not a DISAPERE folder" in _flat(r.output)
    r = runner.invoke(app, ["ingest", "labels", "--format", "asap", str(path)])
    assert r.exit_code == 2 and "use one of disapere, revutil, reviewcritique" in _flat(r.output)
    r = runner.invoke(app, ["ingest", "labels", "--format", "revutil", "--dataset", "x", str(path)])
    assert r.exit_code == 2 and "not both" in _flat(r.output)
    log = EventLog(Lake(lake.root))
    assert len(list(log.iter_events("human_label_imported"))) == 2
    log.close()
