"""A run's Resolver answers as resolve_papers would on the log as it is, reading the whole log again only
after the log gained an event a resolution reads (a reviewer's or judge's events do not count)."""

import pytest

from peerlake.studies import parse_study, resolution_event, study_text
from peerlake.studies import resolve as resolve_mod
from peerlake.warehouse import EventLog, Lake, PaperIngested


def _paper(pid):
    return PaperIngested(paper_id=pid, title=pid, source_uri=f"file:///{pid}.pdf", pdf_sha256="a" * 64,
                         package_sha256="b" * 64, n_pages=1, n_text_records=1, n_chars=1, venue="V 2026",
                         is_synthetic=False)


@pytest.fixture
def log(tmp_path):
    log = EventLog(Lake(tmp_path / "lake"))
    log.append_many([_paper("a"), _paper("b")])
    yield log
    log.close()


def test_the_log_is_read_again_only_when_what_a_resolution_reads_changed(log, monkeypatch):
    reads = []
    real = resolve_mod.resolve_papers
    monkeypatch.setattr(resolve_mod, "resolve_papers", lambda lg, s: reads.append(s.name) or real(lg, s))
    study = parse_study("mine", study_text("mine", all_ingested=True))
    resolver = resolve_mod.Resolver()

    first = resolver(log, study)
    assert first.paper_ids == ["a", "b"] and len(reads) == 1
    # another asset's record of what it covered: not something a resolution reads
    log.append(resolution_event("other", "0" * 64, ["a"], []))
    again = resolver(log, study)
    assert again == first and len(reads) == 1
    again.paper_ids.append("x")  # a caller's list is its own
    assert resolver(log, study).paper_ids == ["a", "b"]

    log.append(_paper("c"))  # an ingest step of the run: the study now covers c
    log.seal()
    third = resolver(log, study)
    assert len(reads) == 2 and third == real(log, study) and third.paper_ids == ["a", "b", "c"]
    # a different study (or another version of it) is resolved on its own
    assert resolver(log, parse_study("mine", study_text("mine", ids=["a"]))).paper_ids == ["a"] and len(reads) == 3
