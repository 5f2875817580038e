"""OpenReview: API v1 notes, decisions → statuses, scales, bad files, and `--live` against a
loopback server that replays recorded API responses."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest

from peerlake.ingest.openreview import ICLR2017_SCALE, ScaleError, import_reviews, scale_for, status_of_decision


def _v1_forum(forum="B1-Hhnslg", decision="Accept (Poster)"):
    """API v1 (ICLR 2017 era): plain values, one `invitation`, rating strings with labels."""
    inv = "ICLR.cc/2017/conference/-/paper{}/{}"
    review = lambda i, rating, conf: {  # noqa: E731
        "id": f"r{i}", "forum": forum, "replyto": forum, "invitation": inv.format(7, "official/review"),
        "content": {"title": "review", "rating": rating, "review": f"Review text {i}.", "confidence": conf}}
    return [
        {"id": forum, "forum": forum, "invitation": "ICLR.cc/2017/conference/-/submission",
         "content": {"title": "A v1 paper", "abstract": "…"}},
        review(1, "8: Top 50% of accepted papers, clear accept",
               "4: The reviewer is confident but not absolutely certain"),
        review(2, "3: Clear rejection", "3: The reviewer is fairly confident that the evaluation is correct"),
        {"id": "d1", "forum": forum, "replyto": forum, "invitation": inv.format(7, "acceptance"),
         "content": {"title": "ICLR committee final decision", "decision": decision}},
    ]


def test_v1_notes_with_rating_strings_and_decision(log, tmp_path):
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(_v1_forum()))
    outcomes = import_reviews(log, path)
    reviews = [o.event for o in outcomes if o.status == "imported"]
    assert [(e.rating, e.confidence) for e in reviews] == [(8.0, 4.0), (3.0, 3.0)]
    assert {e.rating_scale for e in reviews} == {ICLR2017_SCALE}
    assert {e.source for e in reviews} == {"openreview_api_v1"}
    assert json.loads(log.blobs.get_text(reviews[0].body_sha256))["content"]["review"] == "Review text 1."
    [status] = list(log.iter_events("paper_status_recorded"))
    assert (status.status, status.is_accepted, status.decision) == ("accepted", True, "Accept (Poster)")
    assert (status.title, status.year, status.venue) == ("A v1 paper", 2017, "ICLR.cc/2017/conference")


@pytest.mark.parametrize("words,expected", [
    ("Accept (Oral)", ("accepted", True)), ("Accept (spotlight)", ("accepted", True)),
    ("Accept: poster", ("accepted", True)), ("Reject", ("rejected", False)),
    ("Desk Rejected", ("desk_rejected", False)), ("Withdrawn", ("withdrawn", False)),
    ("Invite to Workshop Track", ("rejected", False)),
])
def test_decision_words_map_to_status(words, expected):
    assert status_of_decision(words) == expected


def test_withdrawal_beats_meta_review_and_one_status_per_paper(log, tmp_path):
    forum = "W1"
    notes = [
        {"id": "m", "forum": forum, "replyto": forum,
         "invitations": ["ICLR.cc/2025/Conference/Submission3/-/Meta_Review"],
         "content": {"recommendation": {"value": "Accept (Poster)"}}},
        {"id": "w", "forum": forum, "replyto": forum,
         "invitations": ["ICLR.cc/2025/Conference/Submission3/-/Withdrawal"],
         "content": {"title": {"value": "Submission Withdrawn by the Authors"}}},
        {"id": "x", "forum": "X1", "replyto": "X1", "invitations": ["ICLR.cc/2025/Conference/Submission4/-/Decision"],
         "content": {"decision": {"value": "Maybe later"}}},
    ]
    path = tmp_path / "statuses.json"
    path.write_text(json.dumps(notes))
    outcomes = import_reviews(log, path)
    statuses = list(log.iter_events("paper_status_recorded"))
    assert [(s.paper_id, s.status, s.is_accepted) for s in statuses] == [("W1", "withdrawn", False)]
    bad = [o for o in outcomes if o.status == "rejected"]
    assert len(bad) == 1 and "'Maybe later' is neither" in bad[0].reason and "(id x)" in bad[0].reason
    assert [e.item for e in log.iter_events("ingest_rejected")] == ["x"]


def test_unknown_scale_is_an_error_for_that_review_only(log, tmp_path):
    notes = _v1_forum()
    for n in notes:
        n["invitation"] = n["invitation"].replace("ICLR.cc/2017/conference", "Mystery.org/2031/Workshop")
    path = tmp_path / "mystery.json"
    path.write_text(json.dumps(notes))
    outcomes = import_reviews(log, path)
    rejected = [o for o in outcomes if o.status == "rejected"]
    assert len(rejected) == 2 and all("no rating scale is known for venue 'Mystery.org/2031/Workshop'" in o.reason
                                      for o in rejected)
    assert len(list(log.iter_events("paper_status_recorded"))) == 1  # the decision still lands
    # Named explicitly, the same file imports; an inconsistent explicit scale is an error.
    assert sum(o.status == "imported" for o in import_reviews(log, path, rating_scale="M:1,2,3,4,5,6,7,8,9,10")) == 2
    with pytest.raises(ScaleError, match="not of the form"):
        scale_for(None, "one to ten")


def test_missing_fields_not_json_and_not_utf8_are_quarantined(log, tmp_path):
    missing = tmp_path / "missing.json"
    note = _v1_forum()[1]
    del note["content"]["rating"]
    missing.write_text(json.dumps([note]))
    notjson = tmp_path / "notjson.json"
    notjson.write_text("<html>502 Bad Gateway</html>")
    latin = tmp_path / "latin1.json"
    latin.write_bytes(json.dumps([_v1_forum()[1]], ensure_ascii=False).replace("Review", "Révïew").encode("latin-1"))
    results = {p.name: import_reviews(log, p) for p in (missing, notjson, latin)}
    assert "no content.rating" in results["missing.json"][0].reason
    assert "not valid JSON" in results["notjson.json"][0].reason
    assert "not UTF-8" in results["latin1.json"][0].reason
    events = {e.path: e for e in log.iter_events("ingest_rejected")}
    assert set(events) == {str(missing), str(notjson), str(latin)}
    assert all(e.source == "openreview" and e.path in e.reason for e in events.values())


# ---- --live against recorded responses --------------------------------------------------------
@pytest.fixture
def recorded_api(shared):
    """A loopback OpenReview API serving the real ICLR 2026 dump as its only submission."""
    sub = json.loads(shared("openreview_api_v2", "iclr2026_v2_submission_with_replies.json").read_text())
    # What the API itself returns is camelCase; the snake_case file is openreview-py's view of it.
    note = {"id": sub["id"], "forum": sub["forum"], "number": sub["number"], "content": sub["content"],
            "invitations": sub["invitations"], "domain": sub["domain"], "cdate": sub["cdate"],
            "readers": sub["readers"], "writers": sub["writers"], "signatures": sub["signatures"],
            "license": sub["license"], "details": sub["details"]}
    seen = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            url = urlparse(self.path)
            q = {k: v[0] for k, v in parse_qs(url.query).items()}
            seen.append((url.path, q))
            notes = [note] if url.path == "/notes" and q.get("invitation", "").endswith("/-/Submission") else []
            if "after" in q:
                notes = [n for n in notes if n["id"] > q["after"]]
            body = json.dumps({"notes": notes, "count": len(notes)}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen, sub
    server.shutdown()


def test_live_fetch_imports_like_a_file(log, recorded_api, monkeypatch):
    pytest.importorskip("openreview")
    from peerlake.ingest.openreview_live import import_live

    monkeypatch.delenv("OPENREVIEW_USERNAME", raising=False)
    monkeypatch.delenv("OPENREVIEW_PASSWORD", raising=False)
    baseurl, seen, sub = recorded_api
    dump, outcomes = import_live(log, "ICLR.cc/2026/Conference", baseurl=baseurl)
    assert seen[0][0] == "/notes" and seen[0][1]["invitation"] == "ICLR.cc/2026/Conference/-/Submission"
    assert seen[0][1]["details"] == "replies"
    reviews = [r for r in sub["details"]["replies"] if r["invitations"][0].endswith("/-/Official_Review")]
    imported = sorted((o.item, o.event.rating) for o in outcomes if o.status == "imported")
    assert imported == sorted((r["id"], r["content"]["rating"]["value"]) for r in reviews)
    assert dump.exists() and json.loads(dump.read_text())[0]["id"] == sub["id"]


def test_live_reports_an_unreachable_api(log):
    pytest.importorskip("openreview")
    from peerlake.ingest.openreview_live import LiveUnavailable, fetch_venue

    class Broken:
        baseurl = "http://127.0.0.1:9"

        def get_all_notes(self, **kw):
            raise ConnectionError("connection refused")

    with pytest.raises(LiveUnavailable, match=r"ICLR\.cc/2025/Conference from http://127\.0\.0\.1:9 failed"):
        fetch_venue("ICLR.cc/2025/Conference", client=Broken())
