"""The reject/collect skeleton every importer shares, and its one outcome type.

A batch walks its inputs and says, for each item, what became of it (an `Outcome`). A bad item is
reported — what (`item`), where (`path`, and a finer `where` such as "note #3" or "line 7"), why —
recorded as an `ingest_rejected` event, set aside, and the batch goes on. Events are collected and
appended together by `commit()`: one fsync per file instead of one per item. `guard()` turns any
exception an item raises (a parser bug, a RecursionError, a MemoryError) into that item's rejection,
so one hostile file never stops the files after it.
"""

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from peerlake.warehouse.events import Event, IngestRejected, field_types, fits
from peerlake.warehouse.ids import PaperIdError, check_paper_id
from peerlake.warehouse.log import EventLog

# json.loads raises RecursionError (not JSONDecodeError) past about 1,000 levels of nesting.
TOO_DEEP = "is nested too deeply to read (more than about 1,000 levels of arrays/objects)"

# What an importer can say about one item. "ingested"/"new_version"/"imported"/"status_recorded"
# wrote an event; "unchanged"/"skipped" found it already in the log; "ignored" is not the
# importer's kind of item (a comment note); "rejected" was set aside with a reason.
STATUSES = ("ingested", "new_version", "imported", "status_recorded", "unchanged", "skipped",
            "ignored", "rejected")


@dataclass(frozen=True)
class Outcome:
    """What became of one input item (a PDF, a note, a review, a JSONL line)."""

    status: str
    path: Path
    item: str | None = None  # note or review id, "line 7" … within the file
    paper_id: str | None = None
    event: Event | None = None
    reason: str | None = None
    severity: str = "error"  # of a rejection: error | warning (a scan with no text layer)


def failure(exc: BaseException) -> str:
    """Why an item could not be imported, for an exception no importer check anticipated."""
    if isinstance(exc, RecursionError):
        return f"{TOO_DEEP}; nothing of it was imported"
    if isinstance(exc, MemoryError):
        return "is too large to read into memory (MemoryError); nothing of it was imported"
    text = str(exc)
    text = text if len(text) <= 300 else text[:300] + "…"
    return (f"could not be imported ({type(exc).__name__}: {text}); nothing of it was imported. If the file "
            "looks valid, report this with the file")


def type_problem(event: Event) -> str | None:
    """The first field whose value does not have its declared type: a note's title that is a list would
    otherwise reach the write-ahead log and make every later seal fail."""
    hints = field_types(type(event))
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        if not fits(value, hints[f.name]):
            want = getattr(hints[f.name], "__name__", str(hints[f.name]))
            return f"{event.event_type}.{f.name} would be a {type(value).__name__} ({str(value)[:60]!r}), not {want}"
    return None


def counts(outcomes: list[Outcome], statuses: tuple[str, ...] = STATUSES) -> dict[str, int]:
    """How many outcomes have each status, in the order given."""
    return {s: sum(o.status == s for o in outcomes) for s in statuses}


@dataclass
class Batch:
    """Collects the outcomes and events of one input (a file, a folder) until `commit()`."""

    log: EventLog
    source: str  # the `ingest_rejected.source`: pdf | openreview | asap | reviews
    record_rejections: bool = True
    outcomes: list[Outcome] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    def reject(self, path: Path, why: str, *, where: str | None = None, item: str | None = None,
               paper_id: str | None = None, severity: str = "error",
               content_sha256: str | None = None) -> Outcome:
        """Set an item aside: the reason names the place (`where`, else the path) and the cause."""
        reason = f"{where or path}: {why}"
        if self.record_rejections:
            self.events.append(IngestRejected(
                source=self.source, path=str(path), reason=reason, severity=severity, item=item,
                paper_id=paper_id, content_sha256=content_sha256))
        return self.add(Outcome("rejected", Path(path), item, paper_id, None, reason, severity))

    def paper_id(self, path: Path, value: object, *, where: str | None = None, item: str | None = None,
                 hint: str = "") -> str | None:
        """`value` if it is a valid paper id (warehouse.ids); else None after rejecting the item."""
        try:
            return check_paper_id(value)
        except PaperIdError as exc:
            self.reject(path, f"{exc}{hint}", where=where, item=item)
            return None

    @contextmanager
    def guard(self, path: Path, *, where: str | None = None, item: str | None = None,
              paper_id: str | None = None) -> Iterator[None]:
        """Run one item's import; if it raises, drop what it collected and reject it with the cause.
        An OSError still stops the batch: importers catch their input's read errors themselves, so
        one here is the lake's (a full disk, a blob that cannot be written), not the item's."""
        n_events, n_outcomes = len(self.events), len(self.outcomes)
        try:
            yield
        except OSError:
            raise
        except Exception as exc:  # anything else: the item is set aside with its cause, the batch goes on
            del self.events[n_events:], self.outcomes[n_outcomes:]
            self.reject(path, failure(exc), where=where, item=item, paper_id=paper_id)

    def read_utf8(self, path: Path) -> str | None:
        """A JSONL file's text, or None after rejecting the whole file (unreadable, or not UTF-8)."""
        try:
            return Path(path).read_bytes().decode("utf-8")
        except OSError as exc:
            self.reject(path, f"cannot be read ({exc.strerror or exc})")
        except UnicodeDecodeError as exc:
            self.reject(path, f"not UTF-8 text (byte {exc.start}: {exc.reason}); re-save it as UTF-8")
        return None

    def emit(self, status: str, path: Path, event: Event, *, item: str | None = None,
             paper_id: str | None = None) -> Outcome:
        """An item that becomes an event (written at `commit()`); rejected instead when a field of
        the event does not have its type (the input held, say, a list where text belongs)."""
        if problem := type_problem(event):
            return self.reject(path, f"{problem}; fix the input", item=item, paper_id=paper_id)
        self.events.append(event)
        return self.add(Outcome(status, Path(path), item, paper_id, event))

    def note(self, status: str, path: Path, *, item: str | None = None, paper_id: str | None = None,
             reason: str | None = None, event: Event | None = None) -> Outcome:
        """An item that writes nothing: unchanged, skipped (already in the log) or ignored."""
        return self.add(Outcome(status, Path(path), item, paper_id, event, reason))

    def add(self, outcome: Outcome) -> Outcome:
        self.outcomes.append(outcome)
        return outcome

    def commit(self) -> list[Outcome]:
        """Append the collected events in one write; returns every outcome so far."""
        if self.events:
            self.log.append_many(self.events)
            self.events = []
        return self.outcomes
