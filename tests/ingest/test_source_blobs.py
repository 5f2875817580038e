"""The exact input bytes are kept: every `paper_ingested.pdf_sha256` names a blob holding the file
it was read from, written before the event, so an audit can show the input byte for byte."""

import hashlib
import shutil

import pytest

from peerlake.ingest.asap import import_asap
from peerlake.ingest.demo_corpus import demo_papers
from peerlake.ingest.papers import ingest_pdf

DEMO = demo_papers()


def test_pdf_bytes_are_a_blob_under_the_events_hash(log, tmp_path):
    path = tmp_path / "paper.pdf"
    shutil.copyfile(DEMO[2], path)
    original = path.read_bytes()
    outcome = ingest_pdf(log, path)
    assert outcome.status == "ingested"
    [event] = list(log.iter_events("paper_ingested"))
    assert event.pdf_sha256 == hashlib.sha256(original).hexdigest()
    assert log.blobs.get(event.pdf_sha256) == original
    path.unlink()  # the lake alone can still show what was read
    assert log.blobs.path(event.pdf_sha256).read_bytes() == original


def test_no_event_names_a_pdf_blob_that_could_not_be_written(log, tmp_path):
    path = tmp_path / "paper.pdf"
    shutil.copyfile(DEMO[0], path)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    # A real write failure: a plain file where the blob's fan-out directory must go.
    blocker = log.blobs.path(sha).parent
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_bytes(b"")
    with pytest.raises(OSError):
        ingest_pdf(log, path)
    assert not list(log.iter_events("paper_ingested"))
    blocker.unlink()
    assert ingest_pdf(log, path).status == "ingested"
    assert log.blobs.get(sha) == path.read_bytes()


def test_reingesting_unchanged_bytes_restores_a_missing_pdf_blob(log, tmp_path):
    """A lake written before PDFs were kept gets the bytes on the next ingest of the same file."""
    path = tmp_path / "paper.pdf"
    shutil.copyfile(DEMO[1], path)
    first = ingest_pdf(log, path)
    log.blobs.path(first.event.pdf_sha256).unlink()
    again = ingest_pdf(log, path)
    assert again.status == "unchanged" and len(list(log.iter_events("paper_ingested"))) == 1
    assert log.blobs.get(first.event.pdf_sha256) == path.read_bytes()


def test_asap_content_file_is_a_blob_under_the_events_hash(log, shared):
    folder = shared("asap_review_iclr2017", "sample")
    import_asap(log, folder)
    events = list(log.iter_events("paper_ingested"))
    assert events
    for ev in events:
        content = folder / f"{ev.paper_id}_content.json"
        assert log.blobs.get(ev.pdf_sha256) == content.read_bytes()
