"""MLR, the Multi-Layered Review (the Multi-Layered Review paper), and MLR-Combined (the paper's ablation).

The manuscript is split into a body (at most `max_body_pages` pages, the package's own part labels
deciding where the appendix starts) and an appendix. Steps, in order (each one llm_call, step name
in brackets; no reflection, so every round is 0):

1. [appendix] the appendix agent summarizes the appendix, focusing on experiments and implementation
   details, so the review does not ask for what it answers. No appendix → no call (extra says so).
2. [literature] optional literature agent: searches through `retrieval` (each search a logged,
   replayable `retrieval_call`), then writes a short report from the works found. The queries are
   the title and the abstract's first sentence [ours, the paper does not say: fixed before any model
   output, so a search replays even when a later template changes]; the paper itself is dropped
   from the hits; no hit → no call.
3. [pass1] Keshav's first pass: title, abstract, introduction, conclusion, headings and references
   → an outline (paper type, context, assumptions, contributions, clarity).
4. [pass2] the body, guided by the outline → notes on claims with evidence, weaknesses and gaps;
   with a model that reads images the body's page renders ride on this message (`page_images`).
   [deviation] No web search here: the source paper's pass 2 verifies uncertain claims on the web; the only
   search is the literature agent's, before the review agent starts.
5. [pass3] the final review (Strengths, Weaknesses, Questions, Overall Recommendation, Score on
   the NeurIPS 1-10 scale with its rubric; To-do List with `todo_list`) from the appendix summary,
   the literature report and the selected notes. Selection (ours: the paper does not say): the longest prefix of
   the pass-2 notes, in the model's order, that fits `notes_chars`.

MLR-Combined replaces steps 3-5 with one call [combined] that writes all three passes.

(ours: the paper does not say): temperature 0.7 on every step (independent samples must differ, as the
paper's "MLR (4 reviews)" do; a hosted model's default of 1.0 is rough on the 1.5B local model), the
per-step max_tokens below (DEFAULTS on the local model; HOSTED_STEP_TOKENS on a hosted one, room for
the source paper's ~3.9k output tokens a run), and the character budgets, derived from
settings.review_max_chars(provider) (9,000 local: each step then fits the embedded model's 4,096-token
context; 200,000 hosted). `preset` switches the agents as each of the source paper's experiments did (PRESETS);
`appendix_model` / `literature_model` give an agent its own model (the source paper: Haiku for the appendix).
MLR gives no confidence and no summary: both null.
"""

import dataclasses
from collections.abc import Generator
from typing import Any

from peerlake.reviewing.systems import manuscript, reviewer_system
from peerlake.reviewing.systems.base import (
    CallFailed,  # a failed search, like a failed call, leaves the run unrecorded
    PlannedStep,
    ReviewerSystem,
    StepFailed,
    SystemOptionError,
    SystemRun,
    free_text,
    json_fields,
)
from peerlake.reviewing.systems.normalized import NormalizedReview, as_list
from peerlake.warehouse import settings

SCALE = "neurips_1_10"
OUTLINE_KEYS = ("paper_type", "context", "assumptions", "contributions", "clarity")
FINAL_KEYS = ("strengths", "weaknesses", "questions", "overall_recommendation", "score")
NOTE_KINDS = ("claim", "weakness", "gap")
QUERY_WORDS = 30  # BM25 and Semantic Scholar both do best with a short query
ABSTRACT_WORK_CHARS = 300  # of each retrieved work's abstract shown to the literature agent
_STEP_TOKENS = {"appendix": "appendix_max_tokens", "literature": "literature_max_tokens",
                "pass1": "outline_max_tokens", "pass2": "notes_max_tokens", "pass3": "review_max_tokens",
                "combined": "combined_max_tokens"}

DEFAULTS: dict[str, Any] = {
    "max_body_pages": 10,  # [source: b.1]
    "appendix_agent": True,  # [source: b.5, on for conference submissions; off for the contradiction benchmark]
    "literature_agent": False,  # [source: b.3/b.5, off wherever search could leak the answer]
    "retrieval": "offline",  # offline | semantic_scholar [not in source: the paper used web search]
    "literature_queries": 2,  # title, abstract's first sentence (ours: the paper does not say)
    "retrieval_limit": 5,  # works per query (ours: the paper does not say)
    "todo_list": False,  # [source: the user-study variant]
    "page_images": "auto",  # auto | never [source: Claude got page images and text]
    "image_dpi": 100,  # (ours: the paper does not say)
    "temperature": 0.7,  # (ours: the paper does not say)
    # Character budgets (None: derived from settings.review_max_chars(provider), see `budgets`).
    "first_pass_chars": None,
    "body_chars": None,
    "appendix_chars": None,
    "notes_chars": None,
    # max_tokens per step (ours: the paper does not say); each within the step schema's longest answer.
    "appendix_max_tokens": 600,
    "literature_max_tokens": 500,
    "outline_max_tokens": 500,
    "notes_max_tokens": 800,
    "review_max_tokens": 1000,
    "combined_max_tokens": 1300,
    "repair_attempts": 1,
}

# The step budgets above fit the embedded model's 4,096-token context (they sum to 2,900 for a run). The
# seed's MLR on Claude wrote ~3,913 output tokens per paper, so a long pass-3 review was cut
# there and nulled; a hosted model starts from these instead [not in source: room, not a target].
HOSTED_STEP_TOKENS = {"appendix_max_tokens": 2000, "literature_max_tokens": 2000, "outline_max_tokens": 2000,
                      "notes_max_tokens": 4000, "review_max_tokens": 4000, "combined_max_tokens": 8000}

# Which agents each of the source paper's experiments ran. `preset` sets them; an option the study sets
# itself wins. review_only: contradictions, withdrawals, hidden text (search could leak the answer; the
# appendix agent was off). conference: conference submissions and focus (appendix agent + search: the source paper
# searched the web from pass 2, here the literature agent searches `retrieval`). user_study: every agent and
# the To-do List.
PRESETS: dict[str, dict[str, Any]] = {
    "review_only": {"appendix_agent": False, "literature_agent": False},
    "conference": {"appendix_agent": True, "literature_agent": True},
    "user_study": {"appendix_agent": True, "literature_agent": True, "todo_list": True},
}
# A model per agent (the source paper: the appendix agent on Claude Haiku, the review and literature agents on
# Sonnet): a model name on the system's provider and endpoint; unset = the system's model.
AGENT_MODELS = {"appendix_model": "appendix", "literature_model": "literature"}
# Options in the resolved options only when a study sets them, so configurations that never used them
# keep their identity (and their recorded reviews).
OPTIONAL = ("preset", *AGENT_MODELS)


def agent_model(opts: dict[str, Any], step: str) -> str | None:
    """The step's own model (appendix_model, literature_model), None for the system's."""
    return next((opts[k] for k, s in AGENT_MODELS.items() if s == step and opts.get(k)), None)


def budgets(opts: dict[str, Any], provider: str) -> dict[str, int]:
    """Characters of text per step. R = settings.review_max_chars(provider): 9,000 for the local
    model, whose 4,096-token context holds about 2.7 characters per token of paper once the prompt
    and answer are counted (prompts/README.md). Pass 2 = body (2R/3, ~2,200 tokens) + outline
    (~560) + instructions (~200) + answer (800) ≈ 3,760 tokens; pass 3 = notes (R/3) + appendix
    summary and literature report (R/6 each) + rubric (~500) + answer (1,000) ≈ 3,600."""
    r = settings.review_max_chars(provider)

    def pick(name: str, derived: int) -> int:
        return int(opts[name]) if opts.get(name) is not None else derived

    body = pick("body_chars", r * 2 // 3)
    return {"first_pass": pick("first_pass_chars", r // 2), "body": body,
            "appendix": pick("appendix_chars", r * 2 // 3), "notes": pick("notes_chars", r // 3),
            "works": r // 3, "report": r // 6,
            # Combined: one prompt holds the body and the whole three-pass answer (1,300 tokens).
            "combined": pick("body_chars", r // 3), "combined_report": r // 12}


def first_pass_text(package, title: str, max_chars: int) -> str:
    """What Keshav's first pass reads, within `max_chars`: title, abstract, section headings,
    introduction and conclusion, then the first references (a fifth of the budget at most)."""
    # Appendix headings stay out: the appendix reaches the appendix agent only.
    appendix = {r.section for r in package.records if r.part == "appendix"}
    heads = "; ".join(s for s in package.sections if s not in appendix)
    abstract = manuscript.abstract(package)
    refs = "\n".join(package.references)
    fixed = f"Title: {title}\n\nSection headings: {manuscript.fit(heads, 600)}\n\nAbstract:\n"
    room = max(0, max_chars - len(fixed) - 40)
    abstract = manuscript.fit(abstract, room // 4)
    refs = manuscript.fit(refs, room // 5)
    middle = manuscript.fit(manuscript.sections_named(package, "introduction", "conclusion"),
                            max(0, room - len(abstract) - len(refs)))
    return f"{fixed}{abstract}\n\nIntroduction and conclusion:\n{middle}\n\nReferences:\n{refs}"


def outline_text(outline: dict) -> str:
    def value(k: str) -> str:
        return "; ".join(as_list(outline.get(k))) if k == "contributions" else str(outline.get(k))

    return "\n".join(f"- {k.replace('_', ' ')}: {value(k)}" for k in OUTLINE_KEYS)


def select_notes(notes: list[dict], max_chars: int) -> tuple[list[dict], list[dict]]:
    """The longest prefix of the notes (as pass 2 wrote them) whose rendering fits `max_chars`."""
    used = 0
    for i, note in enumerate(notes):
        used += len(_note_line(note)) + 1
        if used > max_chars:
            return notes[:i], notes[i:]
    return list(notes), []


def _note_line(note: dict) -> str:
    evidence = f" (evidence: {note['evidence']})" if note.get("evidence") else ""
    return f"- [{note['kind']}] {note['point']}{evidence}"


def literature_queries(title: str, abstract: str, n: int) -> list[str]:
    lead = abstract.split(". ")[0] if abstract else ""
    queries = [" ".join(q.split()[:QUERY_WORDS]) for q in (title, lead)]
    return list(dict.fromkeys(q for q in queries if q))[:n]


def _parse_notes(res) -> list[dict]:
    doc = json_fields("notes")(res)
    raw = doc["notes"]
    if not isinstance(raw, list):
        raise ValueError("notes is not a list")
    notes = []
    for item in raw:
        if isinstance(item, dict) and str(item.get("point") or "").strip():
            kind = str(item.get("kind") or "").strip().lower()
            notes.append({"kind": kind if kind in NOTE_KINDS else "claim", "point": str(item["point"]).strip(),
                          "evidence": str(item.get("evidence") or "").strip()})
    if not notes:
        raise ValueError("no note with a point")
    return notes


def _score(doc: dict) -> int:
    value = doc.get("score")
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value) or not 1 <= value <= 10:
        raise ValueError(f"score {value!r} is not an integer 1-10")
    return int(value)


def _final_parser(*keys: str):
    base = json_fields(*keys)

    def parse(res) -> dict:
        doc = base(res)
        doc["score"] = _score(doc)
        return doc

    return parse


_CLIENT: tuple[Any, Any] | None = None  # (log, RetrievalClient): one per lake, it indexes the log's searches once


def _retrieval(log):
    global _CLIENT
    from peerlake.retrieval import RetrievalClient

    if _CLIENT is None or _CLIENT[0] is not log:
        _CLIENT = (log, RetrievalClient(log))
    return _CLIENT[1]


@reviewer_system
class MultiLayeredReview(ReviewerSystem):
    name = "mlr"
    listed = 1
    version = 1
    description = "Multi-Layered Review: appendix agent, optional literature agent, three-pass review agent"
    score_scale = SCALE
    defaults = DEFAULTS
    combined = False

    # ---- configuration ----------------------------------------------------------------------
    def defaults_for(self, provider: str | None) -> dict[str, Any]:
        if provider is None or provider == "local":
            return self.defaults
        return {**self.defaults, **HOSTED_STEP_TOKENS}

    def resolve(self, overrides: dict[str, Any], provider: str | None = None) -> dict[str, Any]:
        """The defaults (per provider), then the preset's agents, then the study's own options."""
        rest = dict(overrides)
        chosen = {k: rest.pop(k) for k in OPTIONAL if k in rest}
        preset = chosen.get("preset")
        if preset is not None and preset not in PRESETS:
            raise SystemOptionError(f"system {self.name!r}: option preset = {preset!r}: one of "
                                    f"{', '.join(PRESETS)}")
        for name in AGENT_MODELS:
            if name in chosen and (not isinstance(chosen[name], str) or not chosen[name].strip()):
                raise SystemOptionError(f"system {self.name!r}: option {name} = {chosen[name]!r}: a model name "
                                        "on the system's provider (leave it unset for the system's model)")
        opts = super().resolve({**PRESETS.get(preset, {}), **rest}, provider=provider)
        return {**opts, **chosen}

    def templates(self, opts: dict[str, Any]) -> list[str]:
        names = ["mlr_appendix"] if opts["appendix_agent"] else []
        names += ["mlr_literature"] if opts["literature_agent"] else []
        todo = "_todo" if opts["todo_list"] else ""
        return names + ([f"mlr_combined{todo}"] if self.combined else ["mlr_outline", "mlr_notes", f"mlr_final{todo}"])

    def check(self, opts: dict[str, Any]) -> None:
        from peerlake.retrieval import BACKENDS

        def bad(name: str, why: str) -> SystemOptionError:
            return SystemOptionError(f"system {self.name!r}: option {name} = {opts[name]!r}: {why}")

        if opts["page_images"] not in ("auto", "never"):
            raise bad("page_images", "use 'auto' or 'never'")
        if opts["retrieval"] not in BACKENDS:
            raise bad("retrieval", f"known backends: {', '.join(BACKENDS)}")
        ranges = {"max_body_pages": (1, 100), "literature_queries": (1, 2), "retrieval_limit": (1, 50),
                  "image_dpi": (18, 600), **dict.fromkeys(_STEP_TOKENS.values(), (64, 32_000)),
                  "repair_attempts": (0, 5)}
        for name, (lo, hi) in ranges.items():
            if not isinstance(opts[name], int) or not lo <= opts[name] <= hi:
                raise bad(name, f"an integer from {lo} to {hi}")
        if not 0.0 <= float(opts["temperature"]) <= 2.0:
            raise bad("temperature", "from 0 to 2")
        for name in ("first_pass_chars", "body_chars", "appendix_chars", "notes_chars"):
            if opts[name] is not None and (isinstance(opts[name], bool) or not isinstance(opts[name], int)
                                           or opts[name] < 200):
                raise bad(name, "an integer of at least 200 characters (or leave it unset)")

    # ---- one run ----------------------------------------------------------------------------
    def run(self, run: SystemRun) -> Generator:
        opts = run.opts
        budget = budgets(opts, run.cfg.provider)
        parts = manuscript.split(run.package, max_pages=opts["max_body_pages"])
        title = run.title or run.package.title or "(untitled)"
        extra: dict[str, Any] = {"body_pages": list(parts.body_pages), "cut_pages": parts.cut_pages}
        summary = yield from self._appendix(run, parts, title, budget, extra)
        report = yield from self._literature(run, title, budget, extra)
        review = yield from self._review(run, parts, title, budget, summary, report, extra)
        return review

    def _request(self, run: SystemRun, step: str, template: str, **variables):
        req = run.request(step, template, temperature=float(run.opts["temperature"]),
                          max_tokens=int(run.opts[_STEP_TOKENS[step]]), **variables)
        model = agent_model(run.opts, step)
        return dataclasses.replace(req, model=model) if model else req

    def _appendix(self, run, parts, title, budget, extra) -> Generator:
        """The appendix summary, or None without a call (agent off, or nothing to summarize)."""
        if not run.opts["appendix_agent"]:
            extra["appendix"] = "appendix agent off"
            return None
        if not parts.appendix.strip():
            extra["appendix"] = "no appendix: appendix agent skipped (no call)"
            return None
        req = self._request(run, "appendix", "mlr_appendix", title=title,
                            appendix_text=manuscript.fit(parts.appendix, budget["appendix"]))
        extra["appendix"] = "summarized"
        summary = yield from run.ask(req, free_text())
        return summary

    def _literature(self, run, title, budget, extra) -> Generator:
        """Searches (logged, replayable), then a report from what they found; None when off or
        nothing was found. A failed search leaves the run unrecorded, like a failed call."""
        opts = run.opts
        if not opts["literature_agent"]:
            return None
        if run.log is None:
            raise StepFailed("literature", "no event log to record the searches in (run it through run_systems)")
        from peerlake.retrieval import RetrievalRequest

        abstract = manuscript.abstract(run.package)
        queries = literature_queries(title, abstract, int(opts["literature_queries"]))
        reqs = [RetrievalRequest(backend=opts["retrieval"], query=q, limit=int(opts["retrieval_limit"]),
                                 purpose="system_literature", subject_id=f"paper:{run.paper_id}", study=run.study)
                for q in queries]
        results = _retrieval(run.log).search_many(reqs, return_exceptions=True)
        for res in results:
            if isinstance(res, BaseException):
                raise CallFailed(res)
        own = {f"lake:{run.paper_id}"}
        works: dict[str, Any] = {}
        for res in results:
            for c in res.candidates:
                if c.candidate_id not in own and c.title.strip().casefold() != title.strip().casefold():
                    works.setdefault(c.candidate_id, c)
        extra["literature"] = {"retrieval": opts["retrieval"], "queries": queries,
                               "retrieval_keys": [r.request_key for r in results], "works": list(works)}
        if not works:
            extra["literature"]["skipped"] = "the searches found no other work: no report (no call)"
            return None
        listed = "\n\n".join(
            f"[{i}] {c.title} ({c.year or 'n.d.'}{', ' + c.venue if c.venue else ''})\n"
            f"{manuscript.fit(c.abstract or '(no abstract)', ABSTRACT_WORK_CHARS)}"
            for i, c in enumerate(works.values(), 1))
        req = self._request(run, "literature", "mlr_literature", title=title,
                            abstract=manuscript.fit(abstract or "(no abstract found)", budget["report"]),
                            works=manuscript.fit(listed, budget["works"]))
        report = yield from run.ask(req, free_text())
        return report

    def _with_images(self, run: SystemRun, req, parts, extra):
        """The request with the body's page renders on its user message, when the model reads images."""
        if run.opts["page_images"] == "never":
            extra["page_images"] = "off"
            return req
        from peerlake.llm_calls.images import accepts_images

        if run.cfg.provider == "local" or not accepts_images(run.cfg.provider, run.cfg.model):
            extra["page_images"] = "text only: the model does not accept images"
            return req
        if run.log is None:
            extra["page_images"] = "text only: no blob store to render pages into"
            return req
        from peerlake.ingest.pages import PageRenderError, page_images

        try:
            images = page_images(run.log.blobs, run.package.pdf_sha256, parts.body_pages,
                                 dpi=int(run.opts["image_dpi"]))
        except PageRenderError as exc:
            extra["page_images"] = f"text only: {exc}"
            return req
        extra["page_images"] = f"{len(images)} body page(s) at {run.opts['image_dpi']} dpi"
        messages = list(req.messages)
        last = max(i for i, m in enumerate(messages) if m["role"] == "user")
        messages[last] = {**messages[last], "images": images}
        return dataclasses.replace(req, messages=tuple(messages))

    def _final_vars(self, title, summary, report, budget_key, budget, extra) -> dict[str, Any]:
        if summary is None:
            summary = ("None: the appendix agent is off." if extra["appendix"] == "appendix agent off"
                       else "None: the paper has no appendix.")
        variables = {"title": title, "appendix_summary": manuscript.fit(summary, budget[budget_key])}
        if report is not None:
            variables["literature_report"] = manuscript.fit(report, budget[budget_key])
        return variables

    def _review(self, run, parts, title, budget, summary, report, extra) -> Generator:
        todo = "_todo" if run.opts["todo_list"] else ""
        outline = yield from run.ask(
            self._request(run, "pass1", "mlr_outline",
                          first_pass=first_pass_text(run.package, title, budget["first_pass"])),
            json_fields(*OUTLINE_KEYS))
        req = self._request(run, "pass2", "mlr_notes", body_text=manuscript.fit(parts.body, budget["body"]),
                            outline=outline_text(outline))
        notes = yield from run.ask(self._with_images(run, req, parts, extra), _parse_notes)
        selected, dropped = select_notes(notes, budget["notes"])
        final = yield from run.ask(
            self._request(run, "pass3", f"mlr_final{todo}",
                          notes="\n".join(_note_line(n) for n in selected) or "(none fit the budget)",
                          **self._final_vars(title, summary, report, "report", budget, extra)),
            _final_parser(*FINAL_KEYS, *(("todo",) if todo else ())))
        notes_out = [{**n, "selected": True} for n in selected] + [{**n, "selected": False} for n in dropped]
        return _normalized(final, outline, notes_out, summary, report, extra, todo=bool(todo))

    def plan(self, opts: dict[str, Any], package, provider: str) -> list[PlannedStep]:
        """The calls of one run at most (repair turns not counted), with each call's prompt size: the
        manuscript text it would send, and `max_tokens * 4` characters for a previous step's answer."""
        from peerlake.prompts import load_template

        budget = budgets(opts, provider)
        parts = manuscript.split(package, max_pages=opts["max_body_pages"])
        title = package.title or "(untitled)"

        def size(template: str, **variables) -> int:
            return sum(len(m["content"]) for m in load_template(template).render(**variables))

        def answer(step: str) -> str:
            return "x" * (int(opts[_STEP_TOKENS[step]]) * 4)

        steps: list[PlannedStep] = []
        todo = "_todo" if opts["todo_list"] else ""
        templates = {"appendix": "mlr_appendix", "literature": "mlr_literature", "pass1": "mlr_outline",
                     "pass2": "mlr_notes", "pass3": f"mlr_final{todo}", "combined": f"mlr_combined{todo}"}

        def add(step: str, chars: int) -> None:
            steps.append(PlannedStep(step, 1, chars, int(opts[_STEP_TOKENS[step]]), template=templates[step],
                                     model=agent_model(opts, step)))

        has_appendix = opts["appendix_agent"] and bool(parts.appendix.strip())
        if has_appendix:
            add("appendix", size("mlr_appendix", title=title,
                                 appendix_text=manuscript.fit(parts.appendix, budget["appendix"])))
        if opts["literature_agent"]:
            add("literature", size("mlr_literature", title=title, works="x" * budget["works"],
                                   abstract=manuscript.fit(manuscript.abstract(package), budget["report"])))
        key = "combined_report" if self.combined else "report"
        summary = manuscript.fit(answer("appendix"), budget[key]) if has_appendix else "None."
        final_vars = {"appendix_summary": summary}
        if opts["literature_agent"]:
            final_vars["literature_report"] = manuscript.fit(answer("literature"), budget[key])
        if self.combined:
            add("combined", size(f"mlr_combined{todo}", body_text=_combined_text(parts, budget), **final_vars))
            return steps
        add("pass1", size("mlr_outline", first_pass=first_pass_text(package, title, budget["first_pass"])))
        add("pass2", size("mlr_notes", body_text=manuscript.fit(parts.body, budget["body"]),
                          outline=answer("pass1")))
        add("pass3", size(f"mlr_final{todo}", title=title, notes=manuscript.fit(answer("pass2"), budget["notes"]),
                          **final_vars))
        return steps


def _combined_text(parts, budget) -> str:
    """The body and, after it, the first references (the first pass reads them too): a fifth of the budget."""
    refs = manuscript.fit(parts.references, budget["combined"] // 5)
    body = manuscript.fit(parts.body, budget["combined"] - len(refs) - 20)
    return f"{body}\n\nReferences:\n{refs}" if refs else body


def _normalized(final: dict, outline: dict | None, notes: list[dict], summary: str | None, report: str | None,
                extra: dict, todo: bool) -> NormalizedReview:
    strengths, weaknesses, questions = (as_list(final.get(k)) for k in ("strengths", "weaknesses", "questions"))
    recommendation = str(final.get("overall_recommendation") or "").strip() or None
    todo_items = as_list(final.get("todo")) if todo else None

    def bullets(items) -> str:
        return "\n".join(f"- {x}" for x in items)

    sections = {"Strengths": bullets(strengths), "Weaknesses": bullets(weaknesses), "Questions": bullets(questions),
                "Overall Recommendation": recommendation or "", "Score": str(final["score"])}
    if todo_items is not None:
        sections["To-do List"] = bullets(todo_items)
    return NormalizedReview(
        summary=None, strengths=strengths, weaknesses=weaknesses, questions=questions, recommendation=recommendation,
        score=float(final["score"]), score_scale=SCALE, confidence=None, sections=sections,
        extra={**extra, "outline": outline, "notes": notes, "appendix_summary": summary,
               "literature_report": report, "todo": list(todo_items) if todo_items is not None else None})


@reviewer_system
class MultiLayeredReviewCombined(MultiLayeredReview):
    """MLR with the review agent's three passes in one prompt (the paper's ablation: about a third of the cost)."""

    name = "mlr-combined"
    listed = 2
    description = "MLR-Combined: appendix and literature agents, then the three passes in one prompt"
    combined = True

    def _review(self, run, parts, title, budget, summary, report, extra) -> Generator:
        todo = "_todo" if run.opts["todo_list"] else ""
        req = self._request(run, "combined", f"mlr_combined{todo}", body_text=_combined_text(parts, budget),
                            **{k: v for k, v in self._final_vars(title, summary, report, "combined_report", budget,
                                                                 extra).items() if k != "title"})
        doc = yield from run.ask(self._with_images(run, req, parts, extra),
                                 _final_parser("outline", "notes", *FINAL_KEYS, *(("todo",) if todo else ())))
        outline = doc["outline"] if isinstance(doc["outline"], dict) else {"text": str(doc["outline"])}
        notes = [{"kind": str(n.get("kind") or "claim"), "point": str(n.get("point") or ""),
                  "evidence": str(n.get("evidence") or ""), "selected": True}
                 for n in (doc["notes"] if isinstance(doc["notes"], list) else []) if isinstance(n, dict)]
        return _normalized(doc, outline, notes, summary, report, extra, todo=bool(todo))
