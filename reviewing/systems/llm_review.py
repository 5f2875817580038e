"""LLM-Review: the "LLM scientific feedback" pipeline (Liang et al., 2024; Weixin-Liang/LLM-scientific-
feedback main.py @1a8303b), one call that drafts a four-part review outline. It gives no score.

What it reads, as the original: the first `max_pages` = 10 PDF pages; the abstract, the figure and
table captions and the main text, each in a ``` fence under "Abstract:", "Figures/Tables Captions:"
and "Main Content:", concatenated and cut to `max_input_tokens` = 6,500 tokens of the target model's
tokenizer, a closing fence added when the cut removed it (llm_calls/tokens.py: the embedded model's
own llama.cpp tokenizer for provider "local"; 4 characters per token for hosted providers, since
tiktoken cannot load its encodings offline; the method is recorded in `extra["tokens_method"]`).
`max_input_tokens = 0` sends the ten pages uncut (the source paper's "LLM-Review + Claude" ablation).

Options (defaults; "ours" where the original is silent):
    max_pages         10     pages of the PDF read (the original keeps the first 10 PDF pages)
    max_input_tokens  6500   token budget of the fenced paper text; 0 = no truncation
    temperature       1.0    ours: the original sends none, so the OpenAI API's default 1.0
                             applied; sent explicitly so every provider (llama.cpp defaults to 0.2) gets it
    answer_tokens     1200   ours: max_tokens of the answer (the schema's longest valid
                             answer is ~1,300 tokens; typical answers are well below)
    repair_attempts   1      ours: repair turns for an unparseable answer (engine default)

Deviations from the original, each because of peerlake's setting:
- The embedded model's context is 4,096 tokens (settings.local_context_tokens()), prompt and answer
  together, so for provider "local" the budget is capped at what fits: context − answer tokens − the
  prompt around the paper (counted with the same tokenizer) − 64 tokens of chat-template markup
  − 16 tokens of slack (the fence put back after the cut; tokenizing in pieces).
  That is about 2,600 tokens of paper instead of 6,500; `extra` records the budget asked and used.
- The outline is asked for as JSON (schema llmreview_outline: the four parts, 4 reasons to reject
  with 2-3 sub-points each, 4 suggestions) rather than markdown starting "Review outline:", so the
  1.5B model's answer is parseable; `sections` renders it back as the original's four headings.
- The paper text comes from peerlake's anonymized manuscript package (ingest), not the original's
  PDF→XML service: main content = body and appendix records of those pages with section titles,
  without the abstract, captions, tables and references (the original reads the XML's `sec`
  elements, which hold neither the references nor the figures).
- The system message is the original's generic assistant one without its product name.

Normalized: summary = significance and novelty; strengths = reasons to accept; weaknesses = the
reasons to reject, each with its sub-points; questions = () (the outline has none; the suggestions
are in `extra["suggestions"]`); score, score_scale, confidence and recommendation are None.
"""

from collections.abc import Generator
from typing import Any, ClassVar

from peerlake.llm_calls.tokens import count_tokens, method, truncate_tokens
from peerlake.reviewing.systems import manuscript, reviewer_system
from peerlake.reviewing.systems.base import PlannedStep, ReviewerSystem, StepFailed, SystemOptionError, SystemRun
from peerlake.reviewing.systems.normalized import NormalizedReview, as_list

TEMPLATE = "llmreview_outline"
STEP = "outline"
FENCE = "```"
CHAT_MARKUP_TOKENS = 64  # chat-template tokens around two messages and the answer (Qwen: ~5 per message)
# the closing fence put back after a cut, and text tokenized whole vs. in pieces (a few tokens differ)
CUT_SLACK_TOKENS = 16
MAIN_KINDS_SKIPPED = ("caption", "table", "page_marker", "image", "title")
SECTIONS = ("Significance and novelty", "Potential reasons for acceptance", "Potential reasons for rejection",
            "Suggestions for improvement")


def main_content(records) -> str:
    """The main text of the pages read: body and appendix records with their section titles, as the
    original's get_main_content (no abstract, figures, tables or references)."""
    out = []
    for r in records:
        if r.part not in ("body", "appendix") or r.kind in MAIN_KINDS_SKIPPED:
            continue
        if (r.section or "").lower().startswith("abstract"):
            continue
        out.append(f"\nSection Title: {r.text}\n" if r.kind == "heading" else r.text)
    return "\n".join(out).strip()


def fenced_paper(package, max_pages: int) -> tuple[str, tuple[int, ...]]:
    """The three fenced blocks of the original prompt, and the pages they come from."""
    records = manuscript.first_pages(package, max_pages)
    text = (f"Abstract:\n{FENCE}\n{manuscript.abstract(package)}\n{FENCE}\n\n"
            f"Figures/Tables Captions:\n{FENCE}\n{chr(10).join(manuscript.captions(records))}\n{FENCE}\n\n"
            f"Main Content:\n{FENCE}\n{main_content(records)}\n{FENCE}")
    return text, tuple(sorted({r.page for r in records}))


def _title(package, title: str | None) -> str:
    return title or getattr(package, "title", None) or "Untitled"


@reviewer_system
class LlmReview(ReviewerSystem):
    name = "llm-review"
    listed = 3
    version = 1
    description = "LLM-Review: one four-part review outline of the first 10 pages (6,500 tokens); no score"
    score_scale = None
    defaults: ClassVar[dict[str, Any]] = {"max_pages": 10, "max_input_tokens": 6500, "temperature": 1.0,
                                          "answer_tokens": 1200, "repair_attempts": 1}

    def templates(self, opts: dict[str, Any]) -> list[str]:
        return [TEMPLATE]

    def check(self, opts: dict[str, Any]) -> None:
        if int(opts["max_pages"]) < 1:
            raise SystemOptionError("llm-review: max_pages must be >= 1")
        if int(opts["max_input_tokens"]) < 0:
            raise SystemOptionError("llm-review: max_input_tokens must be >= 0 (0 = no truncation)")
        if int(opts["answer_tokens"]) < 64:
            raise SystemOptionError("llm-review: answer_tokens must be >= 64")
        if not 0.0 <= float(opts["temperature"]) <= 2.0:
            raise SystemOptionError("llm-review: temperature must be in [0, 2]")

    def budget(self, opts: dict[str, Any], provider: str, model: str | None, answer_tokens: int,
               title: str) -> int | None:
        """Tokens of paper text to send (None = uncut). For the embedded model, at most what its
        context holds beside the prompt and the answer."""
        asked = int(opts["max_input_tokens"]) or None
        if provider != "local":
            return asked
        from peerlake.prompts import load_template
        from peerlake.warehouse import settings

        frame = load_template(TEMPLATE).render(title=title, paper="")
        prompt = sum(count_tokens(m["content"], provider, model) for m in frame)
        room = settings.local_context_tokens() - answer_tokens - prompt - CHAT_MARKUP_TOKENS - CUT_SLACK_TOKENS
        return room if asked is None else min(asked, room)

    def prepare(self, opts: dict[str, Any], package, title: str, provider: str, model: str | None,
                answer_tokens: int) -> tuple[str, dict[str, Any]]:
        """The paper block as sent, and what `extra` records about its cut."""
        text, pages = fenced_paper(package, int(opts["max_pages"]))
        budget = self.budget(opts, provider, model, answer_tokens, title)
        info = {"pages_read": list(pages), "tokens_method": method(provider, model),
                "max_input_tokens": int(opts["max_input_tokens"]), "token_budget": budget,
                "paper_tokens": count_tokens(text, provider, model)}
        if budget is not None and budget <= 0:
            raise StepFailed(STEP, f"no room for the paper in the model's context (budget {budget} tokens)")
        cut = text if budget is None else truncate_tokens(text, budget, provider, model)[0]
        info["truncated"] = cut != text
        if info["truncated"] and not cut.endswith(FENCE):
            cut += f"\n{FENCE}"  # as the original: the last fence stays closed
        return cut, info

    def run(self, run: SystemRun) -> Generator:
        opts = run.opts
        answer = min(int(opts["answer_tokens"]), run.cfg.max_output_tokens)
        title = _title(run.package, run.title)
        paper, info = self.prepare(opts, run.package, title, run.cfg.provider, run.cfg.model, answer)
        req = run.request(STEP, TEMPLATE, temperature=float(opts["temperature"]), max_tokens=answer,
                          title=title, paper=paper)
        doc = yield from run.ask(req, parse_outline)
        return normalize(doc, info)

    def plan(self, opts: dict[str, Any], package, provider: str) -> list[PlannedStep]:
        from peerlake.prompts import load_template

        answer = int(opts["answer_tokens"])
        title = _title(package, None)
        paper, _ = self.prepare(opts, package, title, provider, None, answer)
        chars = sum(len(m["content"]) for m in load_template(TEMPLATE).render(title=title, paper=paper))
        return [PlannedStep(STEP, 1, chars, answer, template=TEMPLATE)]


def _reason(item: Any) -> tuple[str, tuple[str, ...]]:
    if isinstance(item, dict):
        return str(item.get("reason") or "").strip(), as_list(item.get("details"))
    return str(item).strip(), ()


def parse_outline(res) -> dict:
    """The outline's JSON: the four parts present, a significance text and at least one reason to
    reject (the counts are the schema's business; a hosted model that gives 3 reasons is kept)."""
    doc = res.json_object()
    if doc is None:
        raise ValueError("cut off at the token limit" if res.finish_reason in ("length", "max_tokens")
                         else "no JSON object")
    missing = [k for k in ("significance_and_novelty", "reasons_to_accept", "reasons_to_reject", "suggestions")
               if k not in doc]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    if not isinstance(doc["significance_and_novelty"], str) or not doc["significance_and_novelty"].strip():
        raise ValueError("significance_and_novelty is empty")
    if not isinstance(doc["reasons_to_reject"], list) or not any(_reason(x)[0] for x in doc["reasons_to_reject"]):
        raise ValueError("no reasons to reject")
    return doc


def normalize(doc: dict, info: dict[str, Any]) -> NormalizedReview:
    accept = as_list(doc["reasons_to_accept"])
    rejects = [r for r in (_reason(x) for x in doc["reasons_to_reject"]) if r[0]]
    suggestions = as_list(doc["suggestions"])
    weaknesses = tuple(reason + "".join(f"\n  - {d}" for d in details) for reason, details in rejects)
    sections = {
        SECTIONS[0]: doc["significance_and_novelty"].strip(),
        SECTIONS[1]: "\n".join(f"- {a}" for a in accept),
        SECTIONS[2]: "\n".join(f"{i}. {w}" for i, w in enumerate(weaknesses, 1)),
        SECTIONS[3]: "\n".join(f"{i}. {s}" for i, s in enumerate(suggestions, 1)),
    }
    extra = {**info, "suggestions": list(suggestions),
             "reject_sub_points": [len(details) for _, details in rejects]}
    return NormalizedReview(summary=doc["significance_and_novelty"].strip(), strengths=accept,
                            weaknesses=weaknesses, questions=(), recommendation=None, score=None,
                            score_scale=None, confidence=None, sections=sections, extra=extra)
