"""Render the synthetic demo papers (sources/*.md) to PDFs in papers/.

Run: `.venv/bin/python -m peerlake.ingest.demo_corpus.build`. The PDFs are committed, so this only needs
re-running after a source changes. Metadata dates and the file id are fixed so a rebuild of an
unchanged source gives identical bytes.
"""

import html
import io
import re
import sys
from pathlib import Path

import pymupdf

from peerlake.ingest.demo_corpus import SYNTHETIC_LABEL
from peerlake.warehouse.ids import check_paper_id, path_under

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "sources"
PAPERS = HERE / "papers"

FIXED_DATE = "D:20260101000000Z"  # fixed so the bytes do not depend on when the build ran

CSS = """
* { font-family: serif; font-size: 10.5pt; line-height: 1.3; }
h1 { font-size: 16pt; font-weight: bold; text-align: center; margin-bottom: 6pt; }
h2 { font-size: 12pt; font-weight: bold; margin-top: 9pt; margin-bottom: 3pt; }
p { margin-top: 0; margin-bottom: 5pt; text-align: justify; }
p.authors { text-align: center; font-style: italic; }
p.label { text-align: center; font-family: sans-serif; font-size: 9pt; font-weight: bold;
          border: 1px solid black; padding: 3pt; }
pre { font-family: monospace; font-size: 9pt; margin-top: 3pt; margin-bottom: 3pt; }
p.ref { font-size: 9.5pt; margin-bottom: 2pt; text-align: left; }
"""


def parse_source(text: str) -> tuple[dict[str, str], str]:
    """Split a source into its front matter (flat `key: value` lines) and its body."""
    m = re.match(r"^---\n(.*?)\n---\n", text, re.S)
    if not m:
        raise ValueError("source has no front matter (--- … ---) naming paper_id and title")
    meta = {}
    for line in m.group(1).splitlines():
        key, _, value = line.partition(":")
        meta[key.strip()] = value.strip().strip('"')
    return meta, text[m.end():]


def body_to_html(body: str) -> str:
    """The small markdown subset the sources use: #, ##, > label, | table rows, paragraphs."""
    out: list[str] = []
    table: list[str] = []
    in_refs = False

    def flush_table() -> None:
        if table:
            rows = [[c.strip() for c in r.strip().strip("|").split("|")] for r in table]
            widths = [max(len(r[i]) for r in rows if i < len(r)) for i in range(max(map(len, rows)))]
            lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip() for r in rows]
            out.append("<pre>" + "\n".join(html.escape(x) for x in lines) + "</pre>")
            table.clear()

    for block in re.split(r"\n\s*\n", body.strip()):
        lines = block.strip().splitlines()
        if lines[0].startswith("|"):
            table.extend(lines)
            continue
        flush_table()
        text = " ".join(line.strip() for line in lines)
        if text.startswith("# "):
            out.append(f"<h1>{html.escape(text[2:])}</h1>")
        elif text.startswith("## "):
            heading = text[3:]
            in_refs = heading.lower() == "references"
            out.append(f"<h2>{html.escape(heading)}</h2>")
        elif text.startswith("> "):
            out.append(f'<p class="label">{html.escape(text[2:])}</p>')
        elif text.startswith("Anonymous authors"):
            out.append(f'<p class="authors">{html.escape(text)}</p>')
        elif in_refs:
            out.extend(f'<p class="ref">{html.escape(line.strip())}</p>' for line in lines)
        else:
            out.append(f"<p>{html.escape(text)}</p>")
    flush_table()
    return "\n".join(out)


def render_pdf(meta: dict[str, str], body: str) -> bytes:
    story = pymupdf.Story(html=body_to_html(body), user_css=CSS)
    writer_out = io.BytesIO()
    writer = pymupdf.DocumentWriter(writer_out)
    mediabox = pymupdf.paper_rect("letter")
    where = mediabox + (72, 72, -72, -72)  # one-inch margins (Rect arithmetic)  # noqa: RUF005
    more = True
    while more:
        dev = writer.begin_page(mediabox)
        more, _ = story.place(where)
        story.draw(dev)
        writer.end_page()
    writer.close()
    buf = pymupdf.open("pdf", writer_out.getvalue())
    buf.set_metadata({
        "title": meta["title"],
        "author": "Anonymous authors",
        "subject": SYNTHETIC_LABEL,
        "keywords": f"peerlake demo corpus; synthetic; paper_id={meta['paper_id']}",
        "creator": "peerlake ingest/demo_corpus/build.py",
        "producer": "PyMuPDF",
        "creationDate": FIXED_DATE,
        "modDate": FIXED_DATE,
    })
    return buf.tobytes(garbage=4, deflate=True, no_new_id=True)


def build(out_dir: Path = PAPERS) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for src in sorted(SOURCES.glob("*.md")):
        meta, body = parse_source(src.read_text(encoding="utf-8"))
        path = path_under(out_dir, f"{check_paper_id(meta.get('paper_id'), f'{src.name} paper_id')}.pdf")
        path.write_bytes(render_pdf(meta, body))
        written.append(path)
    return written


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else PAPERS
    for p in build(out):
        print(p)
