"""`peerlake ingest prism` over PRISM's released layout (tests/ingest/prism_layout.py), through typer against a
temp lake: papers as text packages, human reviews on their venue's scale, decisions, the five systems' reviews
as the text PRISM's judges read; bad files set aside with their reason; links out refused; re-import idempotent."""

import hashlib
import json
import os
from pathlib import Path

import typer
from typer.testing import CliRunner

from peerlake.commands.ingest import register
from peerlake.ingest.openreview import import_reviews
from peerlake.ingest.package import ManuscriptPackage
from peerlake.ingest.prism import import_prism
from peerlake.studies import JUDGES, parse_study
from peerlake.warehouse import EventLog
from peerlake.warehouse.studies import StudyFiles
from tests.ingest import prism_layout as layout
from tests.ingest.prism_layout import ICLR, ICML, prism_data, write

ICLR25, ICML25 = "ICLR.cc/2025/Conference", "ICML.cc/2025/Conference"
FIVE = {"sea-e", "treereview", "reviewer2", "deepreview", "cyclereviewer"}


def _run(*args: str, code: int = 0):
    app = typer.Typer()
    register(app)
    r = CliRunner().invoke(app, ["ingest", "prism", *args])
    assert r.exit_code == code, r.output
    return r


def _tally(output: str) -> dict[str, int]:
    """The `ingested 2 · imported 9 · …` line the command ends with."""
    line = [x for x in output.splitlines() if " · " in x][-1]
    return {k: int(v) for k, v in (part.rsplit(" ", 1) for part in line.split(" · "))}


def _events(log: EventLog, kind: str) -> list:
    return list(log.iter_events(kind))


def _body(log: EventLog, event) -> dict:
    return json.loads(log.blobs.get_text(event.body_sha256))


def test_papers_humans_decisions_and_the_five_systems(lake, tmp_path):
    prism_data(tmp_path / "prism")
    r = _run(str(tmp_path / "prism"))  # a folder holding data/
    t = _tally(r.output)
    # 2 papers; 3 human reviews + 5 ICLR system reviews + ICML's SEA-E one; 2 decisions
    assert (t["ingested"], t["imported"], t["status_recorded"], t["rejected"]) == (2, 9, 2, 0)
    assert "peerlake study new prism --no-reviewers --judges all" in r.output
    assert f"--venue {ICLR25} --venue {ICML25}" in r.output
    log = EventLog()

    papers = {e.paper_id: e for e in _events(log, "paper_ingested")}
    assert set(papers) == {ICLR, ICML}
    iclr, icml = papers[ICLR], papers[ICML]
    assert (iclr.venue, iclr.year, iclr.n_pages, icml.venue) == (ICLR25, 2025, 0, ICML25)
    raw = (tmp_path / "prism/data/ICLR2025/papers" / f"{ICLR}.txt").read_bytes()
    assert iclr.pdf_sha256 == hashlib.sha256(raw).hexdigest() and log.blobs.get(iclr.pdf_sha256) == raw
    package = ManuscriptPackage.from_json(log.blobs.get_text(iclr.package_sha256))
    assert [r.text for r in package.records] == layout.PAPER_TXT.strip().splitlines()
    assert package.n_pages == 0 and {r.page for r in package.records} == {0}
    # ICML's human_reviews file carries title, abstract and area: the paper gets them
    icml_package = ManuscriptPackage.from_json(log.blobs.get_text(icml.package_sha256))
    assert icml.title == layout.ICML_HUMANS["title"] and icml.area == "applications->computer_vision"
    assert [r.kind for r in icml_package.records][:3] == ["title", "heading", "paragraph"]
    assert icml_package.records[2].text == layout.ICML_HUMANS["abstract"]

    humans = {e.review_id: e for e in _events(log, "human_review_imported")}
    assert set(humans) == {"TKnO6M1glb", "NHOJ5LqlA3", "mnJLsoDFgs"}
    first, second, icml_review = humans["TKnO6M1glb"], humans["NHOJ5LqlA3"], humans["mnJLsoDFgs"]
    assert (first.rating, first.confidence, first.rating_scale) == (8.0, 4.0, "ICLR2025:1,3,5,6,8,10")
    assert (second.rating, second.confidence, second.paper_id) == (6.0, 3.0, ICLR)
    # ICML 2025: "Overall Recommendation" 1-5, no Confidence field
    assert (icml_review.rating, icml_review.confidence, icml_review.rating_scale) == (3.0, None, "ICML2025:1,2,3,4,5")
    assert {e.source for e in humans.values()} == {"prism"}
    body = _body(log, first)
    assert (body["forum"], body["prism_index"], body["content"]["weaknesses"]) == (
        ICLR, 1, "The convergence guarantee obtained from Theorem 3.2 is worse.")
    assert _body(log, second)["prism_index"] == 2
    icml_body = _body(log, icml_review)
    assert icml_body["content"]["questions_for_authors"].startswith("1. Lack of comparisons")
    assert icml_body["titles"]["experimental_designs_or_analyses"] == "Experimental Designs Or Analyses"

    status = {e.paper_id: e for e in _events(log, "paper_status_recorded")}
    assert (status[ICLR].status, status[ICLR].decision, status[ICLR].is_accepted) == (
        "accepted", "Accept (Spotlight)", True)
    assert (status[ICML].status, status[ICML].is_accepted, status[ICML].venue) == ("rejected", False, ICML25)

    ext = {(e.system, e.paper_id): e for e in _events(log, "external_review_imported")}
    assert set(ext) == {(s, ICLR) for s in FIVE} | {("sea-e", ICML)}
    texts = {s: _body(log, ext[(s, ICLR)]) for s in FIVE}
    # the score each system's review states, as PRISM's table reads it
    assert {s: (ext[(s, ICLR)].score, ext[(s, ICLR)].confidence) for s in FIVE} == {
        "sea-e": (7.0, None), "treereview": (7.0, 4.0), "reviewer2": (None, None), "deepreview": (6.0, 3.0),
        "cyclereviewer": (6.0, 4.0)}
    assert texts["sea-e"]["text"] == layout.SEA_TXT.strip()
    assert set(texts["sea-e"]["fields"]) == {"summary", "strengths", "weaknesses", "questions", "rating"}
    assert texts["treereview"]["text"] == layout.TREE["full_review"].strip()
    # Reviewer2: the review after its "REVIEW" rule, not the echoed paper
    r2 = texts["reviewer2"]["text"]
    assert r2.startswith("# Summary Of The Paper") and "PAPER:" not in r2
    assert list(texts["reviewer2"]["fields"]) == ["summary_of_the_paper", "weaknesses", "questions_for_the_authors",
                                                  "limitations_not_addressed_by_the_authors", "soundness"]
    assert texts["reviewer2"]["field_titles"]["questions_for_the_authors"] == "Questions For The Authors"
    # DeepReview: simulated reviewer 1 (listed second), its Weaknesses keeping the #### sub-headings
    deep = texts["deepreview"]["text"]
    assert "robust aggregation method" in deep and "Reviewer two" not in deep
    assert "ARC relies on the robustness parameter f." in texts["deepreview"]["fields"]["weaknesses"]
    # CycleReviewer: the first `## Reviewer` block of its content, not the second nor the "(poster)" tail
    cycle = texts["cyclereviewer"]["text"]
    assert "Byzantine robust" in cycle and "Second." not in cycle and "(poster)" not in cycle
    for s in FIVE:  # the exact source file is kept under the hash the body names
        e = ext[(s, ICLR)]
        assert log.blobs.get(texts[s]["source_sha256"]) == Path(e.source_path).read_bytes()
        assert (e.review_id, e.sample_index, texts[s]["venue"]) == (ICLR, 0, ICLR25)
    log.close()


def test_judges_read_the_imported_reviews(lake, tmp_path):
    from peerlake.judging.reviews import external_reviews, human_reviews

    prism_data(tmp_path / "prism")
    _run(str(tmp_path / "prism" / "data"))  # the data root itself
    log = EventLog()
    ext = {r.review_key: r for r in external_reviews(log)}
    assert set(ext) == {f"external:{s}:{ICLR}" for s in FIVE} | {f"external:sea-e:{ICML}"}
    assert all(r.fields and r.text for r in ext.values())
    assert "Reviewer two" not in ext[f"external:deepreview:{ICLR}"].text
    humans = {r.review_key: r for r in human_reviews(log)}
    log.close()
    assert {"summary", "strengths", "weaknesses"} <= set(humans["human:TKnO6M1glb"].fields)
    # ICML 2025's form has no Strengths/Weaknesses: its other fields must reach the judges, not the Summary alone
    assert {"summary", "claims_and_evidence", "questions_for_authors"} <= set(humans["human:mnJLsoDFgs"].fields)


def _bad_files(data):
    v = data / "ICLR2025"
    write(v / "human_reviews" / "BrokenJs01.json", "{oops")
    write(v / "human_reviews" / "Mixed00001.json", {"paper_id": "Mixed00001", "Decision": "Maybe later", "reviews": [
        {"Review ID": "offscale01", "Rating": "7", "Summary": "s"},  # ICLR 2025 has no 7
        {"Review ID": "norating01", "Summary": "s"},
        {"Review ID": "goodone001", "Rating": "5", "Confidence": "2", "Summary": "fine"}]})
    write(v / "human_reviews" / "WrongId001.json", {"paper_id": "SomeOther1", "reviews": []})
    write(v / "papers" / "Blank00001.txt", "  \n\n")
    write(v / "papers" / "Nul0000001.txt", "text\x00more")
    write(v / "papers" / "Latin10001.txt", "caf\xe9".encode("latin-1"))
    write(v / "sea_iclr2025" / "Empty00001.txt", "")
    write(v / "tree_iclr2025" / "NoFull0001_review.json", {"review": "x"})
    write(v / "deepreview_iclr2025" / "Broken0001.json", "{")
    write(v / "cyclereview_iclr2025" / "NoGen00001.json", {"paper_id": "NoGen00001"})
    header_only = "PAPER: the paper\n" + "=" * 80 + "\n\nREVIEW\n" + "-" * 80 + "\n"
    write(v / "reviewer2_iclr2025" / "Header0001.txt", header_only)
    write(v / "somethingelse_iclr2025" / "x.txt", "not a system")


def test_a_bad_file_of_each_kind_is_set_aside_and_the_rest_imports(lake, tmp_path):
    data = prism_data(tmp_path / "prism")
    _bad_files(data)
    r = _run(str(data))
    t = _tally(r.output)
    # the good layout (9 reviews, 2 papers, 2 decisions) plus Mixed00001's one good review
    assert (t["ingested"], t["imported"], t["status_recorded"]) == (2, 10, 2)
    expected = {
        "BrokenJs01.json: not valid JSON (line 1 column 2",
        "Mixed00001.json review #1: rating 7 is not on the venue's scale ICLR2025:1,3,5,6,8,10",
        "Mixed00001.json review #2: has no 'rating' or 'overall_recommendation' score",
        "Mixed00001.json Decision: ",  # "Maybe later" is no decision peerlake knows
        "WrongId001.json: says paper_id 'SomeOther1' but is named WrongId001",
        "Blank00001.txt: has no text",
        "Nul0000001.txt: holds NUL bytes",
        "Latin10001.txt: not UTF-8 text (byte 3",
        "Empty00001.txt: the review text is empty",
        "NoFull0001_review.json: no 'full_review' text",
        "Broken0001.json: not valid JSON",
        "NoGen00001.json: no generated_review object",
        "Header0001.txt: the review text is empty",
    }
    for reason in expected:
        assert f"{reason}" in r.output, reason
    assert t["rejected"] == len(expected)
    assert "somethingelse_iclr2025" not in r.output  # ignored: not PRISM's, not an error
    log = EventLog()
    rejected = _events(log, "ingest_rejected")
    assert len(rejected) == len(expected)
    assert {e.paper_id for e in rejected if "Mixed00001" in e.reason} == {"Mixed00001"}
    assert {e.review_id for e in _events(log, "human_review_imported")} >= {"goodone001"}
    assert not [e for e in _events(log, "paper_ingested") if e.paper_id in ("Blank00001", "Nul0000001")]
    log.close()
    _run(str(data), "--strict", code=1)


def test_a_link_pointing_outside_is_refused(lake, tmp_path):
    outside = tmp_path / "outside"
    secret = write(outside / "secret.txt", "SECRET PAPER TEXT\n")
    write(outside / "reviews" / "Escape0001.json", {"paper_id": "Escape0001", "reviews": []})
    data = prism_data(tmp_path / "prism")
    venue = data / "ICLR2024"  # a venue whose every entry points out
    (venue / "papers").mkdir(parents=True)
    os.symlink(secret, venue / "papers" / "Escape0001.txt")
    (venue / "human_reviews").mkdir()
    os.symlink(outside / "reviews" / "Escape0001.json", venue / "human_reviews" / "Escape0001.json")
    os.symlink(outside / "reviews", venue / "sea_iclr2024")
    r = _run(str(tmp_path / "prism"))
    for name in ("papers/Escape0001.txt", "human_reviews/Escape0001.json", "ICLR2024/sea_iclr2024"):
        assert f"{name}: points outside" in r.output, name
    t = _tally(r.output)
    assert (t["ingested"], t["imported"], t["rejected"]) == (2, 9, 3)
    assert "ICLR.cc/2024" not in r.output  # no study of a venue of which nothing was imported
    log = EventLog()
    assert not [e for e in log.iter_events() if getattr(e, "paper_id", None) == "Escape0001"
                and e.event_type != "ingest_rejected"]
    assert len([e for e in _events(log, "ingest_rejected") if "points outside" in e.reason]) == 3
    assert not log.blobs.exists(hashlib.sha256(secret.read_bytes()).hexdigest())
    log.close()


def test_reimport_writes_nothing_new(lake, tmp_path):
    prism_data(tmp_path / "prism")
    _run(str(tmp_path / "prism"))
    log = EventLog()
    before = [e.event_id for e in log.iter_events()]
    log.close()
    t = _tally(_run(str(tmp_path / "prism")).output)
    assert (t["ingested"], t["new_version"], t["imported"], t["status_recorded"], t["rejected"]) == (0, 0, 0, 0, 0)
    assert (t["unchanged"], t["skipped"]) == (2, 9 + 2)  # every review, and both decisions
    log = EventLog()
    assert [e.event_id for e in log.iter_events()] == before
    log.close()


def test_study_option_writes_a_study_of_the_imported_systems(lake, tmp_path):
    prism_data(tmp_path / "prism")
    r = _run(str(tmp_path / "prism"), "--study", "prism-2025")
    assert "study prism-2025 written" in r.output
    study = parse_study("prism-2025", StudyFiles(lake).read("prism-2025"))
    assert set(study.external_systems) == FIVE
    assert set(study.venues) == {ICLR25, ICML25}
    assert study.reviewers == () and set(study.judges) == set(JUDGES)
    r = _run(str(tmp_path / "prism"), "--study", "prism-2025")  # kept, not overwritten
    assert "study prism-2025 exists; left as it is" in r.output


def test_a_folder_without_venues_is_rejected(log, tmp_path):
    (tmp_path / "empty").mkdir()
    found = import_prism(log, tmp_path / "empty")
    [o] = found.outcomes
    assert o.status == "rejected" and "holds no PRISM venue folder" in o.reason
    [o] = import_prism(log, tmp_path / "ICLR2025").outcomes  # a venue name that does not exist
    assert o.status == "rejected"


def test_openreview_icml_2025_review_without_rating_imports_on_its_scale(log, tmp_path):
    def note(i, recommendation):
        return {"id": f"icml-r{i}", "forum": "icml-paper", "replyto": "icml-paper", "domain": ICML25,
                "invitations": [f"{ICML25}/Submission1/-/Official_Review"],
                "content": {"summary": {"value": "s"}, "overall_recommendation": {"value": recommendation}}}

    path = write(tmp_path / "icml.json", [note(1, "4: Accept"), note(2, 6)])
    outcomes = import_reviews(log, path)
    assert [o.status for o in outcomes] == ["imported", "rejected"]
    assert (outcomes[0].event.rating, outcomes[0].event.rating_scale) == (4.0, "ICML2025:1,2,3,4,5")
    assert "rating 6 is not on the venue's scale ICML2025" in outcomes[1].reason


def test_json_nested_too_deep_is_one_rejection(lake, tmp_path):
    from tests.ingest.hostile import deep_json

    data = prism_data(tmp_path / "prism")
    write(data / "ICLR2025" / "human_reviews" / "DeepNest01.json", deep_json())
    write(data / "ICLR2025" / "deepreview_iclr2025" / "DeepNest01.json", deep_json())
    write(data / "ICLR2025" / "tree_iclr2025" / "DeepNest01_review.json", deep_json())
    r = _run(str(data))
    t = _tally(r.output)
    assert (t["rejected"], t["imported"], t["ingested"]) == (3, 9, 2)
    assert r.output.count("is nested too deeply to read") == 3
