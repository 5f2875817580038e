"""Why papers were withdrawn, in their authors' words → `withdrawal_note_imported` (the comment text a
blob) and, for a paper the lake has no status for, a `paper_status_recorded` "withdrawn".

Two inputs (the match judge, judging/withdrawal_match.py, reads the comments against the reviews):
- OpenReview notes (any file `peerlake ingest openreview` reads: a list of notes, `{"notes": [...]}`,
  a submission dump with `details.replies`, API v1 or v2): each withdrawal note (invitation ending in
  `/-/Withdrawal` or `/-/Withdraw`) with a non-empty `comment` (v2: `{"value": …}`) is one note. A
  withdrawal note without a comment carries only the venue's confirmation checkbox: it is reported as
  "ignored" (nothing to judge), not rejected.
- JSONL of arXiv withdrawal comments, one object per line: `paper_id` (the lake's paper id, required),
  `comment` (required, non-empty), and optional `arxiv_id`, `title`, `level` (the dataset's own label
  for the error, e.g. WithdrarXiv's category) — all strings. A bad line is reported and set aside as an
  `ingest_rejected` event (source "withdrawals"); the other lines still import.

The file kind is told by its suffix: `.jsonl` is the arXiv form, anything else is read as OpenReview
notes. Re-importing the same comment for the same paper writes nothing ("skipped"); a different
comment for a paper is a new note, and the newest note is the one judged.
The status is recorded only when the lake holds NO status for the paper (ours: the paper does not say): a
venue's own decision (from `peerlake ingest openreview`) is never overwritten, and an arXiv withdrawal
carries no acceptance label (is_accepted null), while an OpenReview withdrawal is 0 as the OpenReview
importer records it.
"""

import json
from pathlib import Path

from peerlake.ingest.batch import TOO_DEEP, Batch, Outcome
from peerlake.ingest.openreview import NoteError, _api_source, _value, _venue_of, _year_of, note_kind, read_notes
from peerlake.warehouse.events import PaperStatusRecorded, WithdrawalNoteImported
from peerlake.warehouse.ids import PaperIdError, check_paper_id
from peerlake.warehouse.log import EventLog

SOURCE = "withdrawals"  # the ingest_rejected.source of this importer
ARXIV = "arxiv"
OPENREVIEW = "openreview"
MAX_COMMENT_CHARS = 100_000  # OpenReview allows 200,000; a real withdrawal comment is a paragraph
STATUSES = ("imported", "status_recorded", "skipped", "ignored", "rejected")
_OPTIONAL = ("arxiv_id", "title", "level")


class WithdrawalLineError(ValueError):
    pass


def parse_line(line: str) -> dict:
    """One JSONL line → {paper_id, comment, arxiv_id, title, level}; raises WithdrawalLineError naming
    what is wrong."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise WithdrawalLineError(f"not valid JSON (column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise WithdrawalLineError(TOO_DEEP) from None
    if not isinstance(obj, dict):
        raise WithdrawalLineError(f"not a JSON object ({type(obj).__name__})")
    for key in ("paper_id", "comment"):
        if not isinstance(obj.get(key), str) or not obj[key].strip():
            raise WithdrawalLineError(f"missing or empty '{key}' (a non-empty string)")
    try:
        paper_id = check_paper_id(obj["paper_id"].strip(), "paper_id")
    except PaperIdError as exc:
        raise WithdrawalLineError(str(exc)) from None
    out = {"paper_id": paper_id, "comment": obj["comment"].strip()}
    if len(out["comment"]) > MAX_COMMENT_CHARS:
        raise WithdrawalLineError(f"'comment' has {len(out['comment'])} characters, more than {MAX_COMMENT_CHARS}")
    for key in _OPTIONAL:
        v = obj.get(key)
        if v is not None and not isinstance(v, str):
            raise WithdrawalLineError(f"'{key}' must be a string or absent, got {v!r}")
        out[key] = (v.strip() or None) if isinstance(v, str) else None
    return out


class _Importer:
    """One file's batch plus what the lake already holds (comments per paper, papers with a status)."""

    def __init__(self, log: EventLog, path: Path):
        self.log, self.path = log, Path(path)
        self.batch = Batch(log, SOURCE)
        self.known = {(e.paper_id, e.comment_sha256) for e in log.iter_events("withdrawal_note_imported")}
        self.with_status = {e.paper_id for e in log.iter_events("paper_status_recorded")}

    def note(self, *, paper_id: str, comment: str, source: str, note_id: str | None, where: str, item: str,
             line_no: int | None = None, level: str | None = None) -> bool:
        """Record one comment unless this paper already has it; True when it was new."""
        sha = self.log.blobs.put_text(comment)
        if (paper_id, sha) in self.known:
            self.batch.note("skipped", self.path, item=item, paper_id=paper_id,
                            reason=f"{where}: this comment of {paper_id} is already imported")
            return False
        self.known.add((paper_id, sha))
        ev = WithdrawalNoteImported(paper_id=paper_id, source=source, note_id=note_id, comment_sha256=sha,
                                    comment_chars=len(comment), source_path=str(self.path), line_no=line_no,
                                    level=level)
        self.batch.emit("imported", self.path, ev, item=item, paper_id=paper_id)
        return True

    def status(self, *, paper_id: str, item: str, **fields) -> None:
        """A "withdrawn" status for a paper the lake has none for (never over a venue's decision)."""
        if paper_id in self.with_status:
            return
        self.with_status.add(paper_id)
        ev = PaperStatusRecorded(paper_id=paper_id, status="withdrawn", **fields)
        self.batch.emit("status_recorded", self.path, ev, item=item, paper_id=paper_id)


def import_arxiv_comments(log: EventLog, path: Path) -> list[Outcome]:
    """Import one JSONL file of arXiv withdrawal comments (an outcome per non-blank line, `item`
    "line N"); never raises for bad input. A file that is not UTF-8 text is rejected whole."""
    imp = _Importer(log, path)
    text = imp.batch.read_utf8(imp.path)
    if text is None:
        return imp.batch.commit()
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where, item = f"{imp.path} line {line_no}", f"line {line_no}"
        with imp.batch.guard(imp.path, where=where, item=item):
            try:
                f = parse_line(line)
            except WithdrawalLineError as exc:
                imp.batch.reject(imp.path, str(exc), where=where, item=item)
                continue
            imp.note(paper_id=f["paper_id"], comment=f["comment"], source=ARXIV, note_id=f["arxiv_id"],
                     where=where, item=item, line_no=line_no, level=f["level"])
            imp.status(paper_id=f["paper_id"], item=item, venue=None, decision="withdrawn on arXiv",
                       is_accepted=None, source=ARXIV, source_note_id=f["arxiv_id"], title=f["title"])
    return imp.batch.commit()


def _comment_of(content: dict) -> str | None:
    for key in ("comment", "withdrawal_comment", "comments"):  # v2 venues name it "comment"
        v = _value(content, key)
        if isinstance(v, str) and v.strip():
            return v.strip()
    return None


def import_openreview_withdrawals(log: EventLog, path: Path) -> list[Outcome]:
    """Import the withdrawal comments in one OpenReview notes file; a file that cannot be read as
    notes is rejected whole, a bad withdrawal note is rejected alone."""
    imp = _Importer(log, path)
    notes = None
    with imp.batch.guard(imp.path):
        try:
            notes = read_notes(imp.path)
        except NoteError as exc:
            imp.batch.reject(imp.path, str(exc).removeprefix(f"{imp.path}: "))
    if notes is None:
        return imp.batch.commit()
    titles = {n["forum"]: _value(n.get("content") or {}, "title") for n in notes
              if isinstance(n, dict) and isinstance(n.get("forum"), str) and note_kind(n) == "submission"}
    for i, note in enumerate(notes):
        if not isinstance(note, dict) or note_kind(note) != "withdrawal":
            continue  # reviews, comments, decisions: `peerlake ingest openreview` reads those
        nid = note.get("id") if isinstance(note.get("id"), str) else None
        where = f"{imp.path} note #{i}" + (f" (id {nid})" if nid else "")
        with imp.batch.guard(imp.path, where=where, item=nid):
            _openreview_note(imp, note, nid, where, titles)
    return imp.batch.commit()


def _openreview_note(imp: _Importer, note: dict, nid: str | None, where: str, titles: dict) -> None:
    pid, content = note.get("forum"), note.get("content")
    if not pid or not isinstance(content, dict):
        imp.batch.reject(imp.path, "withdrawal note without 'forum' or 'content'", where=where, item=nid)
        return
    if (pid := imp.batch.paper_id(imp.path, pid, where=where, item=nid)) is None:
        return
    comment = _comment_of(content)
    if comment is None:
        imp.batch.note("ignored", imp.path, item=nid, paper_id=pid,
                       reason=f"{where}: withdrawal note without a comment (nothing to judge)")
        return
    if len(comment) > MAX_COMMENT_CHARS:
        imp.batch.reject(imp.path, f"comment has {len(comment)} characters, more than {MAX_COMMENT_CHARS}",
                         where=where, item=nid, paper_id=pid)
        return
    imp.note(paper_id=pid, comment=comment, source=OPENREVIEW, note_id=nid, where=where, item=nid)
    venue = _venue_of(note)
    imp.status(paper_id=pid, item=nid, venue=venue, decision="Withdrawn", is_accepted=False,
               source=_api_source(note), source_note_id=nid, title=titles.get(pid), year=_year_of(venue))


def import_withdrawals(log: EventLog, path: Path) -> list[Outcome]:
    """`.jsonl` → arXiv comments; any other file → OpenReview notes."""
    if Path(path).suffix.lower() == ".jsonl":
        return import_arxiv_comments(log, path)
    return import_openreview_withdrawals(log, path)
