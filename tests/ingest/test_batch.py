"""One reject/collect skeleton for every importer: each bad item comes back as a rejected
`Outcome` (what, where, why) matched one-to-one by an `ingest_rejected` event, and the good items
of the same input still land."""

import json
import shutil

import pytest

from peerlake.ingest.asap import import_asap
from peerlake.ingest.batch import Outcome, counts
from peerlake.ingest.demo_corpus import demo_papers, demo_reviews
from peerlake.ingest.external_reviews import import_external_reviews
from peerlake.ingest.openreview import import_reviews
from peerlake.ingest.papers import ingest_pdf


def _pdfs(log, tmp_path):
    (tmp_path / "empty.pdf").write_bytes(b"")
    shutil.copyfile(demo_papers()[0], tmp_path / "good.pdf")
    return [ingest_pdf(log, tmp_path / n) for n in ("empty.pdf", "good.pdf")], "pdf", "paper_ingested", "empty"


def _openreview(log, tmp_path):
    notes = json.loads(demo_reviews()[0].read_text())
    bad = next(n for n in notes if n["invitations"][0].endswith("/-/Official_Review"))
    bad = {**bad, "id": "off-scale", "content": {**bad["content"], "rating": {"value": 7}}}
    path = tmp_path / "notes.json"
    path.write_text(json.dumps([*notes, bad]))
    return import_reviews(log, path), "openreview", "human_review_imported", "off-scale"


def _asap(log, tmp_path):
    folder = tmp_path / "asap"
    folder.mkdir()
    files = {
        "paper": {"title": "A tiny paper", "decision": "Accept (Poster)"},
        "review": {"reviews": [{"rating": "8: Top 50% of accepted papers", "confidence": "4: confident"},
                               {"rating": "eleven"}]},
        "content": {"metadata": {"title": "A TINY PAPER", "references": [],
                                 "sections": [{"heading": "1 Introduction", "text": "We study tiny papers."}]}},
    }
    for kind, doc in files.items():
        (folder / f"ICLR_2017_1_{kind}.json").write_text(json.dumps(doc))
    return import_asap(log, folder), "asap", "human_review_imported", "ICLR_2017_1-review-1"


def _reviews(log, tmp_path):
    path = tmp_path / "system.jsonl"
    path.write_text(json.dumps({"paper_id": "P1", "review_id": "r1", "score": 6, "text": "Fine."})
                    + "\n" + json.dumps({"paper_id": "P1", "review_id": "r2", "score": "six", "text": "x"}) + "\n")
    return import_external_reviews(log, path, system="panel"), "reviews", "external_review_imported", "line 2"


@pytest.mark.parametrize("run", [_pdfs, _openreview, _asap, _reviews], ids=lambda f: f.__name__.strip("_"))
def test_every_importer_rejects_and_collects_the_same_way(log, tmp_path, run):
    outcomes, source, good_event, what = run(log, tmp_path)
    assert outcomes and all(isinstance(o, Outcome) for o in outcomes)
    rejected = [o for o in outcomes if o.status == "rejected"]
    assert len(rejected) == 1  # each input above holds exactly one bad item
    [o] = rejected
    assert what in (o.item, o.paper_id)  # what: the note, review, line or paper
    assert o.reason.startswith(str(o.path)) and o.event is None  # where, then why
    [ev] = list(log.iter_events("ingest_rejected"))
    assert (ev.source, ev.path, ev.reason, ev.item, ev.paper_id, ev.severity) == (
        source, str(o.path), o.reason, o.item, o.paper_id, o.severity)
    # The rest of the input went on, and each outcome that wrote an event carries it.
    landed = list(log.iter_events(good_event))
    assert landed
    written = {o.event.event_id for o in outcomes if o.event is not None and o.status != "unchanged"}
    assert {e.event_id for e in landed} <= written
    assert counts(outcomes)["rejected"] == 1
