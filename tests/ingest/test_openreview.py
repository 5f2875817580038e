import json

import pytest

from peerlake.ingest.demo_corpus import demo_reviews
from peerlake.ingest.openreview import (
    ICLR2025_SCALE,
    ICLR2026_SCALE,
    NoteError,
    import_reviews,
    parse_score,
    scale_values,
)


def _notes(path):
    return json.loads(path.read_text())


def _leading_int(value):
    return int(value) if isinstance(value, int) else int(value.split(":")[0])


def test_parse_score_accepts_numbers_and_labelled_strings():
    assert parse_score("6: marginally above the acceptance threshold", "rating") == 6.0
    assert parse_score(" 10: strong accept", "rating") == 10.0
    assert parse_score(8, "rating") == 8.0 and parse_score(3.5, "confidence") == 3.5
    for bad in ("strong accept", "", None, True, [6]):
        with pytest.raises(NoteError, match="rating"):
            parse_score(bad, "rating")


def test_scale_values():
    assert scale_values(ICLR2025_SCALE) == [1, 3, 5, 6, 8, 10]
    assert scale_values(ICLR2026_SCALE) == [0, 2, 4, 6, 8, 10]


def test_demo_reviews_import_with_parsed_ratings(log):
    files = demo_reviews()
    assert len(files) == 4
    for path in files:
        outcomes = import_reviews(log, path)
        notes = {n["id"]: n for n in _notes(path)}
        imported = [o for o in outcomes if o.status == "imported"]
        assert 2 <= len(imported) <= 3
        assert {o.status for o in outcomes} == {"imported", "status_recorded"}  # the decision note
        decision = next(n for n in notes.values() if n["invitations"][0].endswith("/-/Decision"))
        status = next(o.event for o in outcomes if o.status == "status_recorded")
        assert status.decision == decision["content"]["decision"]["value"] and status.paper_id == path.stem
        assert (status.status, status.is_accepted) == (("accepted", True) if "Accept" in status.decision
                                                       else ("rejected", False))
        for o in imported:
            note = notes[o.item]
            ev = o.event
            assert ev.paper_id == path.stem == note["forum"]
            assert ev.rating == _leading_int(note["content"]["rating"]["value"])
            assert ev.confidence == _leading_int(note["content"]["confidence"]["value"])
            assert ev.rating_scale == ICLR2025_SCALE and ev.venue == "Demo.cc/2026/Conference"
            assert json.loads(log.blobs.get_text(ev.body_sha256)) == note
    events = list(log.iter_events("human_review_imported"))
    assert len(events) == 12 and len({e.review_id for e in events}) == 12


def test_reimport_is_idempotent(log):
    path = demo_reviews()[0]
    first = import_reviews(log, path)
    again = import_reviews(log, path)
    n_reviews = sum(o.status == "imported" for o in first)
    assert sum(o.status == "skipped" for o in again) == n_reviews + 1  # + the decision
    assert len(list(log.iter_events("paper_status_recorded"))) == 1
    assert not any(o.status == "imported" for o in again)
    assert len(list(log.iter_events("human_review_imported"))) == n_reviews


def test_malformed_file_does_not_stop_the_batch(log, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('[{"id": "x", "forum": ')
    wrong_shape = tmp_path / "shape.json"
    wrong_shape.write_text('{"reviews": []}')
    results = [import_reviews(log, p) for p in (broken, wrong_shape, tmp_path / "absent.json", demo_reviews()[1])]
    for outcomes, why in zip(results[:3], ("not valid JSON (line 1", "neither a list", "cannot be read"), strict=True):
        assert len(outcomes) == 1 and outcomes[0].status == "rejected"
        assert why in outcomes[0].reason and str(outcomes[0].path) in outcomes[0].reason
    assert sum(o.status == "imported" for o in results[3]) == 3


def test_bad_notes_are_rejected_and_the_rest_import(log, tmp_path):
    notes = _notes(demo_reviews()[2])
    reviews = [n for n in notes if n["id"].endswith(("-1", "-2", "-3"))]
    no_rating, off_scale, unparseable = (json.loads(json.dumps(n)) for n in reviews)
    del no_rating["content"]["rating"]
    off_scale["content"]["rating"]["value"] = 7
    unparseable["content"]["confidence"]["value"] = "very sure"
    good = json.loads(json.dumps(reviews[0]))
    good["id"] = "demo-003-review-ok"
    no_forum = json.loads(json.dumps(reviews[1]))
    no_forum["id"] = "demo-003-review-noforum"
    del no_forum["forum"]
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps({"notes": [no_rating, off_scale, unparseable, "not a note", no_forum, good]}))
    outcomes = import_reviews(log, path)
    assert [o.status for o in outcomes] == ["rejected"] * 5 + ["imported"]
    reasons = [o.reason for o in outcomes[:5]]
    assert "no content.rating" in reasons[0] and no_rating["id"] in reasons[0]
    assert "not on the venue's scale" in reasons[1]
    assert "content.confidence 'very sure'" in reasons[2]
    assert "not a JSON object" in reasons[3]
    assert "missing 'forum'" in reasons[4]
    assert [e.review_id for e in log.iter_events("human_review_imported")] == ["demo-003-review-ok"]
    # A rejected note is not marked as seen: once fixed, it imports.
    off_scale["content"]["rating"]["value"] = 6
    path.write_text(json.dumps([off_scale]))
    assert [o.status for o in import_reviews(log, path)] == ["imported"]


def test_explicit_venue_and_scale_override(log, tmp_path):
    notes = [n for n in _notes(demo_reviews()[0]) if "Official_Review" in n["invitations"][0]]
    path = tmp_path / "v1style.json"
    for n in notes:  # API v1 shape: unwrapped values, a single invitation
        n["content"] = {k: v["value"] for k, v in n["content"].items()}
        n["invitation"] = n.pop("invitations")[0]
        n.pop("domain")
    path.write_text(json.dumps(notes))
    outcomes = import_reviews(log, path, venue="Elsewhere/2026", rating_scale="LIKERT:1,2,3,4,5,6,7,8,9,10")
    assert [o.status for o in outcomes] == ["imported"] * len(notes)
    assert {o.event.venue for o in outcomes} == {"Elsewhere/2026"}
    assert [o.event.rating for o in outcomes] == [_leading_int(n["content"]["rating"]) for n in notes]


def test_real_iclr2026_submission_dump(log, shared):
    path = shared("openreview_api_v2", "iclr2026_v2_submission_with_replies.json")
    replies = _notes(path)["details"]["replies"]
    reviews = [r for r in replies if any(i.endswith("/-/Official_Review") for i in r["invitations"])]
    outcomes = import_reviews(log, path)
    imported = [o for o in outcomes if o.status == "imported"]
    assert len(imported) == len(reviews) == 4
    # The comments and the submission itself; the paper is still under review: "submitted",
    # with no acceptance label, carrying the title and area for dim_papers.
    assert sum(o.status == "ignored" for o in outcomes) == len(replies) - len(reviews) + 1
    sub = _notes(path)
    [status] = list(log.iter_events("paper_status_recorded"))
    assert (status.paper_id, status.status, status.is_accepted) == ("zzo3Sy3NSX", "submitted", None)
    assert status.title == sub["content"]["title"]["value"] and status.year == 2026
    assert status.area == sub["content"]["primary_area"]["value"]
    by_id = {r["id"]: r for r in reviews}
    for o in imported:
        assert o.event.rating == by_id[o.item]["content"]["rating"]["value"]
        assert o.event.rating_scale == ICLR2026_SCALE and o.event.venue == "ICLR.cc/2026/Conference"
        assert o.paper_id == "zzo3Sy3NSX"
