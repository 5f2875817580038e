"""DISAPERE → external reviews + one label row per sentence per annotator: the real dataset (skipped when
../shared/data is absent) and hostile folders made here."""

import json
import os

import pytest

from peerlake.ingest.disapere import import_disapere
from peerlake.ingest.label_mapping import load
from peerlake.judging.reviews import external_reviews
from peerlake.warehouse import EventLog, Lake
from tests.conftest import SHARED_DATA


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    root = SHARED_DATA / "disapere"
    if not (root / "final_dataset").is_dir():
        pytest.skip(f"DISAPERE not present at {root}")
    log = EventLog(Lake(tmp_path_factory.mktemp("disapere") / "lake"))
    first = import_disapere(log, root)
    n_events = sum(1 for _ in log.iter_events())
    second = import_disapere(log, root)
    yield root, log, first, second, n_events
    log.close()


def test_the_real_dataset_counts(real):
    root, log, first, _, _ = real
    finals = sorted(root.glob("final_dataset/*/*.json"))
    extras = sorted(root.glob("extra_annotations/*/*.json"))
    n_sentences = sum(len(json.loads(p.read_text(encoding="utf-8"))["review_sentences"]) for p in finals)
    n_extra = sum(len(json.loads(p.read_text(encoding="utf-8"))["review_sentences"]) for p in extras)
    assert (len(finals), n_sentences, len(extras)) == (506, 9946, 261)  # SOURCE.md's counts
    assert len(first.items) == 9946 and len(first.annotators) == 17
    assert [o for o in first.outcomes if o.status == "rejected"] == []
    rows = list(log.iter_events("human_label_imported"))
    assert len(rows) == n_sentences + n_extra == 14409
    assert sum(r.is_reference for r in rows) == 9946
    assert len({e.review_id for e in log.iter_events("external_review_imported")}) == 506


def test_a_second_import_writes_nothing(real):
    _, log, _, second, n_events = real
    assert {o.status for o in second.outcomes} == {"skipped"} and len(second.outcomes) == 14409
    assert sum(1 for _ in log.iter_events()) == n_events


def test_hand_checked_review_two_annotators_apart(real):
    root, log, _, _, _ = real
    doc = json.loads((root / "final_dataset/dev/Skx9YZG-qB.json").read_text(encoding="utf-8"))
    assert (doc["metadata"]["annotator"], doc["metadata"]["forum_id"]) == ("anno10", "Syx79eBKwr")
    rows = {(r.item_key, r.annotator): r for r in log.iter_events("human_label_imported")
            if r.review_key == "external:disapere:Skx9YZG-qB"}
    assert len(rows) == 12  # 6 sentences × (anno10 in final_dataset, anno13 in extra_annotations)
    s4 = rows[("Skx9YZG-qB#4", "anno10")]
    assert s4.item_text.startswith("The originality is relative low though")
    assert (s4.paper_id, s4.split, s4.is_reference, s4.mapping) == ("Syx79eBKwr", "dev", True, "disapere")
    assert json.loads(s4.mapped_json) == {"role": "claim", "is_unit": True, "aspect": "contribution",
                                          "aspect_prism_paper": "novelty", "novelty_stance": "not_novel"}
    assert s4.mapping_sha256 == load("disapere").sha256 and log.blobs.get(s4.mapping_sha256) == load("disapere").raw
    # sentence 2: a summary to anno10, a request about substance to anno13
    assert json.loads(rows[("Skx9YZG-qB#2", "anno10")].mapped_json)["role"] is None
    s2 = rows[("Skx9YZG-qB#2", "anno13")]
    assert (s2.is_reference, json.loads(s2.labels_json)["review_action"]) == (False, "arg_request")
    assert json.loads(s2.mapped_json)["role"] == "claim"
    # the review: its ICLR rating as the score, its sentences joined; every sentence's judged offsets point
    # at its words in the text the judge reads
    [review] = [e for e in log.iter_events("external_review_imported") if e.review_id == "Skx9YZG-qB"]
    assert review.score == doc["metadata"]["rating"] and review.paper_id == "Syx79eBKwr"
    [judged] = [r for r in external_reviews(log) if r.review_key == "external:disapere:Skx9YZG-qB"]
    for row in rows.values():
        assert judged.text[row.judged_start:row.judged_end] == row.item_text.strip()


def _folder(tmp_path):
    root = tmp_path / "disapere"
    (root / "final_dataset" / "train").mkdir(parents=True)
    (root / "extra_annotations" / "train").mkdir(parents=True)
    return root


def _review(rid="r1", annotator="anno1", actions=("arg_evaluative", "arg_fact")):
    sentences = [{"review_id": rid, "sentence_index": k, "text": f"Sentence {k}.", "suffix": " ",
                  "review_action": a, "fine_review_action": "none", "aspect": "asp_clarity", "polarity": "none"}
                 for k, a in enumerate(actions)]
    return {"metadata": {"review_id": rid, "forum_id": "f1", "annotator": annotator}, "review_sentences": sentences,
            "rebuttal_sentences": []}


def test_hostile_files_are_named_and_set_aside(tmp_path, log):
    root = _folder(tmp_path)
    final = root / "final_dataset" / "train"
    (final / "r1.json").write_text(json.dumps(_review(actions=("arg_evaluative", "arg_rant", "arg_fact"))))
    (final / "r2.json").write_text('{"metadata": {"review_id": "r2"')  # truncated JSON
    (final / "r3.json").write_text(json.dumps(_review("r3") | {"metadata": {"review_id": "../x", "forum_id": "f",
                                                                            "annotator": "a"}}))
    (final / "r4.json").write_text(json.dumps(_review("r5")))  # the name says another review
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(_review("r6")))
    os.symlink(outside, final / "r6.json")  # a link out of the folder
    extra = root / "extra_annotations" / "train"
    (extra / "r1.anno2.json").write_text(json.dumps(_review(annotator="anno2", actions=("arg_fact",))))
    (extra / "r1.anno3.json").write_text(json.dumps(_review(annotator="anno2")))  # name and annotator differ
    (extra / "r1.anno4.json").write_text(json.dumps(_review(annotator="anno4", actions=(
        "arg_evaluative", "arg_request", "arg_fact"))))
    found = import_disapere(log, root)
    reasons = sorted(o.reason for o in found.outcomes if o.status == "rejected")
    assert len(reasons) == 7, reasons
    text = "\n".join(reasons)
    assert f"{final / 'r1.json'} sentence 1: review_action 'arg_rant' is not in label mapping" in text
    assert f"{final / 'r2.json'}: not valid JSON" in text
    assert "metadata.review_id '../x' is not valid" in text
    assert f"{final / 'r4.json'}: holds review 'r5', not the 'r4' its name says" in text
    assert f"{final / 'r6.json'}: points outside {root} (a link); refused" in text
    assert f"{extra / 'r1.anno2.json'}: its sentences are not those of final_dataset's review r1" in text
    assert f"{extra / 'r1.anno3.json'}: holds review 'r1' by 'anno2': its name should be r1.anno2.json" in text
    # the rest went on: r1's two good sentences by anno1 (final) and all three of anno4's (extra)
    rows = sorted((r.item_key, r.is_reference) for r in log.iter_events("human_label_imported"))
    assert rows == [("r1#0", False), ("r1#0", True), ("r1#1", False), ("r1#2", False), ("r1#2", True)]
    assert len(list(log.iter_events("ingest_rejected"))) == 7
    again = import_disapere(log, root)  # nothing new: not the rows, not the rejections
    assert {o.status for o in again.outcomes} == {"skipped", "rejected"}
    assert len(list(log.iter_events("ingest_rejected"))) == 7
    assert len(list(log.iter_events("human_label_imported"))) == 5


def test_a_folder_of_another_dataset_is_refused(tmp_path, log):
    (tmp_path / "revutil").mkdir()
    with pytest.raises(ValueError, match="is not a DISAPERE folder: it has no final_dataset/"):
        import_disapere(log, tmp_path / "revutil")
    assert list(log.iter_events()) == []
