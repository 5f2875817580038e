"""Small hand-made hostile inputs for the ingest tests: notes, ASAP files, JSON nested too deep, PDFs
written byte by byte."""

import json
from pathlib import Path

import pymupdf

VENUE = "Demo.cc/2026/Conference"  # a venue with a known rating scale (1, 3, 5, 6, 8, 10)
DEPTH = 200_000


def deep_json(depth: int = DEPTH) -> str:
    """A JSON array nested `depth` levels deep: valid JSON that json.loads cannot read."""
    return "[" * depth + "]" * depth


def review_note(paper_id, note_id: str = "r1", rating: int = 6) -> dict:
    return {"id": note_id, "forum": paper_id, "replyto": paper_id, "domain": VENUE,
            "invitations": [f"{VENUE}/Submission1/-/Official_Review"],
            "content": {"rating": {"value": rating}, "confidence": {"value": 3}}}


def decision_note(paper_id, note_id: str = "d1") -> dict:
    return {"id": note_id, "forum": paper_id, "replyto": paper_id, "domain": VENUE,
            "invitations": [f"{VENUE}/Submission1/-/Decision"], "content": {"decision": {"value": "Accept (Poster)"}}}


def submission_note(paper_id) -> dict:
    return {"id": paper_id, "forum": paper_id, "domain": VENUE, "invitations": [f"{VENUE}/-/Submission"],
            "content": {"title": {"value": "A title"}, "venueid": {"value": f"{VENUE}/Submission"}}}


def withdrawal_note(paper_id, note_id: str = "w1") -> dict:
    return {"id": note_id, "forum": paper_id, "replyto": paper_id, "domain": VENUE,
            "invitations": [f"{VENUE}/Submission1/-/Withdrawal"],
            "content": {"comment": {"value": "We found an error in Lemma 2."}}}


def write_json(path: Path, doc) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return path


def asap_paper(folder: Path, pid: str, *, content: str | None = None, review: str | None = None) -> None:
    """The three files of one ASAP paper; `content` / `review` replace that file's text."""
    write_json(folder / f"{pid}_paper.json", {"title": f"Paper {pid}", "decision": "Accept (Poster)"})
    write_json(folder / f"{pid}_review.json", review or {"reviews": [{"rating": "6: Marginally above",
                                                                      "confidence": "4: Confident"}]})
    write_json(folder / f"{pid}_content.json", content or {"metadata": {
        "title": f"Paper {pid}", "abstractText": "We study a thing and find a result.",
        "sections": [{"heading": "1 INTRODUCTION", "text": "A paragraph of the body of the paper."}]}})


def text_pdf(pages: int = 1, text: str = "A sentence of body text that a reviewer would read. " * 3,
             at: tuple[float, float] = (72, 300), width: float = 612, height: float = 792) -> bytes:
    doc = pymupdf.open()
    for _ in range(pages):
        doc.new_page(width=width, height=height).insert_text(at, text, fontsize=10)
    return doc.tobytes()


def raw_pdf(objects: list[bytes]) -> bytes:
    """A PDF of the given objects (numbered from 1, object 1 the catalog) with a correct xref table."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def page_tree_pdf(times: int = DEPTH) -> bytes:
    """One page object that the page tree's Kids list names `times` times."""
    text = b"BT /F1 12 Tf 72 700 Td (One page named many times.) Tj ET"
    return raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + b"3 0 R " * times + b"] /Count %d >>" % times,
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(text) + text + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ])
