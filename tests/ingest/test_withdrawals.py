"""Withdrawal comments (arXiv JSONL, OpenReview withdrawal notes) → withdrawal_note_imported, a
"withdrawn" status only for a paper with none; bad lines set aside, the rest imported."""

import json

import typer
from typer.testing import CliRunner

from peerlake.commands.ingest import register
from peerlake.ingest.openreview import import_reviews
from peerlake.ingest.withdrawals import import_arxiv_comments, import_openreview_withdrawals, import_withdrawals
from peerlake.warehouse import EventLog

LEMMA = "Lemma 3 is wrong: the bound in eq. (7) needs the operator to be compact, which it is not."


def _lines(tmp_path, rows, name="withdrarxiv.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_arxiv_lines_import_and_bad_lines_are_set_aside(log, tmp_path):
    rows = [
        {"paper_id": "P1", "comment": f"  {LEMMA}  ", "arxiv_id": "2401.00001v2", "title": "A bound",
         "level": "math_error"},
        '{"paper_id": "P2", "comment": "oops"',                     # line 2: truncated JSON
        {"paper_id": "P2", "comment": "   "},                        # line 3: blank comment
        {"comment": "no paper"},                                     # line 4: no paper_id
        {"paper_id": "P3", "comment": "Table 2 is wrong.", "level": 3},  # line 5: level not a string
        "",                                                          # line 6: blank, not an item
        [1, 2],                                                      # line 7: not an object
        {"paper_id": "P4", "comment": "The experiment in Section 5 leaked test data."},  # line 8: no optional keys
        {"paper_id": "P1", "comment": LEMMA},                        # line 9: the same comment again
    ]
    path = _lines(tmp_path, rows)
    outcomes = import_arxiv_comments(log, path)
    # P1 (note + status), 5 rejected, P4 (note + status), P1 again (skipped: same paper, same text)
    assert [o.status for o in outcomes] == ["imported", "status_recorded"] + ["rejected"] * 5 + [
        "imported", "status_recorded", "skipped"]
    reasons = [o.reason for o in outcomes if o.status == "rejected"]
    for why, line_no in zip(["not valid JSON", "missing or empty 'comment'", "missing or empty 'paper_id'",
                             "'level' must be a string or absent", "not a JSON object"], [2, 3, 4, 5, 7],
                            strict=True):
        assert any(why in r and f"line {line_no}:" in r and str(path) in r for r in reasons), why
    rejected = list(log.iter_events("ingest_rejected"))
    assert [(e.source, e.item) for e in rejected] == [("withdrawals", f"line {n}") for n in (2, 3, 4, 5, 7)]

    notes = list(log.iter_events("withdrawal_note_imported"))
    assert [(n.paper_id, n.source, n.note_id, n.line_no, n.level, n.comment_chars) for n in notes] == [
        ("P1", "arxiv", "2401.00001v2", 1, "math_error", len(LEMMA)),  # the comment is stripped
        ("P4", "arxiv", None, 8, None, 45)]  # len("The experiment in Section 5 leaked test data.") = 45
    assert log.blobs.get_text(notes[0].comment_sha256) == LEMMA
    statuses = list(log.iter_events("paper_status_recorded"))
    # an arXiv withdrawal has no acceptance label (null, not 0): it is not a venue's decision
    assert [(s.paper_id, s.status, s.is_accepted, s.source, s.title) for s in statuses] == [
        ("P1", "withdrawn", None, "arxiv", "A bound"), ("P4", "withdrawn", None, "arxiv", None)]

    # a re-import writes nothing new; a new comment for P1 is a new note (the judge reads the newest)
    again = import_withdrawals(log, path)
    assert [o.status for o in again if o.status != "rejected"] == ["skipped", "skipped", "skipped"]
    newer = import_withdrawals(log, _lines(tmp_path, [{"paper_id": "P1", "comment": "Also Theorem 2."}], "b.jsonl"))
    assert [o.status for o in newer] == ["imported"]  # P1 has a status: no second one
    assert len(list(log.iter_events("withdrawal_note_imported"))) == 3
    assert len(list(log.iter_events("paper_status_recorded"))) == 2


def test_a_file_that_is_not_utf8_is_rejected_whole(log, tmp_path):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes('{"paper_id": "P1", "comment": "caf\xe9"}\n'.encode("latin-1"))
    (o,) = import_arxiv_comments(log, path)
    assert o.status == "rejected" and "not UTF-8" in o.reason
    assert list(log.iter_events("withdrawal_note_imported")) == []


def _note(nid, forum, invitation, content, **kw):
    return {"id": nid, "forum": forum, "replyto": forum, "invitations": [invitation], "content": content, **kw}


def test_openreview_withdrawal_notes(log, tmp_path):
    venue = "ICLR.cc/2025/Conference"
    sub_a = {"id": "A", "forum": "A", "invitations": [f"{venue}/-/Submission"], "domain": venue,
             "content": {"title": {"value": "Paper A"}, "venueid": {"value": f"{venue}/Withdrawn_Submission"}},
             "details": {"replies": [
                 _note("wA", "A", f"{venue}/Submission1/-/Withdrawal",
                       {"withdrawal_confirmation": {"value": "I have read and agree ..."},
                        "comment": {"value": "We found a bug in the evaluation script."}}, domain=venue),
                 _note("cA", "A", f"{venue}/Submission1/-/Official_Comment", {"comment": {"value": "thanks"}}),
             ]}}
    sub_b = {"id": "B", "forum": "B", "invitations": [f"{venue}/-/Submission"], "domain": venue,
             "content": {"title": {"value": "Paper B"}},
             "details": {"replies": [
                 # the venue's checkbox only: nothing to judge
                 _note("wB", "B", f"{venue}/Submission2/-/Withdrawal",
                       {"withdrawal_confirmation": {"value": "I have read and agree ..."}}, domain=venue)]}}
    # an API v1 note (plain values, one invitation) whose paper has no status in the lake yet
    v1 = {"id": "wC", "forum": "C", "replyto": "C", "invitation": "ICLR.cc/2020/Conference/Paper9/-/Withdraw",
          "content": {"title": "Submission Withdrawn by the Authors", "withdrawal confirmation": "yes",
                      "comment": "Proposition 1 does not hold in general."}}
    bad = {"id": "wD", "invitations": [f"{venue}/Submission4/-/Withdrawal"], "content": {"comment": {"value": "x"}}}
    path = tmp_path / "iclr.json"
    path.write_text(json.dumps([sub_a, sub_b, v1, bad]), encoding="utf-8")

    # paper A's status comes from the OpenReview import first (of A alone): the withdrawal import must not add one
    only_a = tmp_path / "a.json"
    only_a.write_text(json.dumps([sub_a]), encoding="utf-8")
    assert any(o.status == "status_recorded" and o.paper_id == "A" for o in import_reviews(log, only_a, venue=venue))
    outcomes = import_openreview_withdrawals(log, path)
    assert [(o.status, o.paper_id) for o in outcomes] == [
        ("imported", "A"), ("ignored", "B"), ("imported", "C"), ("status_recorded", "C"), ("rejected", None)]
    assert "without a comment" in outcomes[1].reason and "without 'forum'" in outcomes[4].reason
    notes = {n.paper_id: n for n in log.iter_events("withdrawal_note_imported")}
    assert (notes["A"].source, notes["A"].note_id) == ("openreview", "wA")
    assert log.blobs.get_text(notes["C"].comment_sha256) == "Proposition 1 does not hold in general."
    status_c = [s for s in log.iter_events("paper_status_recorded") if s.paper_id == "C"]
    assert [(s.status, s.is_accepted, s.venue, s.year, s.source_note_id) for s in status_c] == [
        ("withdrawn", False, "ICLR.cc/2020/Conference", 2020, "wC")]
    assert len([s for s in log.iter_events("paper_status_recorded") if s.paper_id == "A"]) == 1


def test_an_unreadable_notes_file_is_rejected_whole(log, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("[{", encoding="utf-8")
    (o,) = import_withdrawals(log, path)
    assert o.status == "rejected" and "not valid JSON" in o.reason and o.reason.count(str(path)) == 1


def test_the_real_openreview_dump_has_no_withdrawal_and_nothing_is_rejected(log, shared):
    # a real API v2 submission (ICLR 2026, still under review): 4 reviews, 12 comments, no withdrawal
    path = shared("openreview_api_v2", "iclr2026_v2_submission_with_replies.json")
    outcomes = import_openreview_withdrawals(log, path)
    assert outcomes == [] and list(log.iter_events()) == []


def test_cli_ingest_withdrawals(lake, tmp_path):
    app = typer.Typer()
    register(app)
    runner = CliRunner()
    path = _lines(tmp_path, [{"paper_id": "P1", "comment": LEMMA}, "{oops"])
    r = runner.invoke(app, ["ingest", "withdrawals", str(path)])
    assert r.exit_code == 0, r.output
    assert "imported 1 · status_recorded 1 · skipped 0 · ignored 0 · rejected 1" in r.output
    assert "line 2: not valid JSON" in r.output
    assert runner.invoke(app, ["ingest", "withdrawals", str(path), "--strict"]).exit_code == 1  # line 2 again
    log = EventLog()
    assert [n.paper_id for n in log.iter_events("withdrawal_note_imported")] == ["P1"]
    log.close()
