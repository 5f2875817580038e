"""One bad file never stops a folder: a PDF whose page tree names one page 200,000 times, JSON nested
200,000 deep, a note that breaks the parser — each is one `ingest_rejected` with its reason, and the
files after it still land. A PDF whose text is all clipped or all running headers is rejected with
that reason, never ingested as a 0-character paper."""

import json

import pytest
import typer
from typer.testing import CliRunner

from peerlake.commands.ingest import register
from peerlake.ingest.asap import import_asap
from peerlake.ingest.external_reviews import import_external_reviews
from peerlake.ingest.openreview import import_reviews
from peerlake.ingest.papers import ingest_pdf
from peerlake.ingest.reference_labels import import_reference_labels
from peerlake.ingest.related_work import import_related_work
from peerlake.ingest.substanreview import import_substanreview
from peerlake.ingest.withdrawals import import_arxiv_comments
from peerlake.warehouse import EventLog
from tests.ingest.hostile import (
    asap_paper,
    deep_json,
    page_tree_pdf,
    review_note,
    submission_note,
    text_pdf,
    withdrawal_note,
    write_json,
)


def _cli(*args: str):
    app = typer.Typer()
    register(app)
    return CliRunner().invoke(app, ["ingest", *args])


def _rejections() -> dict[str, str]:
    log = EventLog()
    try:
        return {e.path: e.reason for e in log.iter_events("ingest_rejected")}
    finally:
        log.close()


def _events(event_type: str) -> list:
    log = EventLog()
    try:
        return list(log.iter_events(event_type))
    finally:
        log.close()


def test_pdf_page_tree_naming_one_page_200000_times_between_two_good_pdfs(lake, tmp_path):
    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "a-good.pdf").write_bytes(text_pdf(text="The first good paper has a body. " * 4))
    (folder / "b-tree.pdf").write_bytes(page_tree_pdf())
    (folder / "c-good.pdf").write_bytes(text_pdf(text="The second good paper has a body. " * 4))
    r = _cli("pdf", str(folder))
    assert r.exit_code == 0, r.output
    assert "ingested 2" in r.output and "rejected 1" in r.output
    assert {e.paper_id for e in _events("paper_ingested")} == {"a-good", "c-good"}
    reason = _rejections()[str(folder / "b-tree.pdf")]
    assert "page tree" in reason and "Invalid number of pages" in reason


def test_openreview_folder_with_json_nested_200000_deep(lake, tmp_path):
    folder = tmp_path / "notes"
    write_json(folder / "a.json", [review_note("P1", "r1")])
    write_json(folder / "b.json", deep_json())
    write_json(folder / "c.json", [review_note("P2", "r2")])
    r = _cli("openreview", str(folder))
    assert r.exit_code == 0, r.output
    assert sorted(e.review_id for e in _events("human_review_imported")) == ["r1", "r2"]
    assert "nested too deeply" in _rejections()[str(folder / "b.json")]


def test_a_note_that_breaks_the_parser_is_rejected_alone(log, tmp_path):
    broken = submission_note("P9") | {"content": ["not", "an", "object"]}  # raised AttributeError on main
    path = write_json(tmp_path / "n.json", [review_note("P1", "r1"), broken, review_note("P2", "r2")])
    outcomes = import_reviews(log, path)
    assert [o.status for o in outcomes] == ["imported", "rejected", "imported"]
    assert "AttributeError" in outcomes[1].reason and "note #1" in outcomes[1].reason
    assert [e.reason for e in log.iter_events("ingest_rejected")] == [outcomes[1].reason]


def test_openreview_withdrawals_folder_with_json_nested_200000_deep(lake, tmp_path):
    folder = tmp_path / "withdrawals"
    write_json(folder / "a.json", [withdrawal_note("P1", "w1")])
    write_json(folder / "b.json", deep_json())
    write_json(folder / "c.json", [withdrawal_note("P2", "w2")])
    r = _cli("withdrawals", str(folder))
    assert r.exit_code == 0, r.output
    assert sorted(e.paper_id for e in _events("withdrawal_note_imported")) == ["P1", "P2"]
    assert "nested too deeply" in _rejections()[str(folder / "b.json")]


def test_asap_folder_with_a_file_nested_200000_deep(log, tmp_path):
    asap_paper(tmp_path, "ICLR_2017_1")
    asap_paper(tmp_path, "ICLR_2017_2", content=deep_json())
    asap_paper(tmp_path, "ICLR_2017_3", review=deep_json())
    asap_paper(tmp_path, "ICLR_2017_4")
    outcomes = import_asap(log, tmp_path)
    rejected = {o.path.name: o.reason for o in outcomes if o.status == "rejected"}
    assert set(rejected) == {"ICLR_2017_2_content.json", "ICLR_2017_3_review.json"}
    assert all("nested too deeply" in r for r in rejected.values())
    # everything else of every paper landed: the content of 1, 3, 4, the reviews of 1, 2, 4, four decisions
    assert sorted(e.paper_id for e in log.iter_events("paper_ingested")) == ["ICLR_2017_1", "ICLR_2017_3",
                                                                              "ICLR_2017_4"]
    assert sorted(e.paper_id for e in log.iter_events("human_review_imported")) == ["ICLR_2017_1", "ICLR_2017_2",
                                                                                     "ICLR_2017_4"]
    assert len(list(log.iter_events("paper_status_recorded"))) == 4


def _substanreview(log, path):
    return import_substanreview(log, path.parent.parent)


JSONL = {  # importer, a good line (i is its number), the event it writes
    "reviews": (lambda log, p: import_external_reviews(log, p, "SEA-E"),
                lambda i: {"paper_id": f"P{i}", "review_id": f"x{i}", "text": "fine"}, "external_review_imported"),
    "withdrawals": (import_arxiv_comments, lambda i: {"paper_id": f"P{i}", "comment": f"wrong {i}"},
                    "withdrawal_note_imported"),
    "related_work": (import_related_work, lambda i: {"title": f"Work {i}"}, "related_work_imported"),
    "labels": (lambda log, p: import_reference_labels(log, p, "detection_verified"),
               lambda i: {"subject_key": f"s{i}", "identified": True}, "reference_label_imported"),
    "substanreview": (_substanreview, lambda i: {"id": i, "review": "Good.", "label": []},
                      "span_annotation_imported"),
}


@pytest.mark.parametrize("kind", sorted(JSONL))
def test_jsonl_line_nested_200000_deep_between_good_lines(log, tmp_path, kind):
    importer, good, event_type = JSONL[kind]
    path = tmp_path / "substanreview" / "annotation_final" / "test.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(f"{json.dumps(good(1))}\n{deep_json()}\n{json.dumps(good(3))}\n", encoding="utf-8")
    outcomes = [o for o in importer(log, path) if o.status != "status_recorded"]  # a withdrawal's 2nd outcome
    assert [o.status for o in outcomes] == ["imported", "rejected", "imported"]
    assert "line 2:" in outcomes[1].reason and "nested too deeply" in outcomes[1].reason
    assert len(list(log.iter_events(event_type))) == 2


@pytest.mark.parametrize(("name", "pdf", "why"), [
    # a page 20,000 pt tall: its one paragraph sits in the top 7 % band, read as a running header
    ("huge-page", text_pdf(at=(72, 300), width=20_000, height=20_000), "larger than A0"),
    ("all-headers", text_pdf(pages=3, text="Journal of Examples, vol. 1", at=(72, 30)), "running headers"),
    ("all-clipped", text_pdf(at=(72, 1500)), "outside the page's MediaBox"),
])
def test_pdf_with_no_visible_text_is_rejected_not_a_0_char_paper(log, name, pdf, why, tmp_path):
    path = tmp_path / f"{name}.pdf"
    path.write_bytes(pdf)
    o = ingest_pdf(log, path)
    assert o.status == "rejected" and o.severity == "error"
    assert "no visible text to review (0 characters)" in o.reason and why in o.reason, o.reason
    assert list(log.iter_events("paper_ingested")) == []


def test_a_field_of_the_wrong_type_is_rejected_before_it_reaches_the_log(log, tmp_path):
    """On main a list title reached the write-ahead log, and every later seal failed on it."""
    sub = submission_note("P1")
    sub["content"]["title"] = {"value": ["a", "list"]}
    path = write_json(tmp_path / "n.json", [sub, review_note("P1", "r1")])
    outcomes = import_reviews(log, path)
    assert [o.status for o in outcomes] == ["ignored", "imported", "rejected"]
    assert "paper_status_recorded.title would be a list" in outcomes[2].reason
    log.seal()  # the log still seals
    assert [e.review_id for e in log.iter_events("human_review_imported")] == ["r1"]
