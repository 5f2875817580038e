"""Score prediction (the Multi-Layered Review paper): a predictor reads a review's text with its rating numbers
removed, plus the venue's rating rubric, and answers `{"score": number}` on that venue's scale. The
marts average a review's repeats, then a paper's reviews, and correlate that with the human mean
(int_score_predictions, score_prediction_correlations); the hidden-text marts use it as "judge Δ".

One call per (review, repeat), step `predict`, subject = the review key. Which reviews: every review of
the study's papers whose source is in `sources` — the human reviews give the reference row (the
predictor's ceiling), template and system reviews the systems' rows.

Study table `[score_prediction]` (every key optional):
  judge         sub-table: the predictor's model (provider, model, temperature, max_output_tokens,
                base_url, repeats); the rest from the study's [judging]. Repeats default 1.
  rubrics       {venue = rubric}: a paper's exact venue string (dim_papers.venue) → a built-in rubric
                name (prompts/rubrics/<name>.toml: demo, iclr, iclr_2026, neurips, icml) or a path to a
                rubric file. A venue not listed gets the first built-in rubric whose `venues` pattern
                matches it (ours: the paper does not say).
  default_rubric  the rubric for a venue nothing matches (default none: the review is null `no_rubric`).
  strip         "ratings" (default) | "all_numbers": which numbers are removed from the text
                (judging/review_numbers.py says how) (ours: the paper does not say).
  max_chars     the review text the predictor reads (default settings.judge_max_chars(provider): 6,000
                characters on the local model, 128,000 elsewhere); a longer review is cut.
  sources       which reviews are predicted: ["human", "peerlake", "external"] (default all three).

An answer outside [scale_min, scale_max] is dropped and counted (null `out_of_scale`, dropped
{"out_of_scale": 1}); a score between two anchors (5.5 on ICLR) is kept and flagged `is_anchor`
false — the source's GPT-4.1 may interpolate, and the paper mean interpolates anyway. The rubric's
text enters every request (so a changed rubric is a new request and a new judgment) and its SHA-256
is in the units."""

import re
from collections.abc import Sequence
from dataclasses import dataclass

from peerlake.ingest.package import base_of
from peerlake.judging.base import JudgeContext, Judgment, answer, judge_request, review_inputs
from peerlake.judging.review_numbers import MODES, strip_numbers
from peerlake.judging.reviews import JudgedReview
from peerlake.judging.rubrics import Rubric, RubricError, builtin, resolve
from peerlake.warehouse import EventLog, settings

EXPERIMENT = "score_prediction"
JUDGE = "score_prediction"
ORDER = 4  # its place in judging.registry's lists
# the review's "non-numeric text" (the Multi-Layered Review paper): every section but the ratings, whose
# numbers the predictor must not see (ratings are never a readable section)
SECTIONS = None
STEP = "predict"
TEMPLATES = ("score_predictor",)
PARSER_VERSION = "score_prediction-1"
KEYS = {"judge", "rubrics", "default_rubric", "strip", "max_chars", "sources"}
DEFAULT_REPEATS = 1
SOURCES = ("human", "peerlake", "external")
# {"score": 10} is ~6 tokens; a bound this small ends a runaway number (llama.cpp's grammar allows
# any digit count) as unparseable JSON instead of a minute of digits.
MAX_TOKENS = 24
_YEAR = re.compile(r"(19|20)\d\d")


@dataclass(frozen=True)
class Spec:
    rubrics: tuple[tuple[str, Rubric], ...] = ()  # (exact venue, rubric) the study names
    default_rubric: Rubric | None = None
    strip: str = "ratings"
    max_chars: int | None = None
    sources: tuple[str, ...] = SOURCES

    @classmethod
    def from_table(cls, table: dict) -> "Spec":
        raw = table.get("rubrics", {})
        if not isinstance(raw, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in raw.items()):
            raise ValueError(f"{EXPERIMENT}.rubrics: a table venue = rubric (built-in name or .toml path), "
                             f"got {raw!r}")
        try:
            rubrics = tuple((venue, resolve(ref)) for venue, ref in sorted(raw.items()))
        except RubricError as exc:
            raise ValueError(f"{EXPERIMENT}.rubrics: {exc}") from None
        default = table.get("default_rubric")
        if default is not None and not isinstance(default, str):
            raise ValueError(f"{EXPERIMENT}.default_rubric: a built-in rubric name or a .toml path, got {default!r}")
        try:
            default_rubric = resolve(default) if default is not None else None
        except RubricError as exc:
            raise ValueError(f"{EXPERIMENT}.default_rubric: {exc}") from None
        strip = table.get("strip", "ratings")
        if strip not in MODES:
            raise ValueError(f"{EXPERIMENT}.strip: {strip!r} is not one of {', '.join(MODES)}")
        max_chars = table.get("max_chars")
        if max_chars is not None and (isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 200):
            raise ValueError(f"{EXPERIMENT}.max_chars: an integer of at least 200 characters, got {max_chars!r}")
        sources = table.get("sources", list(SOURCES))
        if (not isinstance(sources, list) or not sources or not all(isinstance(s, str) for s in sources)
                or set(sources) - set(SOURCES)):
            raise ValueError(f"{EXPERIMENT}.sources: a non-empty list of {', '.join(SOURCES)}, got {sources!r}")
        return cls(rubrics=rubrics, default_rubric=default_rubric, strip=strip, max_chars=max_chars,
                   sources=tuple(s for s in SOURCES if s in sources))

    def rubric_for(self, venue: str | None, builtins: Sequence[Rubric]) -> Rubric | None:
        """The study's rubric for this exact venue, else the first built-in whose pattern matches it,
        else default_rubric."""
        for name, rubric in self.rubrics:
            if venue == name:
                return rubric
        return next((r for r in builtins if r.matches(venue)), self.default_rubric)


def paper_venues(log: EventLog) -> dict[str, tuple[str | None, int | None]]:
    """paper id → (venue, year): the newest manuscript's (a variant carries its base's), else the newest
    venue status's (a paper known only from its decision); the year from the venue when not given."""
    latest: dict[str, object] = {}
    for kind in ("paper_status_recorded", "paper_ingested"):  # the log is in order: the newest event comes last
        for ev in log.iter_events(kind):
            if ev.venue or ev.paper_id not in latest:
                latest[ev.paper_id] = ev
    out = {}
    for pid, ev in latest.items():
        year = ev.year
        if year is None and ev.venue and (m := _YEAR.search(ev.venue)):
            year = int(m.group(0))
        out[pid] = (ev.venue, year)
    return out


def judge(ctx: JudgeContext, reviews: Sequence[JudgedReview], spec: Spec) -> list[Judgment]:
    """One prediction per (review of a chosen source, repeat 0..repeats-1); the calls batched."""
    # the Multi-Layered Review paper: the predictor reads the review's "non-numeric text": every section but the ratings
    # (judging/reviews.py JUDGE_SECTIONS), and strip_numbers takes the numbers left in the text
    reviews = [r.for_judge(JUDGE) for r in reviews]
    venues = paper_venues(ctx.log)
    builtins = builtin()
    limit = spec.max_chars or settings.judge_max_chars(ctx.cfg.provider)
    out, todo, reqs, meta = [], [], [], {}
    for r in reviews:
        if r.source not in spec.sources:
            continue
        venue, year = venues.get(r.paper_id, (None, None))
        if venue is None:  # an experiment's variant: its base paper's venue (known from its decision)
            venue, year = venues.get(base_of(r.paper_id), (None, None))
        rubric = spec.rubric_for(venue, builtins)
        text, n_removed = strip_numbers(r.text, spec.strip)
        for repeat in range(ctx.cfg.repeats):
            inputs = {**review_inputs(r), "venue": venue, "year": year, "strip": spec.strip,
                      "n_numbers_removed": n_removed,
                      "rubric": rubric.name if rubric else None, "rubric_sha256": rubric.sha256 if rubric else None}
            j = Judgment(judge=JUDGE, step=STEP, subject_key=r.review_key, paper_id=r.paper_id, repeat=repeat,
                         inputs=inputs)
            out.append(j)
            if not (r.sections and r.text.strip()):
                j.null_reason = "empty_review"  # nothing to read: no call
                continue
            if rubric is None:
                j.null_reason = "no_rubric"  # no scale to predict on: say so rather than guess one
                continue
            judged = text[:limit]
            j.inputs["chars_judged"] = len(judged)
            meta[id(j)] = (rubric, n_removed)
            todo.append(j)
            reqs.append(judge_request(ctx.cfg, JUDGE, STEP, TEMPLATES[0], subject_id=r.review_key, repeat=repeat,
                                      max_tokens=MAX_TOKENS, review_text=judged, venue=venue,
                                      rubric_title=rubric.title, levels=list(rubric.levels)))
    for j, res in zip(todo, ctx.call_many(reqs, "score prediction"), strict=True):
        if isinstance(res, BaseException):  # already an error event; not recorded, so retried next run
            j.failed_call = f"{type(res).__name__}: {res}"
            continue
        j.results.append(res)
        rubric, n_removed = meta[id(j)]
        score = _score(answer(res))
        if score is None:
            j.null_reason = "unparseable:predict"
        elif not rubric.scale_min <= score <= rubric.scale_max:
            j.null_reason = "out_of_scale"
            j.drop("out_of_scale")
            j.inputs["answered_score"] = score  # what was dropped, for the audit trail
        else:
            j.units = [{"predicted_score": score, "rubric": rubric.name, "rubric_sha256": rubric.sha256,
                        "scale_min": rubric.scale_min, "scale_max": rubric.scale_max,
                        "is_anchor": score in rubric.scores, "n_numbers_removed": n_removed}]
    return out


def _score(doc: dict | None) -> float | None:
    """The answer's score as a float; None for a missing, boolean, non-finite or non-numeric one."""
    v = doc.get("score") if isinstance(doc, dict) else None
    if isinstance(v, bool) or not isinstance(v, int | float) or v != v or v in (float("inf"), float("-inf")):
        return None
    return float(v)


def identity_extra(spec: Spec) -> str:
    """What the predictor's identity adds to its template and model: the rubrics it may use (the
    study's and the built-in ones, by hash) and how numbers are stripped, so an edited rubric is another
    judge configuration (studies.experiments mixes it into judge_config)."""
    from peerlake.judging.rubrics import builtin

    named = [f"{venue}={r.sha256}" for venue, r in spec.rubrics]
    default = spec.default_rubric.sha256 if spec.default_rubric is not None else "-"
    shipped = sorted(r.sha256 for r in builtin())
    return f"rubrics:{','.join(named)}|default:{default}|builtin:{','.join(shipped)}|strip:{spec.strip}"
