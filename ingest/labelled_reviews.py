"""What the human-labelled dataset importers (disapere.py, revutil.py, reviewcritique.py) share: a review
becomes an `external_review_imported` of system <dataset> (its text a body blob, as
ingest/external_reviews.py writes it), so the judges read it like any imported review, and each person's
labels of one of its items a `human_label_imported` with the mapping's labels and hash.

Idempotent by content: a review already imported (system, review id) and a label row already there
(dataset, item, annotator, reference or not, labels, mapping hash) are skipped, so a second import of the
same files writes nothing; an edited mapping is a new hash, and its rows are new rows beside the old ones.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from peerlake.ingest.batch import Batch, Outcome
from peerlake.ingest.label_mapping import LabelMapping, UnknownLabel
from peerlake.ingest.substanreview import judged_offsets
from peerlake.warehouse.events import ExternalReviewImported, HumanLabelImported, IngestRejected
from peerlake.warehouse.log import EventLog

SOURCE = "reference_labels"  # the ingest_rejected.source (stg_events__ingest_rejections accepts a fixed set)
# label rows are imported | skipped | rejected; a dataset's papers (ReviewCritique) ingested | new_version | unchanged
STATUSES = ("imported", "skipped", "ingested", "new_version", "unchanged", "rejected")


def inside(root: Path, path: Path) -> bool:
    """Whether `path` (links followed) is under `root`: a link out of the dataset's folder is refused."""
    return Path(path).resolve().is_relative_to(Path(root).resolve())


@dataclass
class LabelImport:
    """One import of one dataset: the batch, what the lake holds already, and the counts for the summary."""

    log: EventLog
    mapping: LabelMapping
    batch: Batch = field(init=False)
    items: set[str] = field(default_factory=set)  # imported or already there
    annotators: set[str] = field(default_factory=set)
    _reviews: set[str] = field(default_factory=set)
    _labels: set[tuple] = field(default_factory=set)
    _mapping_sha: str | None = None
    has_reference: bool = False

    def __post_init__(self) -> None:
        self.batch = Batch(self.log, SOURCE)
        dataset = self.mapping.dataset
        self._reviews = {e.review_id for e in self.log.iter_events("external_review_imported")
                         if e.system == dataset}
        self._labels = {_key(e) for e in self.log.iter_events("human_label_imported") if e.dataset == dataset}

    @property
    def dataset(self) -> str:
        return self.mapping.dataset

    def review(self, path: Path, paper_id: str, review_id: str, text: str, raw: dict, line_no: int,
               score: float | None = None) -> str:
        """The review's key; queues its `external_review_imported` when the lake has none yet (`raw`: what
        the dataset says of the review, kept in the body blob; `score`: the reviewer's own rating)."""
        if review_id not in self._reviews:
            body = json.dumps({"system": self.dataset, "text": text, "line": raw}, sort_keys=True,
                              ensure_ascii=False, separators=(",", ":"))
            self.batch.events.append(ExternalReviewImported(
                paper_id=paper_id, review_id=review_id, system=self.dataset, sample_index=0, score=score,
                confidence=None, body_sha256=self.log.blobs.put_text(body), source_path=str(path), line_no=line_no))
            self._reviews.add(review_id)
        return f"external:{self.dataset}:{review_id}"

    def label(self, path: Path, *, where: str, item_key: str, review_key: str, review_text: str,
              item_text: str, start: int | None, labels: dict, annotator: str | None, is_reference: bool,
              paper_id: str | None = None, split: str | None = None, line_no: int | None = None) -> Outcome:
        """One person's labels of one item → an event (or skipped / rejected, named by `where`).
        `start`: the item's offset in `review_text` (None: not found there)."""
        item = f"{item_key} ({annotator or 'reference'})"
        try:
            mapped = self.mapping.apply(labels)
        except UnknownLabel as exc:
            return self.batch.reject(path, str(exc), where=where, item=item, paper_id=paper_id)
        end = None if start is None else start + len(item_text)
        judged = (None, None) if start is None else judged_offsets(review_text, start, end)
        labels_json = json.dumps(labels, sort_keys=True, ensure_ascii=False)
        key = (item_key, annotator, is_reference, labels_json, self.mapping.sha256)
        self.items.add(item_key)
        if annotator:
            self.annotators.add(annotator)
        else:
            self.has_reference = True
        if key in self._labels:
            return self.batch.note("skipped", path, item=item, paper_id=paper_id,
                                   reason=f"{where}: already imported")
        if self._mapping_sha is None:  # the mapping's bytes before the first event naming them
            self._mapping_sha = self.log.blobs.put(self.mapping.raw)
        outcome = self.batch.emit("imported", path, HumanLabelImported(
            dataset=self.dataset, item_key=item_key, review_key=review_key, paper_id=paper_id, split=split,
            annotator=annotator, is_reference=is_reference, item_text=item_text, start=start, end=end,
            judged_start=judged[0], judged_end=judged[1], labels_json=labels_json,
            mapped_json=json.dumps(mapped, sort_keys=True), mapping=self.mapping.name,
            mapping_sha256=self._mapping_sha, source_path=str(path), line_no=line_no), item=item, paper_id=paper_id)
        if outcome.status == "imported":
            self._labels.add(key)
        return outcome

    def commit(self) -> "Imported":
        # a rejection the lake holds already (same file, same reason) is not recorded again: a second
        # import of the same files writes nothing, its set-aside rows included (they are still reported)
        seen = {(e.path, e.reason) for e in self.log.iter_events("ingest_rejected") if e.source == SOURCE}
        self.batch.events = [e for e in self.batch.events
                             if not (isinstance(e, IngestRejected) and (e.path, e.reason) in seen)]
        return Imported(self.batch.commit(), set(self.items), set(self.annotators), self.has_reference)


@dataclass(frozen=True)
class Imported:
    """What one import did: an outcome per label row, and the items and annotators now in the lake."""

    outcomes: list[Outcome]
    items: set[str]
    annotators: set[str]
    has_reference: bool = False  # rows of the dataset's own label with no annotator named

    def totals(self) -> str:
        """'9946 items · 17 annotators' (+ the reference label, + papers): what the lake now holds of it."""
        papers = sum(o.status in ("ingested", "new_version", "unchanged") for o in self.outcomes)
        return (f"{len(self.items)} items · {len(self.annotators)} annotators"
                + (" + the dataset's reference label" if self.has_reference else "")
                + (f" · {papers} papers" if papers else ""))

    def summary(self) -> str:
        n = {s: sum(o.status == s for o in self.outcomes) for s in STATUSES}
        return (f"{self.totals()} · label rows: {n['imported']} imported, {n['skipped']} already there · "
                f"{n['rejected']} set aside")


def _key(e: HumanLabelImported) -> tuple:
    """What makes a label row the same row: item, person (and in which file), labels, and the mapping."""
    return e.item_key, e.annotator, e.is_reference, e.labels_json, e.mapping_sha256
