"""`peerlake ingest labels` with (review, unit span, label) lines — the judge cards' human labels — and
SubstanReview's per-annotator files: good lines import, bad ones are set aside with their line number."""

import json

from typer.testing import CliRunner

from peerlake.ingest.reference_labels import import_reference_labels
from peerlake.ingest.substanreview import import_substanreview_annotators

R = "external:substanreview:7"


def _write(path, lines: list) -> None:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")


def test_span_labels_import_and_hostile_lines_are_set_aside_with_their_line(log, tmp_path):
    path = tmp_path / "spans.jsonl"
    _write(path, [
        {"review_key": R, "start": 6, "end": 17, "label": "claim"},
        {"review_key": R, "start": 6, "end": 17, "label": "premise", "annotator": "ana"},
        {"review_key": R, "start": 20, "end": 30, "label": 3, "dimension": "grounding"},
        {"review_key": R, "start": 17, "end": 6, "label": "claim"},  # reversed
        {"review_key": R, "start": 1.5, "end": 6, "label": "claim"},  # not whole
        {"start": 0, "end": 6, "label": "claim"},  # no review
        {"review_key": R, "start": 0, "end": 6, "label": ""},  # empty label
        {"review_key": R, "start": 0, "end": 6, "label": "claim", "annotater": "x"},  # misspelt key
        '{"review_key": "' + R + '", "start": 0',  # truncated
    ])
    out = import_reference_labels(log, path, "my_spans")
    assert [o.status for o in out] == ["imported"] * 3 + ["rejected"] * 6
    why = {o.item: o.reason for o in out if o.status == "rejected"}
    assert "0 <= start < end" in why["line 4"] and "0 <= start < end" in why["line 5"]
    assert "needs 'review_key'" in why["line 6"] and "'label' must be" in why["line 7"]
    assert "unknown key(s) 'annotater'" in why["line 8"] and "not valid JSON" in why["line 9"]
    assert all(f"line {n}" in why[f"line {n}"] for n in range(4, 10))
    labels = [(e.subject_key, json.loads(e.label_json), e.labelled_by)
              for e in log.iter_events("reference_label_imported")]
    assert labels == [
        (R, {"start": 6, "end": 17, "label": "claim", "dimension": "role"}, None),
        (R, {"start": 6, "end": 17, "label": "premise", "dimension": "role", "annotator": "ana"}, "ana"),
        (R, {"start": 20, "end": 30, "label": 3, "dimension": "grounding"}, None)]
    # the same file again: nothing new (the annotator is part of what makes a label new)
    assert [o.status for o in import_reference_labels(log, path, "my_spans")][:3] == ["skipped"] * 3


def test_the_detection_dataset_takes_no_spans(log, tmp_path):
    path = tmp_path / "x.jsonl"
    _write(path, [{"review_key": R, "start": 0, "end": 3, "label": "claim"}])
    [o] = import_reference_labels(log, path, "detection_verified")
    assert o.status == "rejected" and "not spans" in o.reason


def test_the_cli_names_each_bad_line(tmp_path, monkeypatch):
    import typer

    from peerlake.commands.ingest import register

    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    path = tmp_path / "spans.jsonl"
    _write(path, [{"review_key": R, "start": 0, "end": 4, "label": "claim"}, {"review_key": R, "start": 4}])
    app = typer.Typer()
    register(app)
    result = CliRunner().invoke(app, ["ingest", "labels", str(path), "--dataset", "my_spans"])
    assert result.exit_code == 0, result.output
    assert "line 2" in result.output and "imported 1" in result.output and "rejected 1" in result.output


def _final_and_annotators(tmp_path, final: list, annotators: dict[str, list]):
    root = tmp_path / "substanreview"
    (root / "annotation_final").mkdir(parents=True)
    (root / "annotation_IAA").mkdir()
    _write(root / "annotation_final" / "train.jsonl", final)
    for name, lines in annotators.items():
        _write(root / "annotation_IAA" / f"{name}.jsonl", lines)
    return root


def test_annotator_files_are_matched_to_the_final_review_by_text(log, tmp_path):
    text = "Good paper.\u2028It is clear."  # a line separator inside the text: lines split on \n only
    root = _final_and_annotators(tmp_path, [{"id": 7, "review": text, "label": [[0, 11, "Eval_pos_1"]]}], {
        "annotator_1": [{"id": 900, "text": text, "label": [[0, 11, "Eval_pos_1"]], "rid": 1},
                        {"id": 901, "text": "Another review.", "label": []},  # in no final file
                        "{broken"],
        "annotator_2": [{"id": 900, "text": text, "label": [[12, 24, "Jus_pos_1"]]}]})
    out = import_substanreview_annotators(log, root)
    assert [(o.status, o.item) for o in out] == [
        ("imported", "annotator_1 line 1"), ("rejected", "annotator_1 line 2"), ("rejected", "annotator_1 line 3"),
        ("imported", "annotator_2 line 1")]
    assert "no review in annotation_final" in out[1].reason and "line 3" in out[2].reason
    events = list(log.iter_events("span_annotation_imported"))
    assert [(e.review_key, e.annotator, e.split) for e in events] == [
        (R, "annotator_1", "train"), (R, "annotator_2", "train")]
    assert json.loads(events[1].spans_json)[0]["role"] == "premise"
    assert [o.status for o in import_substanreview_annotators(log, root)] == ["skipped", "rejected", "rejected",
                                                                              "skipped"]


def test_the_real_annotator_files_all_import(log, shared):
    root = shared("substanreview", "annotation_IAA").parent
    out = import_substanreview_annotators(log, root)
    assert [o.status for o in out] == ["imported"] * 150  # 3 annotators × 50 reviews
    keys = {e.review_key for e in log.iter_events("span_annotation_imported")}
    assert keys == {f"external:substanreview:{i}" for i in range(50)}  # the first 50 of train
