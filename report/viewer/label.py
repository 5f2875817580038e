"""Labelling in the browser (`peerlake label`): a sample of one study's judged reviews, each shown in the
text its judge read, labelled by a person on one of the judge's dimensions, whole or on a span; each label
a `human_label_entered` event appended to the lake's log (EventLog.append) and nothing kept anywhere else.

- Items: the judge's ok judgments of reviews in the study (the published fct_call_judgments, as the viewer
  reads them), the text rebuilt as the viewer rebuilds it (details.Reviews) and kept only when its SHA-256
  is the one the judgment's inputs_json recorded: the offsets index exactly what the judge saw.
- Sample: stratified as `peerlake plan-labels` plans (each side of a system-vs-human difference gets half
  the labels): half of n from the human reviews, the other half shared by the systems, each stratum in the
  fixed order of its keys' SHA-256 (no seed, no run order), so the same n draws the same items every time.
- Done: an item holds an event by this annotator on this dimension (read from the log on every request);
  a resumed session skips it, and a second annotator sees it again (two people on one item: the ceiling).
- A POST is data: JSON parsed, never evaluated, every field checked (known item, a label of the choices,
  offsets inside the text and equal to the span sent); a refused one says why and writes nothing.
"""

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property

from peerlake.judging.constructiveness import RATINGS
from peerlake.judging.depth_taxonomy import load as load_depth_taxonomy
from peerlake.judging.novelty import STANCES
from peerlake.report.viewer.details import SPAN_KEYS, Reviews, _place_units
from peerlake.warehouse import EventLog
from peerlake.warehouse.events import HumanLabelEntered

EVENT = HumanLabelEntered.event_type
# The dimensions a person can label per judge, the first the default. Flaws judges a pool of reviews
# against the manuscript, not one review: its people's labels come from ReviewCritique (docs/judges/human-labels.md).
DIMENSIONS = {"depth": ("aspect", "role"), "novelty": ("stance",), "constructiveness": RATINGS}
MAX_BODY = 64 * 1024  # a label is a few hundred bytes; a bigger POST is refused unread


class Refused(ValueError):
    """A label the server will not write, and why (shown on the page)."""


def choices(judge: str, dimension: str, inputs: dict) -> tuple[str, ...]:
    """The labels of one dimension, in the judge's own order: the depth taxonomy's aspects as the judgment
    recorded them (inputs_json `aspects`, else the taxonomy it names), claim/premise, the novelty stances,
    a constructiveness rating 0-2."""
    if judge == "depth" and dimension == "aspect":
        aspects = inputs.get("aspects")
        if isinstance(aspects, list) and aspects and all(isinstance(a, str) for a in aspects):
            return tuple(aspects)
        return load_depth_taxonomy(inputs.get("depth_taxonomy")).labels
    if judge == "depth" and dimension == "role":
        return ("claim", "premise")
    if judge == "novelty":
        return STANCES
    return ("0", "1", "2")


def typed(judge: str, label: str):
    """The label as the judge's units hold it (a constructiveness rating is an int): mapped_json's value."""
    return int(label) if judge == "constructiveness" else label


def stratum(system: str | None, review_key: str) -> str:
    return "human" if review_key.startswith("human:") else (system or "unknown")


def stratified(items: list["Item"], n: int) -> list["Item"]:
    """n items: half (rounded up) from the human reviews, the rest shared evenly by the systems' strata (a
    stratum short of its share gives the rest to the others), each stratum in SHA-256 order of its keys."""
    strata: dict[str, list[Item]] = {}
    for it in sorted(items, key=lambda it: hashlib.sha256(it.key.encode()).hexdigest()):
        strata.setdefault(stratum(it.system, it.key), []).append(it)
    human, systems = strata.pop("human", []), [strata[k] for k in sorted(strata)]
    take_human = min(len(human), (n + 1) // 2 if systems else n)
    picked, left = human[:take_human], n - take_human
    cursor = [0] * len(systems)
    while left > 0 and any(c < len(s) for c, s in zip(cursor, systems, strict=True)):
        for k, s in enumerate(systems):  # round robin: an even share, a short stratum's rest to the others
            if left > 0 and cursor[k] < len(s):
                picked.append(s[cursor[k]])
                cursor[k] += 1
                left -= 1
    if left > 0:  # the systems ran out: more human reviews
        picked += human[take_human:take_human + left]
    return picked


@dataclass(frozen=True)
class Item:
    key: str  # the review key
    paper_id: str | None
    system: str | None
    judge_config: str
    judgment_id: str
    text: str
    text_sha256: str
    choices: tuple[str, ...]
    units: tuple[dict, ...]  # the judge's units placed in the text, each with its label on the dimension


@dataclass
class LabelSession:
    """One `peerlake label` session: the study, judge, dimension and annotator, the sampled items; what is
    done is read from the log each time, never kept here."""

    reviews: Reviews
    log: EventLog
    study: str
    judge: str
    annotator: str
    n: int
    dimension: str = ""
    blind: bool = True
    skipped: dict[str, str] = field(default_factory=dict)  # review key -> why it cannot be labelled

    def __post_init__(self) -> None:
        if self.judge not in DIMENSIONS:
            raise ValueError(f"judge {self.judge!r} cannot be labelled here: one of {', '.join(DIMENSIONS)} "
                             "(flaws judges pools of reviews with the manuscript: its human labels come from "
                             "ReviewCritique, `peerlake ingest labels --format reviewcritique`)")
        self.dimension = self.dimension or DIMENSIONS[self.judge][0]
        if self.dimension not in DIMENSIONS[self.judge]:
            raise ValueError(f"--dimension {self.dimension!r}: the {self.judge} judge's are "
                             f"{', '.join(DIMENSIONS[self.judge])}")
        if not self.annotator.strip() or len(self.annotator) > 80:
            raise ValueError("--annotator must name someone (1-80 characters)")

    @cached_property
    def candidates(self) -> list[Item]:
        """Every review the judge judged ok in the study whose judged text is the text it recorded."""
        inputs = {e.event_id: e.inputs_json for e in self.log.iter_events("judgment_recorded")
                  if e.judge == self.judge}
        out = []
        for key, judgments in self.reviews.by_key.items():
            ok = [j for j in judgments if j.judge == self.judge and j.status == "ok"]
            if not ok:
                continue
            j = ok[0]  # the first recorded: one text per judge, whichever configuration judged it
            review = self.reviews.text(key)
            if review is None:
                self.skipped[key] = "its text is not in the lake"
                continue
            text = review.for_judge(self.judge).text
            sha = hashlib.sha256(text.encode()).hexdigest()
            try:
                recorded = json.loads(inputs.get(j.judgment_id) or "{}")
            except ValueError:
                recorded = {}
            if recorded.get("text_sha256") != sha:
                self.skipped[key] = "the text rebuilt is not the text the judge recorded reading"
                continue
            units = tuple({**u, "label": _unit_label(raw, self.dimension)}
                          for u, raw in zip(_place_units(json.loads(j.units_json or "[]"), text),
                                            _spans(json.loads(j.units_json or "[]")), strict=True))
            out.append(Item(key, j.paper_id, j.review_system, j.judge_config, j.judgment_id, text, sha,
                            choices(self.judge, self.dimension, recorded), units))
        return out

    @cached_property
    def items(self) -> dict[str, Item]:
        return {it.key: it for it in stratified(self.candidates, self.n)}

    def done(self) -> set[str]:
        """The items this annotator has labelled on this dimension, read from the log now."""
        return {e.item_key for e in self.log.iter_events(EVENT)
                if e.study == self.study and e.judge == self.judge and e.dimension == self.dimension
                and e.annotator == self.annotator and e.item_key in self.items}

    def page(self) -> dict:
        """The label page's data: the items in sample order, each done or not (the judge's units only when
        not blind)."""
        done = self.done()
        return {"study": self.study, "judge": self.judge, "dimension": self.dimension, "annotator": self.annotator,
                "blind": self.blind, "n": len(self.items), "n_candidates": len(self.candidates),
                "skipped": len(self.skipped),
                "items": [{"key": it.key, "paper": it.paper_id, "text": it.text, "choices": list(it.choices),
                           "done": it.key in done, "units": [] if self.blind else list(it.units)}
                          for it in self.items.values()]}

    def enter(self, body: bytes) -> HumanLabelEntered:
        """Check a POSTed label and append its event; Refused says what is wrong and writes nothing."""
        if len(body) > MAX_BODY:
            raise Refused(f"the label is {len(body):,} bytes; at most {MAX_BODY:,}")
        try:
            doc = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise Refused("the label is not JSON") from None
        if not isinstance(doc, dict) or set(doc) - {"item", "label", "start", "end", "span"}:
            raise Refused("a label is a JSON object of item, label and, for a span, start, end and span")
        item = self.items.get(doc.get("item")) if isinstance(doc.get("item"), str) else None
        if item is None:
            raise Refused(f"no item {str(doc.get('item'))[:80]!r} in this session's sample")
        label = doc.get("label")
        if label not in item.choices:
            raise Refused(f"{str(label)[:40]!r} is not a {self.judge} {self.dimension} label: one of "
                          f"{', '.join(item.choices)}")
        start, end, span = doc.get("start"), doc.get("end"), doc.get("span")
        if (start, end, span) != (None, None, None):
            if not (type(start) is int and type(end) is int and isinstance(span, str)):
                raise Refused("a span is start and end (integers) and its text")
            if not 0 <= start < end <= len(item.text):
                raise Refused(f"the span {start}-{end} is not inside the text (0-{len(item.text)})")
            if item.text[start:end] != span:
                raise Refused(f"the text at {start}-{end} is not the span sent")
        with self.log.lock(f"label/{hashlib.sha256(self.annotator.encode()).hexdigest()[:32]}"):
            if item.key in self.done():  # a second tab, a double click: one label per item and annotator
                raise Refused(f"{self.annotator} has labelled this item already")
            return self.log.append(HumanLabelEntered(
                study=self.study, judge=self.judge, judge_config=item.judge_config, judgment_id=item.judgment_id,
                item_key=item.key, review_key=item.key, paper_id=item.paper_id, annotator=self.annotator,
                dimension=self.dimension, label=label,
                mapped_json=json.dumps({self.dimension: typed(self.judge, label)}, sort_keys=True),
                item_text=span, judged_start=start, judged_end=end, text_sha256=item.text_sha256,
                judge_shown=not self.blind))


def _spans(units) -> list[dict]:
    """The units _place_units places (those with a verbatim field), in its order."""
    return [u for u in (units if isinstance(units, list) else [])
            if isinstance(u, dict) and any(isinstance(u.get(k), str) and u[k].strip() for k in SPAN_KEYS)]


def _unit_label(unit: dict, dimension: str) -> str:
    value = unit.get(dimension)
    return f"{dimension}: {'—' if value is None else value}"
