"""`peerlake ingest labels FILE --dataset NAME` → reference_label_imported; bad lines reported and set aside,
a re-import skipped."""

import json

import pytest
import typer
from typer.testing import CliRunner

from peerlake.commands.ingest import register
from peerlake.ingest.reference_labels import import_reference_labels

V = "paper-1~contradiction-0123456789"


def _write(tmp_path, lines: list, name: str = "labels.jsonl"):
    path = tmp_path / name
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return path


def test_good_lines_import_and_bad_ones_are_set_aside(log, tmp_path):
    path = _write(tmp_path, [
        {"variant_id": V, "review_key": "peerlake:r1", "identified": True, "labelled_by": "ana"},
        {"subject_key": f"{V}|peerlake:r2", "label": {"identified": False, "note": "talks about seeds"},
         "paper_id": V},
        "",  # blank lines are not items
        "{oops",
        ["a list"],
        {"variant_id": V, "identified": True},  # no review key
        {"variant_id": V, "review_key": "peerlake:r3", "identified": "yes"},  # not a bool
        {"subject_key": "x|y", "variant_id": V, "review_key": "peerlake:r4", "identified": True},  # disagree
        {"variant_id": V, "review_key": "peerlake:r5"},  # no label at all
    ])
    out = import_reference_labels(log, path, "detection_verified")
    assert [o.status for o in out] == ["imported", "imported"] + ["rejected"] * 6
    assert [o.item for o in out if o.status == "rejected"] == [f"line {n}" for n in (4, 5, 6, 7, 8, 9)]
    why = [o.reason for o in out if o.status == "rejected"]
    assert "line 4: not valid JSON" in why[0] and "not a JSON object (list)" in why[1]
    assert "no subject" in why[2] and "'identified' must be true or false, got 'yes'" in why[3]
    assert "disagrees" in why[4] and "no label" in why[5]
    labels = list(log.iter_events("reference_label_imported"))
    assert [(e.subject_key, json.loads(e.label_json), e.labelled_by, e.line_no, e.dataset) for e in labels] == [
        (f"{V}|peerlake:r1", {"identified": True}, "ana", 1, "detection_verified"),
        (f"{V}|peerlake:r2", {"identified": False, "note": "talks about seeds"}, None, 2, "detection_verified")]
    assert labels[1].paper_id == V and labels[1].source_path == str(path)
    rejected = list(log.iter_events("ingest_rejected"))
    assert len(rejected) == 6 and {e.source for e in rejected} == {"reference_labels"}
    # the same file again: both labels skipped, nothing new written
    again = import_reference_labels(log, path, "detection_verified")
    assert [o.status for o in again][:2] == ["skipped", "skipped"]
    assert len(list(log.iter_events("reference_label_imported"))) == 2


def test_another_dataset_takes_any_label_and_a_name_is_required(log, tmp_path):
    path = _write(tmp_path, [{"subject_key": "s1", "score": 3}])
    assert [o.status for o in import_reference_labels(log, path, "my_audit")] == ["imported"]
    with pytest.raises(ValueError, match="dataset"):
        import_reference_labels(log, path, " ")


def test_cli(lake, tmp_path):
    app = typer.Typer()
    register(app)
    runner = CliRunner()
    path = _write(tmp_path, [{"variant_id": V, "review_key": "peerlake:r1", "identified": True}, "{oops"])
    r = runner.invoke(app, ["ingest", "labels", str(path), "--dataset", "detection_verified"])
    assert r.exit_code == 0, r.output
    assert "imported 1 · skipped 0 · rejected 1" in r.output and "line 2: not valid JSON" in r.output
    r = runner.invoke(app, ["ingest", "labels", str(path), "--dataset", "detection_verified", "--strict"])
    assert r.exit_code == 1 and "skipped 1" in r.output
