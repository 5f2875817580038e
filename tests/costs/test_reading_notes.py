"""The dry run says what a reviewer reads of each paper when the provider's character budget cuts it
(PEERLAKE_REVIEW_MAX_CHARS: 9,000 on the embedded model), from the real ingested demo paper."""

from peerlake.costs.plan import reading_notes
from peerlake.ingest.demo_corpus import demo_papers
from peerlake.ingest.papers import ingest_pdf
from peerlake.reviewing.scoring import ReviewerConfig
from peerlake.warehouse.log import EventLog


def test_a_cut_paper_is_named_with_the_share_read(lake, monkeypatch):
    log = EventLog(lake)
    paper = ingest_pdf(log, demo_papers()[0]).event
    cfg = ReviewerConfig(provider="local", model="qwen", template="reviewer_scoring", samples=1, temperature=0.7,
                         max_output_tokens=400)
    monkeypatch.setenv("PEERLAKE_REVIEW_MAX_CHARS", "2000")
    (note,) = reading_notes(log, [cfg], [paper])
    assert note.startswith("reviewer reviewer_scoring on local/qwen reads the first 2,000 characters")
    assert "1 of 1 papers are cut" in note and f"of {paper.paper_id}" in note
    share = int(note.split("median ")[1].split("%")[0])
    assert 0 < share < 100
    monkeypatch.setenv("PEERLAKE_REVIEW_MAX_CHARS", "10000000")  # a budget above the whole text: nothing said
    assert reading_notes(log, [cfg], [paper]) == []
