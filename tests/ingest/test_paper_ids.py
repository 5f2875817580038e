"""A paper id is never a path: one rule (warehouse/ids.py) at every importer, one rejection per bad id,
and `peerlake audit --bytes DIR` writes nothing outside DIR even for an id a forged event carries."""

import json
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from rich.tree import Tree

from peerlake.audit.selection import Selection
from peerlake.audit.tree import _manuscript
from peerlake.ingest.asap import import_asap
from peerlake.ingest.demo_corpus import demo_papers
from peerlake.ingest.external_reviews import import_external_reviews
from peerlake.ingest.openreview import import_reviews
from peerlake.ingest.papers import ingest_pdf
from peerlake.ingest.reference_labels import import_reference_labels
from peerlake.ingest.substanreview import import_substanreview
from peerlake.ingest.withdrawals import import_arxiv_comments, import_openreview_withdrawals
from peerlake.warehouse.events import PaperIngested
from peerlake.warehouse.ids import PaperIdError, check_paper_id
from tests.ingest.hostile import asap_paper, decision_note, review_note, submission_note, withdrawal_note, write_json

BAD = ["../../x", "a/b", "..", "/abs/path"]


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _only_rejection(log, outcomes, bad):
    """Exactly one outcome and one ingest_rejected event, naming the bad id and why."""
    rejected = [o for o in outcomes if o.status == "rejected"]
    assert len(rejected) == 1, outcomes
    assert repr(bad) in rejected[0].reason and "is not valid" in rejected[0].reason, rejected[0].reason
    events = list(log.iter_events("ingest_rejected"))
    assert [e.reason for e in events] == [rejected[0].reason]
    return rejected[0]


def _paper_ids_in_log(log) -> set:
    return {getattr(e, "paper_id", None) for e in log.iter_events()} - {None}


@pytest.mark.parametrize("value", [
    "rJY0-Kcll", "-Aw0rrrPUF", "zzo3Sy3NSX", "ICLR_2017_11", "2101.00001v2", "demo-001",
    "demo-001~hidden_text-0123456789", "substanreview-7", "acl2020_main447_S2ORC", "x" * 200])
def test_real_ids_are_valid(value):
    assert check_paper_id(value) == value


@pytest.mark.parametrize("value", [*BAD, "", ".", ".hidden", "~user", "a\\b", "a\x00b", "a\nb", "C:x", "a b",
                                   "x" * 201, 7, None])
def test_bad_ids_are_refused_with_the_cause(value):
    with pytest.raises(PaperIdError, match="paper id"):
        check_paper_id(value)


def test_every_real_id_in_shared_data_is_valid(shared):
    ids = [p.stem for p in shared("cc_by_pdfs").glob("*.pdf")]
    ids += [p.name.rsplit("_", 1)[0] for p in shared("asap_review_iclr2017", "sample").glob("*.json")]
    ids += [line.split("\t")[0] for line in
            shared("ai_scientist_iclr2022_ratings", "ratings_subset.tsv").read_text().splitlines()[1:]]
    dump = json.loads(shared("openreview_api_v2", "iclr2026_v2_submission_with_replies.json").read_text())
    ids += [dump["id"]] + [n["forum"] for n in dump["details"]["replies"]]
    ids += [p.stem for p in demo_papers()]
    assert len(ids) > 500
    assert [i for i in ids if check_paper_id(i) != i] == []


@pytest.mark.parametrize("bad", BAD)
def test_pdf_with_a_bad_paper_id_is_rejected(log, bad):
    o = ingest_pdf(log, demo_papers()[0], paper_id=bad)
    assert o.status == "rejected"
    _only_rejection(log, [o], bad)
    assert list(log.iter_events("paper_ingested")) == []


def test_pdf_whose_file_stem_is_dot_dot_is_rejected(log, tmp_path):
    path = tmp_path / "...pdf"  # stem ".."
    path.write_bytes(demo_papers()[0].read_bytes())
    o = _only_rejection(log, [ingest_pdf(log, path)], "..")
    assert "rename the file or give --paper-id" in o.reason
    assert list(log.iter_events("paper_ingested")) == []


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("note", [review_note, decision_note, submission_note])
def test_openreview_note_with_a_bad_forum_is_rejected(log, tmp_path, bad, note):
    path = write_json(tmp_path / "notes.json", [note(bad), review_note("P1", "r-good")])
    outcomes = import_reviews(log, path)
    _only_rejection(log, outcomes, bad)
    assert [e.review_id for e in log.iter_events("human_review_imported")] == ["r-good"]
    assert _paper_ids_in_log(log) == {"P1"}


@pytest.mark.parametrize("bad", ["..", ".hidden", "ICLR_2017 1"])  # a file name holds no "/"
def test_asap_paper_with_a_bad_id_is_rejected_once(log, tmp_path, bad):
    asap_paper(tmp_path, "ICLR_2017_1")
    asap_paper(tmp_path, bad)
    outcomes = import_asap(log, tmp_path)
    _only_rejection(log, outcomes, bad)
    assert _paper_ids_in_log(log) == {"ICLR_2017_1"}
    assert len(list(log.iter_events("human_review_imported"))) == 1


@pytest.mark.parametrize("bad", BAD)
def test_external_review_line_with_a_bad_paper_id_is_rejected(log, tmp_path, bad):
    path = _jsonl(tmp_path / "r.jsonl", [{"paper_id": bad, "review_id": "x1", "text": "t"},
                                         {"paper_id": "P1", "review_id": "x2", "text": "t"}])
    o = _only_rejection(log, import_external_reviews(log, path, "SEA-E"), bad)
    assert "line 1:" in o.reason
    assert _paper_ids_in_log(log) == {"P1"}


@pytest.mark.parametrize("bad", BAD)
def test_withdrawal_with_a_bad_paper_id_is_rejected(log, tmp_path, bad):
    path = _jsonl(tmp_path / "w.jsonl", [{"paper_id": bad, "comment": "wrong"}, {"paper_id": "P1", "comment": "x"}])
    _only_rejection(log, import_arxiv_comments(log, path), bad)
    assert _paper_ids_in_log(log) == {"P1"}  # its note and its withdrawn status only


@pytest.mark.parametrize("bad", BAD)
def test_openreview_withdrawal_with_a_bad_forum_is_rejected(log, tmp_path, bad):
    path = write_json(tmp_path / "w.json", [withdrawal_note(bad), withdrawal_note("P1", "w2")])
    _only_rejection(log, import_openreview_withdrawals(log, path), bad)
    assert _paper_ids_in_log(log) == {"P1"}


@pytest.mark.parametrize("bad", BAD)
def test_reference_label_with_a_bad_paper_id_is_rejected(log, tmp_path, bad):
    path = _jsonl(tmp_path / "l.jsonl", [{"subject_key": "s1", "identified": True, "paper_id": bad},
                                         {"subject_key": "s2", "identified": True, "paper_id": "P1"}])
    _only_rejection(log, import_reference_labels(log, path, "detection_verified"), bad)
    assert _paper_ids_in_log(log) == {"P1"}


@pytest.mark.parametrize("bad", ["../../x", "a/b", "/abs/path"])  # "substanreview-.." is a plain name
def test_substanreview_line_whose_id_makes_a_bad_paper_id_is_rejected(log, tmp_path, bad):
    folder = tmp_path / "substanreview" / "annotation_final"
    folder.mkdir(parents=True)
    _jsonl(folder / "test.jsonl", [{"id": bad, "review": "Good.", "label": []},
                                   {"id": 1, "review": "Good.", "label": []}])
    _only_rejection(log, import_substanreview(log, tmp_path / "substanreview"), f"substanreview-{bad}")
    assert _paper_ids_in_log(log) == {"substanreview-1"}


def _files_under(root):
    return {p for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("bad", [*BAD, "ABS"])
def test_audit_bytes_never_writes_outside_its_folder(log, tmp_path, bad):
    """A forged paper_ingested event (written straight to the log, past every importer) names the file."""
    out = tmp_path / "out" / "audit" / "bytes"
    if bad == "ABS":
        bad = str(tmp_path / "elsewhere" / "x")  # an absolute path this test may write to on main
    at = datetime.now(UTC)
    paper = PaperIngested(paper_id=bad, title="forged", source_uri="x", pdf_sha256=log.blobs.put(b"%PDF-1.4 pdf"),
                          package_sha256=log.blobs.put_text('{"title": "forged"}'), n_pages=1, n_text_records=1,
                          n_chars=1, occurred_at=at)
    log.append(paper)
    audit = SimpleNamespace(selection=Selection(study=None, papers=None, configs=None,
                                                events=list(log.iter_events("paper_ingested"))))
    call = SimpleNamespace(subject_id=bad, occurred_at=at + timedelta(seconds=1))
    before = _files_under(tmp_path)
    node = Tree("call")
    _manuscript(node, audit, call, out, log.blobs)
    assert _files_under(tmp_path) == before  # nothing written, inside the folder or out of it
    text = " ".join(str(c.label) for c in node.children[0].children)
    assert text.count("not written") == 2 and "is not valid" in text


def test_audit_bytes_writes_a_valid_id_and_refuses_a_symlink_out(log, tmp_path):
    out = tmp_path / "bytes"
    out.mkdir()
    (tmp_path / "secret.pdf").write_bytes(b"keep")
    (out / "P1.pdf").symlink_to(tmp_path / "secret.pdf")  # planted so a write would land outside
    at = datetime.now(UTC)
    log.append(PaperIngested(paper_id="P1", title="t", source_uri="x", pdf_sha256=log.blobs.put(b"%PDF-1.4 pdf"),
                             package_sha256=log.blobs.put_text('{"title": "t"}'), n_pages=1, n_text_records=1,
                             n_chars=1, occurred_at=at))
    audit = SimpleNamespace(selection=Selection(study=None, papers=None, configs=None,
                                                events=list(log.iter_events("paper_ingested"))))
    _manuscript(Tree("call"), audit, SimpleNamespace(subject_id="P1", occurred_at=at + timedelta(seconds=1)),
                out, log.blobs)
    assert json.loads((out / "P1.json").read_text()) == {"title": "t"}
    assert (tmp_path / "secret.pdf").read_bytes() == b"keep"
