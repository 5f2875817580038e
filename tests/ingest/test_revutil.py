"""RevUtil → the focused reviews + one label row per rater of each comment (and the majority's): the real
dataset (skipped when ../shared/data is absent) and hostile CSVs made here."""

import ast
import csv
import json
import os

import pytest

from peerlake.ingest.label_mapping import load, shipped_dir
from peerlake.ingest.revutil import ASPECTS, FILE, import_revutil
from peerlake.judging.reviews import external_reviews
from peerlake.warehouse import EventLog, Lake
from tests.conftest import SHARED_DATA


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    root = SHARED_DATA / "revutil"
    if not (root / FILE).is_file():
        pytest.skip(f"RevUtil not present at {root}")
    log = EventLog(Lake(tmp_path_factory.mktemp("revutil") / "lake"))
    first = import_revutil(log, root)
    n_events = sum(1 for _ in log.iter_events())
    second = import_revutil(log, root)
    yield root, log, first, second, n_events
    log.close()


def _records(path):
    csv.field_size_limit(10**7)
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_the_real_dataset_counts(real):
    root, log, first, second, n_events = real
    records = _records(root / FILE)
    people = {(k, p) for k, r in enumerate(records) for a in ASPECTS for p in ast.literal_eval(r[a])["annotators"]}
    assert len(records) == 1135 and len({p for _, p in people}) == 23  # SOURCE.md: 1,135 comments, 23 raters
    assert (len(first.items), len(first.annotators), first.has_reference) == (1135, 23, True)
    rows = list(log.iter_events("human_label_imported"))
    assert [o for o in first.outcomes if o.status == "rejected"] == []
    assert len(rows) == len(people) + 1135  # a row per (comment, rater) and the majority's
    assert len(list(log.iter_events("external_review_imported"))) == len({r["focused_review"] for r in records})
    # a second import writes nothing
    assert {o.status for o in second.outcomes} == {"skipped"} and sum(1 for _ in log.iter_events()) == n_events


def test_hand_checked_comment_three_raters_and_the_majority(real):
    root, log, _, _, _ = real
    first = _records(root / FILE)[0]
    assert first["paper_id"] == "ARR_2022_60_review" and first["review_point"].startswith("- There were too many")
    assert ast.literal_eval(first["actionability"]) == {"annotators": ["fZav2G06", "DVRTnFRi", "boda"],
                                                        "labels": ["4", "5", "4"]}
    rows = {r.annotator: r for r in log.iter_events("human_label_imported") if r.line_no == 2}
    assert set(rows) == {"fZav2G06", "DVRTnFRi", "boda", None}
    # actionability 4/5/4, grounding 4/1/3, verifiability 3/1/X, tone 0/1/1 (the file's row 2), by hand:
    assert json.loads(rows["fZav2G06"].mapped_json) == {"actionability": 1, "specificity": 2, "justification": 1,
                                                        "tone": 0}
    assert json.loads(rows["DVRTnFRi"].mapped_json) == {"actionability": 2, "specificity": 0, "justification": 0,
                                                        "tone": 1}
    assert json.loads(rows["boda"].mapped_json) == {"actionability": 1, "specificity": 1, "justification": None,
                                                    "tone": 1}
    # the majority: actionability 4 (silver), no agreement on grounding or verifiability, tone 1
    ref = rows[None]
    assert ref.is_reference and json.loads(ref.labels_json)["actionability_label_type"] == "silver"
    assert json.loads(ref.mapped_json) == {"actionability": 1, "specificity": None, "justification": None, "tone": 1}
    [judged] = [r for r in external_reviews(log) if r.review_key == ref.review_key]
    assert judged.text[ref.judged_start:ref.judged_end] == first["review_point"].strip()


HEADER = ["review_point", "paper_id", "venue", "focused_review", "batch"] + [
    c for a in ASPECTS for c in (a, f"{a}_label", f"{a}_label_type")]


def _row(point="Add a baseline.", paper="p1", review="Weak. Add a baseline. Fine.", **cells):
    row = {"review_point": point, "paper_id": paper, "venue": "V", "focused_review": review, "batch": "1"}
    for a in ASPECTS:
        row[a] = cells.get(a, "{'annotators': ['a1', 'a2'], 'labels': ['1', '1']}")
        row[f"{a}_label"], row[f"{a}_label_type"] = "1", "gold"
    return row


def _write(path, rows, header=HEADER):
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header)
        w.writeheader()
        w.writerows(rows)
    return path


def test_hostile_rows_are_named_and_set_aside(tmp_path, log):
    pwned = tmp_path / "pwned"
    rows = [
        _row(),
        _row(point="Two.", actionability=f"__import__('os').system('touch {pwned}')"),  # code, never run
        _row(point="Three.", paper="../etc"),  # a paper id that escapes
        _row(point="Four.", actionability="{'annotators': ['a1', 'a2'], 'labels': ['7', '2']}"),  # a1's 7: unknown
        _row(point=""),
    ]
    path = _write(tmp_path / "annotations.csv", rows)
    found = import_revutil(log, path)
    assert not pwned.exists()
    rejected = sorted(o.reason for o in found.outcomes if o.status == "rejected")
    assert len(rejected) == 4, rejected
    text = "\n".join(rejected)
    assert f"{path} row 3: actionability: \"__import__('os')" in text
    assert f"{path} row 4: paper id (from paper_id) 'revutil-../etc' is not valid" in text
    assert f"{path} row 5: actionability '7' is not in label mapping dimension 'actionability'" in text
    assert f"{path} row 6: review_point is empty" in text
    # rows 2 and 5 went on: a1, a2 and the majority of row 2; a2 and the majority of row 5
    got = sorted((r.line_no, r.annotator or "-") for r in log.iter_events("human_label_imported"))
    assert got == [(2, "-"), (2, "a1"), (2, "a2"), (5, "-"), (5, "a2")]
    ok = next(r for r in log.iter_events("human_label_imported") if r.line_no == 2)
    assert (ok.start, ok.end) == (6, 21)  # "Add a baseline." inside "Weak. Add a baseline. Fine."


def test_a_wrong_file_and_a_link_out_of_the_folder(tmp_path, log):
    other = _write(tmp_path / "other.csv", [{"a": 1}], header=["a"])
    found = import_revutil(log, other)
    assert [o.reason for o in found.outcomes] == [f"{other}: not RevUtil's annotations: no column review_point, "
                                                  f"paper_id, focused_review, {', '.join(ASPECTS)}"]
    folder = tmp_path / "revutil"
    folder.mkdir()
    os.symlink(_write(tmp_path / "elsewhere.csv", [_row()]), folder / FILE)
    found = import_revutil(log, folder)
    assert [o.reason for o in found.outcomes] == [f"{folder / FILE}: points outside {folder} (a link); refused"]
    with pytest.raises(ValueError, match="is not a RevUtil folder or CSV file"):
        import_revutil(log, tmp_path / "notes.jsonl")
    assert list(log.iter_events("human_label_imported")) == []


def test_an_edited_mapping_is_a_new_hash_and_its_rows_stand_beside_the_old(tmp_path, log):
    path = _write(tmp_path / "annotations.csv", [_row(actionability="{'annotators': ['a1'], 'labels': ['4']}")])
    import_revutil(log, path)
    text = (shipped_dir() / "revutil.toml").read_text(encoding="utf-8")
    assert 'values = { "1" = 0, "2" = 1, "3" = 2, "4" = 1, "5" = 2 }' in text
    edited = tmp_path / "revutil-monotone.toml"  # RevUtil 4 read as explicit: the alternative the docs name
    edited.write_text(text.replace('"3" = 2, "4" = 1, "5" = 2', '"3" = 1, "4" = 2, "5" = 2'), encoding="utf-8")
    found = import_revutil(log, path, mapping=load(str(edited)))
    assert {o.status for o in found.outcomes} == {"imported"}
    a1 = sorted((r.mapping_sha256 == load("revutil").sha256, json.loads(r.mapped_json)["actionability"])
                for r in log.iter_events("human_label_imported") if r.annotator == "a1")
    assert a1 == [(False, 2), (True, 1)]
