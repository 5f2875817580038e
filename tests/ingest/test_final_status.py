"""Final status wins: a submission's public venueid, once it names an outcome, outranks what a
meta-review recommends or a decision note says (regression: the meta-review used to win)."""

import copy
import json

import pytest

from peerlake.ingest.openreview import import_reviews

VENUE = "ICLR.cc/2025/Conference"


def _submission(forum: str, venueid: str, venue: str) -> dict:
    return {"id": forum, "forum": forum, "invitations": [f"{VENUE}/-/Submission"], "domain": VENUE,
            "content": {"title": {"value": f"Paper {forum}"}, "venueid": {"value": venueid},
                        "venue": {"value": venue}}}


def _reply(forum: str, note_id: str, invitation: str, content: dict) -> dict:
    return {"id": note_id, "forum": forum, "replyto": forum, "domain": VENUE,
            "invitations": [f"{VENUE}/Submission7/-/{invitation}"],
            "content": {k: {"value": v} for k, v in content.items()}}


def _status_of(log, tmp_path, notes) -> tuple:
    path = tmp_path / "forum.json"
    path.write_text(json.dumps(notes))
    outcomes = import_reviews(log, path)
    assert not [o for o in outcomes if o.status == "rejected"]
    [status] = list(log.iter_events("paper_status_recorded"))
    return status.status, status.is_accepted, status.decision, status.source_note_id


# Expected values are read off OpenReview's own conventions, not computed by the importer: a venueid
# ending in Rejected_/Withdrawn_/Desk_Rejected_Submission is that outcome; the conference id itself
# with an "ICLR 2025 Poster" venue is an acceptance; ".../Submission" is still under review.
@pytest.mark.parametrize("venueid,venue,reply,expected", [
    # The regression: the meta-review recommends acceptance, the final venueid says rejected.
    (f"{VENUE}/Rejected_Submission", "Submitted to ICLR 2025",
     ("Meta_Review", {"recommendation": "Accept (Poster)"}),
     ("rejected", False, "Submitted to ICLR 2025", "F1")),
    # A paper withdrawn after its acceptance decision.
    (f"{VENUE}/Withdrawn_Submission", "ICLR 2025 Conference Withdrawn Submission",
     ("Decision", {"decision": "Accept (Poster)"}),
     ("withdrawn", False, "ICLR 2025 Conference Withdrawn Submission", "F1")),
    # A recommendation to reject, overruled by the program chairs: the venueid is an acceptance.
    (VENUE, "ICLR 2025 Poster", ("Meta_Review", {"recommendation": "Reject"}),
     ("accepted", True, "ICLR 2025 Poster", "F1")),
    # When the venueid and the decision agree, the decision note's own words and id are kept.
    (VENUE, "ICLR 2025 Oral", ("Decision", {"decision": "Accept (Oral)"}),
     ("accepted", True, "Accept (Oral)", "d1")),
    # Still under review: the venueid says nothing final, so the meta-review stands.
    (f"{VENUE}/Submission", "ICLR 2025 Conference Submission",
     ("Meta_Review", {"recommendation": "Accept (Poster)"}),
     ("accepted", True, "Accept (Poster)", "d1")),
])
def test_final_venueid_outranks_the_notes(log, tmp_path, venueid, venue, reply, expected):
    invitation, content = reply
    notes = [_reply("F1", "d1", invitation, content), _submission("F1", venueid, venue)]
    assert _status_of(log, tmp_path, notes) == expected


def test_real_v2_dump_rejected_despite_an_accepting_meta_review(log, tmp_path, shared):
    """The real ICLR 2026 dump (API v2, openreview-py snake_case), its venueid set to the final
    rejection and an accepting meta-review added among its replies."""
    sub = json.loads(shared("openreview_api_v2", "iclr2026_v2_submission_with_replies.json").read_text())
    sub = copy.deepcopy(sub)
    venue_id = sub["domain"]
    sub["content"]["venueid"]["value"] = f"{venue_id}/Rejected_Submission"
    sub["content"]["venue"]["value"] = "Submitted to ICLR 2026"
    invitation = next(i for r in sub["details"]["replies"] for i in r["invitations"]
                      if i.endswith("/-/Official_Review"))
    sub["details"]["replies"].append({
        "id": "metareview-1", "forum": sub["id"], "replyto": sub["id"], "domain": venue_id,
        "invitations": [invitation.replace("/-/Official_Review", "/-/Meta_Review")],
        "content": {"metareview": {"value": "Strong paper."},
                    "recommendation": {"value": "Accept (Spotlight)"}}})
    path = tmp_path / "dump.json"
    path.write_text(json.dumps(sub))
    outcomes = import_reviews(log, path)
    assert sum(o.status == "imported" for o in outcomes) == 4  # the reviews still import
    [status] = list(log.iter_events("paper_status_recorded"))
    assert (status.paper_id, status.status, status.is_accepted) == (sub["id"], "rejected", False)
    assert status.source_note_id == sub["id"] and status.decision == "Submitted to ICLR 2026"
