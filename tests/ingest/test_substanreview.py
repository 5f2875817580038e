"""SubstanReview lines → an external review + its human spans, at offsets into the text the judge reads."""

import json

from peerlake.ingest.substanreview import JUDGED_PREFIX, import_substanreview, imported_paper_ids, judged_offsets
from peerlake.judging.reviews import external_reviews

# Two leading spaces, 24 characters of review, two spaces and a newline: len 2 + 24 + 3 = 29.
REVIEW = "  Good paper. It is clear.  \n"
LINE = {"id": 7, "review": REVIEW,
        "label": [[2, 13, "Eval_pos_1"], [13, 28, "Jus_pos_1"], [26, 29, "Major_claim"]]}


def _write(tmp_path, rows, split="test"):
    folder = tmp_path / "substanreview" / "annotation_final"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{split}.jsonl").write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return tmp_path / "substanreview"


def test_offsets_are_shifted_into_the_judged_text_and_trimmed():
    # The judge reads "Text:\n" + "Good paper. It is clear." (30 chars); the review starts at raw 2,
    # judged 6: a shift of +4.
    assert judged_offsets(REVIEW, 2, 13) == (6, 17)  # "Good paper."
    # " It is clear.  " loses its leading space (raw 14) and the end is clipped to the stripped
    # review (raw 26, not 28): judged [18, 30)
    assert judged_offsets(REVIEW, 13, 28) == (18, 30)
    assert judged_offsets(REVIEW, 26, 29) == (None, None)  # whitespace only


def test_a_line_becomes_a_review_and_its_spans(log, tmp_path):
    data = _write(tmp_path, [LINE])
    outcomes = import_substanreview(log, data, "test")
    assert [(o.status, o.item, o.paper_id) for o in outcomes] == [("imported", "line 1", "substanreview-7")]
    [review] = log.iter_events("external_review_imported")
    assert (review.paper_id, review.review_id, review.system, review.sample_index, review.score) == (
        "substanreview-7", "7", "substanreview", 0, None)
    assert json.loads(log.blobs.get_text(review.body_sha256)) == {"system": "substanreview", "text": REVIEW,
                                                                   "line": LINE}
    [ann] = log.iter_events("span_annotation_imported")
    assert (ann.review_key, ann.dataset, ann.split, ann.annotator) == (
        "external:substanreview:7", "substanreview", "test", None)
    assert json.loads(ann.spans_json) == [
        {"start": 2, "end": 13, "label": "Eval_pos_1", "role": "claim", "pair": 1, "judged_start": 6, "judged_end": 17},
        {"start": 13, "end": 28, "label": "Jus_pos_1", "role": "premise", "pair": 1, "judged_start": 18,
         "judged_end": 30},
        {"start": 26, "end": 29, "label": "Major_claim", "role": None, "pair": None, "judged_start": None,
         "judged_end": None}]
    # the judge's loader reads the same text the offsets point into
    [judged] = external_reviews(log)
    assert judged.review_key == ann.review_key and judged.text == JUDGED_PREFIX + REVIEW.strip()
    assert judged.text[6:17] == "Good paper." and judged.text[18:30] == "It is clear."


def test_bad_lines_are_rejected_the_rest_imported_and_a_reimport_skipped(log, tmp_path):
    rows = [
        '{"id": 1, "review": "Fine."',  # truncated JSON
        {"id": 2, "review": "Fine.", "label": [[0, 9, "Eval_pos_1"]]},  # end beyond the 5-character review
        {"id": 3, "review": "Fine.", "label": [[0, 4, "Claim_1"]]},  # unknown label
        {"id": 4, "review": "   ", "label": []},  # no text
        {"review": "Fine.", "label": []},  # no id
        {**LINE, "id": 8},
    ]
    data = _write(tmp_path, rows)
    outcomes = import_substanreview(log, data, "test")
    assert [o.status for o in outcomes] == ["rejected"] * 5 + ["imported"]
    for o, why in zip(outcomes, ["not valid JSON", "offsets 0..9", "unknown label 'Claim_1'",
                                 "'review' must be a non-empty string", "missing or bad 'id'"], strict=False):
        assert why in o.reason and o.item in o.reason, (why, o.reason)
    rejected = list(log.iter_events("ingest_rejected"))
    assert [(e.source, e.item) for e in rejected] == [("reviews", f"line {n}") for n in range(1, 6)]
    assert [e.review_id for e in log.iter_events("external_review_imported")] == ["8"]

    again = import_substanreview(log, data, "test")
    assert [o.status for o in again][-1] == "skipped"
    assert log.count("span_annotation_imported") == 1 and log.count("external_review_imported") == 1
    assert imported_paper_ids(again) == ["substanreview-8"]


def test_limit_takes_the_first_lines(log, tmp_path):
    data = _write(tmp_path, [{**LINE, "id": i} for i in (1, 2, 3)])
    outcomes = import_substanreview(log, data, "test", limit=2)
    assert imported_paper_ids(outcomes) == ["substanreview-1", "substanreview-2"]


def test_real_line_offsets_slice_the_judged_text(log, shared):
    """SubstanReview's first test lines: every span, shifted, is the same words in the text the judge reads."""
    data = shared("substanreview", "annotation_final", "test.jsonl").parents[1]
    outcomes = import_substanreview(log, data, "test", limit=3)
    assert [o.status for o in outcomes] == ["imported"] * 3
    raw = {}
    for line in (data / "annotation_final" / "test.jsonl").read_text(encoding="utf-8").splitlines()[:3]:
        obj = json.loads(line)
        raw[f"external:substanreview:{obj['id']}"] = obj["review"]
    judged = {r.review_key: r.text for r in external_reviews(log)}
    checked = 0
    for ann in log.iter_events("span_annotation_imported"):
        review, text = raw[ann.review_key], judged[ann.review_key]
        for s in json.loads(ann.spans_json):
            words = review[s["start"]:s["end"]].strip()
            if not words:  # a whitespace-only span has no place in the judged text
                assert s["judged_start"] is None
                continue
            assert text[s["judged_start"]:s["judged_end"]] == words
            checked += 1
    assert checked > 10
