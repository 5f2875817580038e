"""ASAP-Review ICLR 2017 sample: full text, every review's numeric rating, decisions."""

import json
import shutil

from peerlake.ingest.asap import import_asap
from peerlake.ingest.batch import counts
from peerlake.ingest.openreview import ICLR2017_SCALE
from peerlake.ingest.package import load_package


def test_sample_ingests_with_every_rating(log, shared):
    folder = shared("asap_review_iclr2017", "sample")
    index = [json.loads(line) for line in
             shared("asap_review_iclr2017", "sample_index.jsonl").read_text().splitlines() if line.strip()]
    result = counts(import_asap(log, folder))
    assert (result["ingested"], result["status_recorded"], result["rejected"]) == (len(index), len(index), 0)
    reviews = list(log.iter_events("human_review_imported"))
    assert result["imported"] == len(reviews) == sum(row["n_reviews"] for row in index)
    by_paper: dict[str, list] = {}
    for ev in sorted(reviews, key=lambda e: e.review_id):
        by_paper.setdefault(ev.paper_id, []).append(ev)
    for row in index:
        evs = sorted(by_paper[row["id"]], key=lambda e: int(e.review_id.rsplit("-", 1)[1]))
        assert [e.rating for e in evs] == row["ratings"]  # the index parsed them independently
        assert [e.confidence for e in evs] == row["confidences"]
        assert {e.rating_scale for e in evs} == {ICLR2017_SCALE}
    statuses = {e.paper_id: e for e in log.iter_events("paper_status_recorded")}
    for row in index:
        st = statuses[row["id"]]
        assert st.decision == row["decision"]
        assert st.is_accepted == row["decision"].startswith("Accept")
    papers = {e.paper_id: e for e in log.iter_events("paper_ingested")}
    for row in index:
        ev = papers[row["id"]]
        pkg = load_package(log.blobs, ev.package_sha256)
        assert pkg.title == row["title"] == ev.title
        # The package carries the parsed full text (sections), within a few % of the index's size.
        assert abs(ev.body_chars + ev.appendix_chars - row["fulltext_chars"]) <= 0.05 * row["fulltext_chars"] + 2000
        assert len(pkg.review_text(1_000_000)) > 1000


def test_reimport_is_a_noop_and_bad_files_are_quarantined(log, shared, tmp_path):
    src = shared("asap_review_iclr2017", "sample")
    folder = tmp_path / "asap"
    shutil.copytree(src, folder)
    for p in folder.iterdir():
        p.chmod(0o644)
    (folder / "ICLR_2017_11_content.json").write_bytes("{\"title\": \"caf\xe9\"}".encode("latin-1"))
    reviews = json.loads((folder / "ICLR_2017_13_review.json").read_text())
    reviews["reviews"][0]["rating"] = "eight out of ten"
    (folder / "ICLR_2017_13_review.json").write_text(json.dumps(reviews))
    first = counts(import_asap(log, folder))
    assert first["rejected"] == 2
    reasons = {e.path.rsplit("/", 1)[1]: e.reason for e in log.iter_events("ingest_rejected")}
    assert "not UTF-8" in reasons["ICLR_2017_11_content.json"]
    assert "review #0: rating 'eight out of ten' has no leading number" in reasons["ICLR_2017_13_review.json"]
    # The paper with the bad content file still gets its reviews and decision.
    assert any(e.paper_id == "ICLR_2017_11" for e in log.iter_events("human_review_imported"))
    again = counts(import_asap(log, folder))
    assert (again["ingested"], again["imported"], again["status_recorded"], again["rejected"]) == (0, 0, 0, 2)
    assert again["unchanged"] == first["ingested"]
    assert again["skipped"] == first["imported"] + first["status_recorded"]
