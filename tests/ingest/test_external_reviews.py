"""Reviews from other systems (JSONL) → external_review_imported; bad lines quarantined."""

import json

import pytest

from peerlake.ingest.external_reviews import import_external_reviews


def _lines(tmp_path, rows, name="deepreview.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def test_text_and_sections_import_and_bad_lines_do_not_stop_the_file(log, tmp_path):
    rows = [
        {"paper_id": "P1", "review_id": "dr-1", "score": 6, "confidence": 4, "text": "Solid work."},
        {"paper_id": "P1", "review_id": "dr-2", "sample_index": 1, "score": 3.5,
         "summary": "A method.", "strengths": ["clear", "fast"], "weaknesses": "small data"},
        '{"paper_id": "P2", "review_id": "dr-3", "score": 8',          # truncated JSON
        {"paper_id": "P2", "review_id": "dr-4", "score": "eight"},     # score not a number
        {"review_id": "dr-5", "text": "orphan"},                        # no paper_id
        {"paper_id": "P2", "review_id": "dr-6", "score": 5},           # no text at all
        {"paper_id": "P2", "review_id": "dr-7", "sample_index": -1, "text": "x"},
        [1, 2, 3],
        {"paper_id": "P3", "review_id": "dr-8", "questions": "Why?"},  # no score: still a review
    ]
    path = _lines(tmp_path, rows)
    outcomes = import_external_reviews(log, path, system="DeepReview-14B")
    assert [o.status for o in outcomes] == ["imported", "imported"] + ["rejected"] * 6 + ["imported"]
    reasons = [o.reason for o in outcomes if o.status == "rejected"]
    for why, line_no in zip(["not valid JSON", "'score' must be a finite number", "missing or empty 'paper_id'",
                             "no review text", "'sample_index' must be a non-negative integer",
                             "not a JSON object"], [3, 4, 5, 6, 7, 8], strict=True):
        assert any(why in r and f"line {line_no}:" in r and str(path) in r for r in reasons), why
    events = list(log.iter_events("external_review_imported"))
    assert [(e.review_id, e.system, e.sample_index, e.score, e.confidence) for e in events] == [
        ("dr-1", "DeepReview-14B", 0, 6.0, 4.0), ("dr-2", "DeepReview-14B", 1, 3.5, None),
        ("dr-8", "DeepReview-14B", 0, None, None)]
    body = json.loads(log.blobs.get_text(events[1].body_sha256))
    assert body["text"] == "Summary:\nA method.\n\nStrengths:\n- clear\n- fast\n\nWeaknesses:\nsmall data"
    assert body["line"] == rows[1]
    quarantined = list(log.iter_events("ingest_rejected"))
    assert sorted(e.item for e in quarantined) == sorted(f"line {n}" for n in range(3, 9))
    # Re-importing skips what is there; the same ids under another system are new reviews.
    assert {o.status for o in import_external_reviews(log, path, system="DeepReview-14B")} == {"skipped", "rejected"}
    assert sum(o.status == "imported" for o in import_external_reviews(log, path, system="SEA-E")) == 3


def test_non_utf8_file_is_rejected_whole(log, tmp_path):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes('{"paper_id": "P1", "review_id": "r", "text": "très bien"}\n'.encode("latin-1"))
    [outcome] = import_external_reviews(log, path, system="panel")
    assert outcome.status == "rejected" and "not UTF-8" in outcome.reason and str(path) in outcome.reason
    [ev] = list(log.iter_events("ingest_rejected"))
    assert ev.source == "reviews" and ev.path == str(path)
    assert not list(log.iter_events("external_review_imported"))


def test_system_name_is_checked(log, tmp_path):
    with pytest.raises(ValueError, match="--system"):
        import_external_reviews(log, _lines(tmp_path, []), system="has spaces")
