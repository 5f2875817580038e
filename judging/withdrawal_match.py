"""Withdrawal match (WithdrarXiv-Check, the Multi-Layered Review paper):
for each paper with a withdrawal note and each of its
reviews, does the review find the problem the authors gave for withdrawing the paper? Two prompts, one
per level: **exact** (the same problem) and **similar** (a related problem). A judgment per (level,
paper, review, repeat): step = the level, subject key `<paper_id>|<review_key>`, one call.

Study table `[withdrawals]` (keys in KEYS; the judge model in `[withdrawals.judge]`, the rest from the
study's `[judging]`):
- `levels` = ["exact", "similar"]: the levels judged.
- `sources` = ["peerlake", "external"] (ours: the paper does not say): which reviews are judged — the study's
  template reviewers and systems, its imported systems, and `"human"` for the papers' human reviews
  (an OpenReview withdrawn submission has some; a reference row, opt-in because it costs calls).
- `papers` = all [default]: only these of the study's papers (each still needs a withdrawal note).
- `comment_chars` = 1500 (ours: the paper does not say): the withdrawal comment is cut to this many characters.
- `review_chars` = the judge's budget (`settings.judge_max_chars(provider)`, 6,000 on the local model)
  minus `comment_chars` (ours: the paper does not say): the review is cut to this prefix.
- repeats: `[withdrawals.judge] repeats`, default 1 (DEFAULT_REPEATS): the source paper's counts out of 211 read
  as one verdict per paper (derived from the paper's counts).

Which note: the paper's newest `withdrawal_note_imported` (ingest/withdrawals.py); a review is judged
against it, and a newer note makes new requests, so the judgment slot is recorded anew. The source paper's
literature agent is off for this experiment (web search could leak the withdrawal notice): that is the
study's reviewer options (`literature_agent` is false by default in mlr), not checked here.

Units (one per judgment): `{"level": "exact"|"similar", "match": bool, "rationale": str|null,
"withdrawal_note_id": str, "note_source": str}`. Null reasons: `empty_review` (no argument text, no
call), `comment_unreadable` (the note's blob is missing, no call), `unparseable:<level>` (not the
schema's JSON, or `match` not a boolean). A failed call is not recorded (retried next run).
"""

from collections.abc import Sequence
from dataclasses import dataclass

from peerlake.judging.base import JudgeContext, Judgment, answer, judge_request, review_inputs
from peerlake.judging.reviews import JudgedReview
from peerlake.warehouse import EventLog, settings

EXPERIMENT = "withdrawals"
JUDGE = "withdrawal_match"
ORDER = 3  # its place in judging.registry's lists
SECTIONS = None  # whether the review names the withdrawal's problem anywhere (the MLR paper)
LEVELS = ("exact", "similar")
TEMPLATES = ("withdrawal_match_exact", "withdrawal_match_similar")
TEMPLATE_OF = dict(zip(LEVELS, TEMPLATES, strict=True))
PARSER_VERSION = "withdrawal_match-1"
KEYS = {"judge", "levels", "sources", "papers", "comment_chars", "review_chars"}
DEFAULT_REPEATS = 1
SOURCES = ("human", "peerlake", "external")
DEFAULT_SOURCES = ("peerlake", "external")
DEFAULT_COMMENT_CHARS = 1500
MIN_REVIEW_CHARS = 1000  # a derived review budget never drops below this
# The schema's longest answer: 300 characters of rationale (~80 tokens) + keys ≈ 100 tokens.
MAX_TOKENS = 200


def _strings(table: dict, key: str, allowed: Sequence[str] | None = None) -> tuple[str, ...] | None:
    if key not in table:
        return None
    v = table[key]
    if not isinstance(v, list) or not v or not all(isinstance(x, str) and x.strip() for x in v):
        raise ValueError(f"{EXPERIMENT}.{key}: give a non-empty list of strings, e.g. {key} = "
                         f"{list(allowed or ['paper-id'])!r}")
    if allowed is not None and (bad := sorted(set(v) - set(allowed))):
        raise ValueError(f"{EXPERIMENT}.{key}: unknown {', '.join(map(repr, bad))}; choose from {', '.join(allowed)}")
    return tuple(dict.fromkeys(x.strip() for x in v))


def _positive(table: dict, key: str) -> int | None:
    v = table.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"{EXPERIMENT}.{key}: give a positive integer (characters), got {v!r}")
    return v


@dataclass(frozen=True)
class Spec:
    levels: tuple[str, ...] = LEVELS
    sources: tuple[str, ...] = DEFAULT_SOURCES
    papers: tuple[str, ...] | None = None
    comment_chars: int = DEFAULT_COMMENT_CHARS
    review_chars: int | None = None  # None: derived from the judge's provider

    @classmethod
    def from_table(cls, table: dict) -> "Spec":
        """The study's [withdrawals] table; keys outside KEYS are other modules' (ignored here)."""
        levels = _strings(table, "levels", LEVELS)
        sources = _strings(table, "sources", SOURCES)
        return cls(levels=tuple(x for x in LEVELS if x in (levels or LEVELS)), sources=sources or DEFAULT_SOURCES,
                   papers=_strings(table, "papers"),
                   comment_chars=_positive(table, "comment_chars") or DEFAULT_COMMENT_CHARS,
                   review_chars=_positive(table, "review_chars"))

    def review_budget(self, provider: str) -> int:
        if self.review_chars is not None:
            return self.review_chars
        return max(MIN_REVIEW_CHARS, settings.judge_max_chars(provider) - self.comment_chars)


@dataclass(frozen=True)
class WithdrawalNote:
    note_event_id: str
    paper_id: str
    source: str
    comment: str | None  # None: the blob could not be read


def latest_notes(log: EventLog, paper_ids: set[str] | None = None) -> dict[str, WithdrawalNote]:
    """The newest withdrawal note of each paper (event ids are ULIDs: later sorts higher)."""
    newest: dict[str, object] = {}
    for ev in log.iter_events("withdrawal_note_imported"):
        if paper_ids is not None and ev.paper_id not in paper_ids:
            continue
        if ev.paper_id not in newest or ev.event_id > newest[ev.paper_id].event_id:
            newest[ev.paper_id] = ev
    out = {}
    for pid, ev in newest.items():
        try:
            text = log.blobs.get_text(ev.comment_sha256)
        except (OSError, ValueError):  # missing or corrupted blob: judged null, never guessed
            text = None
        out[pid] = WithdrawalNote(note_event_id=ev.event_id, paper_id=pid, source=ev.source, comment=text)
    return out


def subject_key(paper_id: str, review_key: str) -> str:
    return f"{paper_id}|{review_key}"


def judge(ctx: JudgeContext, reviews: Sequence[JudgedReview], spec: Spec) -> list[Judgment]:
    """Every (level, repeat 0..R-1, review of a paper with a withdrawal note, of spec.sources); the
    calls of all of them batched in one call_many."""
    # the Multi-Layered Review paper: whether the review names the withdrawal note's problem anywhere: every section
    reviews = [r.for_judge(JUDGE) for r in reviews]
    wanted = [r for r in reviews if r.source in spec.sources and (spec.papers is None or r.paper_id in spec.papers)]
    notes = latest_notes(ctx.log, {r.paper_id for r in wanted})
    review_chars = spec.review_budget(ctx.cfg.provider)
    out, todo, reqs = [], [], []
    for level in spec.levels:
        for repeat in range(max(1, ctx.cfg.repeats)):
            for r in wanted:
                note = notes.get(r.paper_id)
                if note is None:
                    continue  # not a withdrawn paper: not this experiment's subject
                j = Judgment(judge=JUDGE, step=level, subject_key=subject_key(r.paper_id, r.review_key),
                             paper_id=r.paper_id, repeat=repeat, inputs=review_inputs(r))
                j.inputs.update(withdrawal_note_id=note.note_event_id, note_source=note.source)
                out.append(j)
                if not (r.sections and r.text.strip()):
                    j.null_reason = "empty_review"
                    continue
                if note.comment is None:
                    j.null_reason = "comment_unreadable"
                    continue
                text, comment = r.text[:review_chars], note.comment[:spec.comment_chars]
                j.inputs.update(chars_judged=len(text), comment_chars_judged=len(comment))
                todo.append((j, note))
                reqs.append(judge_request(ctx.cfg, JUDGE, level, TEMPLATE_OF[level], subject_id=j.subject_key,
                                          repeat=repeat, max_tokens=MAX_TOKENS, withdrawal_comment=comment,
                                          review_text=text))
    results = ctx.call_many(reqs, "withdrawal match") if reqs else []
    for (j, note), res in zip(todo, results, strict=True):
        if isinstance(res, BaseException):  # already an error event; not recorded, so retried next run
            j.failed_call = f"{type(res).__name__}: {res}"
            continue
        j.results.append(res)
        doc = answer(res)
        match = doc.get("match") if isinstance(doc, dict) else None
        if not isinstance(match, bool):
            j.null_reason = f"unparseable:{j.step}"
            continue
        rationale = doc.get("rationale")
        j.units = [{"level": j.step, "match": match,
                    "rationale": rationale.strip() if isinstance(rationale, str) and rationale.strip() else None,
                    "withdrawal_note_id": note.note_event_id, "note_source": note.source}]
    return out
