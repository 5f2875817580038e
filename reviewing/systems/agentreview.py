"""AgentReview (Jin et al., 2024; repo Ahren09/AgentReview @1d838f0): the reviewer agents of the
first phase only (initial reviews: no rebuttal, no reviewer-AC discussion, no meta-review).

One step, `review`: each reviewer agent reads the paper and writes a review in the source's format,
all of them at once (one call each, `round` = `member` = the reviewer's index, so a full panel and a
one-reviewer draw of the same paper share calls: the request is the same, it replays).

Parameters and where they come from:
- temperature 0.9, max_tokens 4096: the repo's player backend (role_descriptions.PLAYER_BACKEND).
  Options `temperature`, `max_tokens`; the call asks min(max_tokens, the study's max_output_tokens),
  and for the embedded model at most `local_max_tokens` (1,000) [ours, the paper does not say: the model
  has a 4k-token context that the paper and the answer share].
- 3 reviewers, each a persona from commitment (responsible / irresponsible), intention (benign /
  malicious), knowledgeability (knowledgeable / unknowledgeable): the repo's reviewer attributes;
  an attribute left out is the repo's BASELINE (no biography line for it). Option `personas`: one
  entry per reviewer, a name made of those words ("benign knowledgeable responsible", "malicious",
  "baseline") or a dict {"commitment", "intention", "knowledgeability"} (values or null). Default:
  all three benign, knowledgeable and responsible: the source paper's "benign" reviewers [the source paper does not
  say which attributes; the repo's benign_Rx1 makes ONE reviewer benign (intention only) and two
  baseline: personas = ["benign", "baseline", "baseline"]].
- The review format (overall rating first, significance and novelty, 4 reasons for acceptance, 4
  reasons for rejection each with >= 2 sub-points, 4 suggestions), the rubric with anchors
  10/8/6/5/3/1, "most papers get <= 5 before the rebuttal" and "do not assign >= 7 unless
  exceptional": role_descriptions.py, reworded in prompts/templates/agentreview_reviewer.j2. The
  source asks for free text; here it is JSON in the same order (schema agentreview_review)
  [not in source: the answer must be machine-readable, and the embedded model needs a grammar].
- The paper: the repo sends the PDF's text cut at 16,384 words (args.max_num_words): option
  `max_words`. Text = the anonymized package text (body, references, appendix outline), also cut at
  `paper_chars` characters: default the provider's review budget (settings.review_max_chars), for
  the embedded model at most 4,000 [ours, the paper does not say: prompt ~850 tokens + paper ~1,100 +
  answer 1,000 + a repair turn's 1,000 stay within 4,096].
- `sample_one` (default false): one reviewer drawn at random per paper, for the focus analysis (the
  seed: strengths and weaknesses of several reviewers cannot be merged). The draw is seeded by the
  paper id and the sample index (`sample_seed` in extra), so every run draws the same reviewer.

The normalized review:
- panel: score = the mean of the reviewers' overall ratings (scale agentreview_1_10); strengths =
  the reasons for acceptance, weaknesses = the reasons for rejection (each with its sub-points),
  questions = the suggestions for improvement, each the union over reviewers in reviewer order
  (exact repeats dropped); summary = the significance-and-novelty texts, "Reviewer N: ..." per line;
  sections = each reviewer's review as text; extra = each reviewer's review, persona and rating.
- sample_one: the drawn reviewer's review as is (score = its rating), extra names the reviewer.
- No recommendation or confidence: AgentReview's reviewers give neither (null, not invented).
"""

import hashlib
import random
import re
from collections.abc import Generator
from typing import Any, ClassVar

from peerlake.reviewing.systems import reviewer_system
from peerlake.reviewing.systems.base import PlannedStep, ReviewerSystem, SystemOptionError, SystemRun
from peerlake.reviewing.systems.normalized import NormalizedReview, as_list

TEMPLATE = "agentreview_reviewer"
STEP = "review"
SCALE = "agentreview_1_10"
LOCAL_PAPER_CHARS = 4000
TRUNCATION_NOTE = "[… truncated …]"

# Attribute -> the words that set it, and each value's biography line (after role_descriptions.py,
# reworded). Lines appear in the source's order: knowledgeability, responsibility, intention.
ATTRIBUTES = {
    "knowledgeability": ("knowledgeable", "unknowledgeable"),
    "commitment": ("responsible", "irresponsible"),
    "intention": ("benign", "malicious"),
}
BIOGRAPHY = {
    "knowledgeable": "Knowledgeability: You are knowledgeable, with a strong background and a PhD in the subject "
                     "areas of this paper, and you have the expertise to scrutinize it and give insightful feedback.",
    "unknowledgeable": "Knowledgeability: You are not knowledgeable and have no strong background in the subject "
                       "areas of this paper.",
    "responsible": "Responsibility: As a responsible reviewer, you write your reviews with great care. You assess "
                   "the paper's technical accuracy, innovation and relevance meticulously, read it thoroughly, "
                   "analyse its methods critically and weigh its contribution to the field.",
    "irresponsible": "Responsibility: As a lazy reviewer, your reviews are superficial and hasty. They may overlook "
                     "critical details, lack depth of analysis, miss novel contributions or give generic feedback "
                     "that does little to improve the paper.",
    "benign": "Intention: As a benign reviewer, you genuinely want to help the authors improve their work. You give "
              "detailed, constructive feedback that both validates sound research and guides the authors in "
              "refining it, and you stay critical of technical flaws.",
    "malicious": "Intention: As a mean reviewer, your style is harsh and overly critical, biased towards the "
                 "negative. You dwell on faults and may overlook the paper's merits; your feedback is discouraging, "
                 "offers little guidance and aims more at rejection than at constructive critique.",
}
DEFAULT_PERSONA = "benign knowledgeable responsible"
FIELDS = ("overall_rating", "significance_and_novelty", "reasons_for_acceptance", "reasons_for_rejection",
          "suggestions_for_improvement")


def persona(spec: Any) -> dict[str, str | None]:
    """A persona option entry as {commitment, intention, knowledgeability} (None = baseline)."""
    out: dict[str, str | None] = dict.fromkeys(ATTRIBUTES)
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - set(ATTRIBUTES))
        if unknown:
            raise SystemOptionError(f"agentreview persona {spec!r}: unknown key(s) {', '.join(unknown)}; "
                                    f"known: {', '.join(ATTRIBUTES)}")
        for attr, value in spec.items():
            if value is not None and value not in ATTRIBUTES[attr]:
                raise SystemOptionError(f"agentreview persona: {attr} = {value!r}, expected one of "
                                        f"{', '.join(ATTRIBUTES[attr])} or null")
            out[attr] = value
        return out
    if not isinstance(spec, str):
        raise SystemOptionError(f"agentreview persona {spec!r}: a name like {DEFAULT_PERSONA!r} or a dict")
    for word in spec.replace(",", " ").lower().split():
        if word == "baseline":
            continue
        attr = next((a for a, values in ATTRIBUTES.items() if word in values), None)
        if attr is None:
            raise SystemOptionError(f"agentreview persona {spec!r}: unknown word {word!r}; use "
                                    f"{', '.join(BIOGRAPHY)} or baseline")
        if out[attr] not in (None, word):
            raise SystemOptionError(f"agentreview persona {spec!r}: both {out[attr]} and {word}")
        out[attr] = word
    return out


def biography(p: dict[str, str | None]) -> list[str]:
    return [BIOGRAPHY[p[attr]] for attr in ATTRIBUTES if p[attr] is not None]


def sample_seed(paper_id: str, sample: int) -> int:
    """The draw's seed: a pure function of paper and sample, so every run draws the same reviewer."""
    return int(hashlib.sha256(f"agentreview:{paper_id}:{sample}".encode()).hexdigest()[:16], 16)


def parse_review(res) -> dict:
    """The review's JSON: every field present and an integer overall rating on 1-10 (counts of
    reasons are the schema's business: a hosted model that gives 3 is kept)."""
    doc = res.json_object()
    if doc is None:
        raise ValueError("cut off at the token limit" if res.finish_reason in ("length", "max_tokens")
                         else "no JSON object")
    missing = [k for k in FIELDS if k not in doc]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    rating = doc["overall_rating"]
    if isinstance(rating, str) and rating.strip().isdigit():
        rating = int(rating.strip())
    if isinstance(rating, float) and rating.is_integer():
        rating = int(rating)
    if isinstance(rating, bool) or not isinstance(rating, int) or not 1 <= rating <= 10:
        raise ValueError(f"overall_rating {doc['overall_rating']!r} is not an integer from 1 to 10")
    if not str(doc["significance_and_novelty"] or "").strip():
        raise ValueError("empty significance_and_novelty")
    return {**doc, "overall_rating": rating}


def _rejections(value: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    out = []
    for item in value if isinstance(value, list) else as_list(value):
        if isinstance(item, dict):
            reason, details = str(item.get("reason") or "").strip(), as_list(item.get("details"))
        else:
            reason, details = str(item).strip(), ()
        if reason or details:
            out.append((reason, details))
    return tuple(out)


def _weakness(reason: str, details: tuple[str, ...]) -> str:
    return f"{reason} ({'; '.join(details)})" if details else reason


def review_text(doc: dict) -> str:
    """One review in the source's text format (what a reader of the repo's logs would see)."""
    lines = [f"Overall rating: {doc['overall_rating']}", "",
             f"Significance and novelty: {str(doc['significance_and_novelty']).strip()}", "",
             "Reasons for acceptance:"]
    lines += [f"{i}. {r}" for i, r in enumerate(as_list(doc["reasons_for_acceptance"]), 1)]
    lines += ["", "Reasons for rejection:"]
    for i, (reason, details) in enumerate(_rejections(doc["reasons_for_rejection"]), 1):
        lines.append(f"{i}. {reason}")
        lines += [f"   - {d}" for d in details]
    lines += ["", "Suggestions for improvement:"]
    lines += [f"{i}. {s}" for i, s in enumerate(as_list(doc["suggestions_for_improvement"]), 1)]
    return "\n".join(lines)


def _union(groups) -> tuple[str, ...]:
    seen, out = set(), []
    for group in groups:
        for item in group:
            if item not in seen:
                seen.add(item)
                out.append(item)
    return tuple(out)


@reviewer_system
class AgentReview(ReviewerSystem):
    name = "agentreview"
    listed = 5
    version = 1
    description = "AgentReview's first phase: persona reviewer agents write initial reviews (rating 1-10)"
    score_scale = SCALE
    defaults: ClassVar[dict[str, Any]] = {
        "personas": (DEFAULT_PERSONA,) * 3,
        "temperature": 0.9,
        "max_tokens": 4096,
        "local_max_tokens": 1000,
        "max_words": 16384,
        "paper_chars": None,  # None: settings.review_max_chars(provider), at most 4,000 for local
        "sample_one": False,
        "repair_attempts": 1,
    }

    def templates(self, opts: dict[str, Any]) -> list[str]:
        return [TEMPLATE]

    def check(self, opts: dict[str, Any]) -> None:
        if not opts["personas"]:
            raise SystemOptionError("agentreview: personas must name at least one reviewer")
        for spec in opts["personas"]:
            persona(spec)
        for key in ("max_tokens", "local_max_tokens", "max_words"):
            if not isinstance(opts[key], int) or opts[key] < 1:
                raise SystemOptionError(f"agentreview: {key} = {opts[key]!r} must be a positive integer")
        if opts["paper_chars"] is not None and (not isinstance(opts["paper_chars"], int) or opts["paper_chars"] < 1):
            raise SystemOptionError(f"agentreview: paper_chars = {opts['paper_chars']!r} must be a positive "
                                    "integer or null")
        if not 0 <= float(opts["temperature"]) <= 2:
            raise SystemOptionError(f"agentreview: temperature {opts['temperature']} outside 0-2")

    # ---- what the reviewers read ---------------------------------------------------------------
    @staticmethod
    def paper_chars(opts: dict[str, Any], provider: str) -> int:
        from peerlake.warehouse import settings

        if opts["paper_chars"] is not None:
            return int(opts["paper_chars"])
        budget = settings.review_max_chars(provider)
        return min(budget, LOCAL_PAPER_CHARS) if provider == "local" else budget

    def paper_text(self, opts: dict[str, Any], package, provider: str) -> str:
        # The package cuts (with its visible note) to the character budget; the source's word limit
        # applies on top (16,384 words is ~100k characters: only hosted runs reach it).
        text = package.review_text(max_chars=self.paper_chars(opts, provider))
        limit = int(opts["max_words"])
        for n, word in enumerate(re.finditer(r"\S+", text), 1):
            if n == limit and word.end() < len(text.rstrip()):
                return f"{text[:word.end()]}\n{TRUNCATION_NOTE}"
        return text

    @staticmethod
    def max_tokens(opts: dict[str, Any], provider: str) -> int:
        tokens = int(opts["max_tokens"])
        return min(tokens, int(opts["local_max_tokens"])) if provider == "local" else tokens

    @staticmethod
    def drawn(opts: dict[str, Any], paper_id: str, sample: int) -> tuple[int, int]:
        """(reviewer index, seed) of the one reviewer `sample_one` draws for this paper and sample."""
        seed = sample_seed(paper_id, sample)
        return random.Random(seed).randrange(len(opts["personas"])), seed

    # ---- the run -------------------------------------------------------------------------------
    def run(self, run: SystemRun) -> Generator:
        opts = run.opts
        personas = [persona(p) for p in opts["personas"]]
        paper = self.paper_text(opts, run.package, run.cfg.provider)
        reviewers = list(range(len(personas)))
        seed = None
        if opts["sample_one"]:
            drawn, seed = self.drawn(opts, run.paper_id, run.sample)
            reviewers = [drawn]
        reqs = [run.request(STEP, TEMPLATE, temperature=float(opts["temperature"]), round=i, member=i,
                            max_tokens=self.max_tokens(opts, run.cfg.provider), paper_text=paper,
                            title=run.title, reviewer=f"Reviewer {i + 1}", persona_lines=biography(personas[i]))
                for i in reviewers]
        docs = yield from run.ask_all(reqs, parse_review, members=reviewers)
        entries = [{"reviewer": i + 1, "persona": personas[i], "rating": doc["overall_rating"], "review": doc}
                   for i, doc in zip(reviewers, docs, strict=True)]
        if seed is not None:
            return self._one(entries[0], seed)
        return self._panel(entries)

    @staticmethod
    def _one(entry: dict, seed: int) -> NormalizedReview:
        doc = entry["review"]
        return NormalizedReview(
            summary=str(doc["significance_and_novelty"]).strip(),
            strengths=as_list(doc["reasons_for_acceptance"]),
            weaknesses=tuple(_weakness(r, d) for r, d in _rejections(doc["reasons_for_rejection"])),
            questions=as_list(doc["suggestions_for_improvement"]),
            score=float(entry["rating"]), score_scale=SCALE,
            sections={"Overall rating": str(entry["rating"]),
                      "Significance and novelty": str(doc["significance_and_novelty"]).strip(),
                      "Reasons for acceptance": "\n".join(as_list(doc["reasons_for_acceptance"])),
                      "Reasons for rejection": "\n".join(
                          _weakness(r, d) for r, d in _rejections(doc["reasons_for_rejection"])),
                      "Suggestions for improvement": "\n".join(as_list(doc["suggestions_for_improvement"]))},
            extra={"sampled_reviewer": entry["reviewer"], "sample_seed": seed, "persona": entry["persona"],
                   "review": doc})

    @staticmethod
    def _panel(entries: list[dict]) -> NormalizedReview:
        docs = [e["review"] for e in entries]
        ratings = [e["rating"] for e in entries]
        return NormalizedReview(
            summary="\n".join(f"Reviewer {e['reviewer']}: {str(e['review']['significance_and_novelty']).strip()}"
                              for e in entries),
            strengths=_union(as_list(d["reasons_for_acceptance"]) for d in docs),
            weaknesses=_union([_weakness(r, det) for r, det in _rejections(d["reasons_for_rejection"])]
                              for d in docs),
            questions=_union(as_list(d["suggestions_for_improvement"]) for d in docs),
            score=sum(ratings) / len(ratings), score_scale=SCALE,
            sections={f"Reviewer {e['reviewer']}": review_text(e["review"]) for e in entries},
            extra={"ratings": ratings, "reviews": entries})

    # ---- the dry-run estimate ------------------------------------------------------------------
    def plan(self, opts: dict[str, Any], package, provider: str) -> list[PlannedStep]:
        from peerlake.prompts import load_template

        paper = self.paper_text(opts, package, provider)
        personas = [persona(p) for p in opts["personas"]]
        t = load_template(TEMPLATE)
        sizes = [sum(len(m["content"]) for m in t.render(paper_text=paper, title=getattr(package, "title", None),
                                                          reviewer=f"Reviewer {i + 1}",
                                                          persona_lines=biography(p)))
                 for i, p in enumerate(personas)]
        calls = 1 if opts["sample_one"] else len(personas)
        # One drawn reviewer: the longest biography, so the estimate is an upper bound.
        return [PlannedStep(STEP, calls, max(sizes), self.max_tokens(opts, provider), template=TEMPLATE)]
