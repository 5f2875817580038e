"""The AI-Scientist reviewer (Lu et al., 2024; SakanaAI/AI-Scientist ai_scientist/perform_review.py,
as launch_scientist.py calls it: 5 reviews, 5 reflections, 1 few-shot example, temperature 0.1).

Steps of one run (each call an llm_call labelled step / round / member):
    review      `ensemble` members in parallel at `temperature_ensemble` (0.75), identical prompts
                told apart by their seed: the NeurIPS review form, one few-shot example review, the paper
    reflection  each member, in parallel, for up to `reflections` rounds at `temperature` (0.1): it
                reconsiders its last review and answers again; a member whose answer contains
                "I am done" (the prompt asks for it when nothing changes) stops; the others go on
    meta        an area chair at `temperature` aggregates the members' final reviews (their Thought
                left out, as the original passes only the review JSON); skipped for one member, as the
                original does for `num_reviews_ensemble = 1`
The meta-review's numeric fields are then replaced by the members' means rounded to integers, as the
original does; the normalized review keeps the exact means: score = mean Overall (neurips_1_10),
confidence = mean Confidence, sub_scores = the means of the seven 1-4 ratings; its text (summary,
strengths, weaknesses, questions, decision) is the meta-review's. `extra` keeps every member's final
review and how many reflection rounds it took.

Options (defaults; "ours" where the original is silent):
    ensemble              5      members (the source paper's A.2; its §4.1 says 4: set 4 to compare)
    few_shot              1      example reviews (0 or 1; peerlake ships one, see below)
    reflections           5      most reflection rounds per member (see the deviations)
    temperature_ensemble  0.75   the members' first reviews (hard-coded in the original)
    temperature           0.1    reflections, the meta-review, and a single member's review (the
                                 original samples a one-review "ensemble" at this temperature)
    form                  "auto" "full" NeurIPS form, or "short" (scales only); auto = short for
                                 provider local [not in source: the full form is ~1,100 tokens of a
                                 4,096-token context]
    reflection_history    "auto" "full" keeps every earlier round in the conversation (the original),
                                 "last" only the latest answer; auto = last for local (ours)
    max_input_tokens      0      paper tokens sent; 0 = the whole paper (the original), cut for local
    answer_tokens         800    ours: max_tokens per call (the schema's longest answer
                                 is ~750 tokens)
    repair_attempts       1      ours: repair turns for an unparseable answer

Deviations from the original (documented in the README too):
- Reflection per member, then the meta-review over the reflected reviews (the issue's "up to 5
  reflection rounds per review"). The original, with an ensemble, writes the meta-review first and
  reflects once on the aggregated review's conversation.
- `reflections` counts reflection calls. The original's num_reflections = 5 counts the first draft
  as round 1 and makes at most 4 reflection calls: set reflections = 4 to match it exactly.
- An unparseable member answer gets a repair turn, then the whole review is null with the reason;
  the original drops the member silently and averages the rest (a review over fewer members than
  configured would be presented as complete). A failed meta-review is null too (the original falls
  back to the first member's review).
- THOUGHT is the JSON's first field ("Thought") so a grammar-constrained model can write it; "I am
  done" is looked for in the whole answer text, as the original does.
- The few-shot example is one short review written for peerlake (a fictional paper's abstract and
  its review), not the original's OpenReview paper and review (~10,000 tokens with the paper's text).
- For provider local the paper is cut (with the embedded model's own tokenizer) to what the 4,096-token
  context holds beside the prompt, `answer_tokens` of answer and, when reflecting, the previous answer
  and the reflection prompt; each member's review in the meta-review prompt is cut to an equal share.
- The prompts are paraphrased from the original (same structure, order and instructions), and the
  reflection prompt's "Round r/R" is filled in (the original never formats its placeholders).
"""

import dataclasses
import json
from collections.abc import Generator
from statistics import fmean
from typing import Any, ClassVar

from peerlake.llm_calls.tokens import count_tokens, method, truncate_tokens
from peerlake.reviewing.systems import reviewer_system
from peerlake.reviewing.systems.base import PlannedStep, ReviewerSystem, StepFailed, SystemOptionError, SystemRun
from peerlake.reviewing.systems.normalized import NormalizedReview, as_list

REVIEW, REFLECTION, META = "aisci_review", "aisci_reflection", "aisci_meta"
DONE = "I am done"
RATINGS = ("Originality", "Quality", "Clarity", "Significance", "Soundness", "Presentation", "Contribution")
LIMITS = {**dict.fromkeys(RATINGS, (1, 4)), "Overall": (1, 10), "Confidence": (1, 5)}
TEXTS = ("Summary", "Strengths", "Weaknesses", "Questions", "Limitations")
LISTS = ("Strengths", "Weaknesses", "Questions", "Limitations")
CHAT_MARKUP_TOKENS = 64  # chat-template tokens around the messages and the answer (Qwen: ~5 per message)
# the truncation note after a cut, and text tokenized whole vs. in pieces (a few tokens differ)
CUT_SLACK_TOKENS = 16
TRUNCATED = "[… truncated …]"


def _int(value: Any, field: str) -> int:
    lo, hi = LIMITS[field]
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"{field} must be an integer {lo}-{hi} (got {value!r})")
    return value


def parse_review(res) -> tuple[dict, str]:
    """A NeurIPS review JSON (ratings in range, decision Accept/Reject) and the answer's text."""
    doc = res.json_object()
    if doc is None:
        raise ValueError("cut off at the token limit" if res.finish_reason in ("length", "max_tokens")
                         else "no JSON object")
    missing = [k for k in (*TEXTS, "Ethical Concerns", *LIMITS, "Decision") if k not in doc]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    if not isinstance(doc["Summary"], str) or not doc["Summary"].strip():
        raise ValueError("Summary is empty")
    out = dict(doc)
    for field in LIMITS:
        out[field] = _int(doc[field], field)
    decision = str(doc["Decision"]).strip().capitalize()
    if decision not in ("Accept", "Reject"):
        raise ValueError(f"Decision must be Accept or Reject (got {doc['Decision']!r})")
    out["Decision"] = decision
    ethics = doc["Ethical Concerns"]
    out["Ethical Concerns"] = ethics if isinstance(ethics, bool) else str(ethics).strip().lower() in ("true", "yes")
    return out, res.text or ""


def _resolve(opts: dict[str, Any], provider: str) -> tuple[str, str]:
    form = opts["form"] if opts["form"] != "auto" else ("short" if provider == "local" else "full")
    history = opts["reflection_history"]
    if history == "auto":
        history = "last" if provider == "local" else "full"
    return form, history


def _tokens(messages, provider: str, model: str | None) -> int:
    return sum(count_tokens(m["content"], provider, model) for m in messages)


@reviewer_system
class AiScientistReviewer(ReviewerSystem):
    name = "ai-scientist"
    listed = 4
    version = 1
    description = "AI-Scientist reviewer: 5-review ensemble (T 0.75), up to 5 reflections and a meta-review (T 0.1)"
    score_scale = "neurips_1_10"
    defaults: ClassVar[dict[str, Any]] = {"ensemble": 5, "few_shot": 1, "reflections": 5,
                                          "temperature_ensemble": 0.75, "temperature": 0.1,
                                          "form": "auto", "reflection_history": "auto", "max_input_tokens": 0,
                                          "answer_tokens": 800, "repair_attempts": 1}

    def templates(self, opts: dict[str, Any]) -> list[str]:
        return ([REVIEW] + ([REFLECTION] if int(opts["reflections"]) > 0 else [])
                + ([META] if int(opts["ensemble"]) > 1 else []))

    def check(self, opts: dict[str, Any]) -> None:
        def bad(why: str) -> SystemOptionError:
            return SystemOptionError(f"ai-scientist: {why}")

        if int(opts["ensemble"]) < 1:
            raise bad("ensemble must be >= 1")
        if int(opts["reflections"]) < 0:
            raise bad("reflections must be >= 0")
        if int(opts["few_shot"]) not in (0, 1):
            raise bad("few_shot must be 0 or 1 (peerlake ships one example review)")
        if opts["form"] not in ("auto", "full", "short"):
            raise bad("form must be auto, full or short")
        if opts["reflection_history"] not in ("auto", "full", "last"):
            raise bad("reflection_history must be auto, full or last")
        if not all(0.0 <= float(opts[k]) <= 2.0 for k in ("temperature", "temperature_ensemble")):
            raise bad("temperatures must be in [0, 2]")
        if int(opts["answer_tokens"]) < 64 or int(opts["max_input_tokens"]) < 0:
            raise bad("answer_tokens must be >= 64 and max_input_tokens >= 0")

    # ---- what is sent ----

    def paper(self, opts: dict[str, Any], package, provider: str, model: str | None,
              answer: int) -> tuple[str, dict[str, Any]]:
        """The paper text as sent (the whole anonymized paper, appendix and references included, as the
        original reads every page) and what `extra` records about its cut."""
        from peerlake.prompts import load_template
        from peerlake.warehouse import settings

        text = package.review_text(max_chars=settings.review_max_chars(provider), include_appendix=True)
        budget = int(opts["max_input_tokens"]) or None
        if provider == "local":
            form, history = _resolve(opts, provider)
            frame = _tokens(load_template(REVIEW).render(form=form, few_shot=int(opts["few_shot"]), paper=""),
                            provider, model)
            rounds = int(opts["reflections"])
            # the longest call: the review prompt, its earlier turns (answer + reflection prompt) and the answer
            turns = 0 if rounds == 0 else (1 if history == "last" else rounds)
            reflect = _tokens(load_template(REFLECTION).render(round_no=rounds, reflections=rounds)[1:],
                              provider, model) if rounds else 0
            room = (settings.local_context_tokens() - CHAT_MARKUP_TOKENS - CUT_SLACK_TOKENS - frame - answer
                    - turns * (answer + reflect))
            budget = room if budget is None else min(budget, room)
        info = {"tokens_method": method(provider, model), "token_budget": budget,
                "paper_tokens": count_tokens(text, provider, model)}
        if budget is not None and budget <= 0:
            raise StepFailed("review", f"no room for the paper in the model's context (budget {budget} tokens)")
        cut = text if budget is None else truncate_tokens(text, budget, provider, model)[0]
        info["truncated"] = cut != text
        return (f"{cut}\n{TRUNCATED}" if info["truncated"] else cut), info

    def meta_reviews(self, finals: list[dict], opts: dict[str, Any], provider: str, model: str | None,
                     answer: int) -> tuple[list[str], int | None]:
        """The members' reviews as the area chair reads them (JSON, Thought left out); for the
        embedded model each cut to an equal share of the context."""
        from peerlake.prompts import load_template
        from peerlake.warehouse import settings

        texts = [json.dumps({k: v for k, v in r.items() if k != "Thought"}, ensure_ascii=False) for r in finals]
        if provider != "local":
            return texts, None
        form, _ = _resolve(opts, provider)
        frame = _tokens(load_template(META).render(form=form, reviewer_count=len(finals), reviews=[]),
                        provider, model)
        headers = 12 * len(finals)  # "Review i/N:" and the fences around each
        share = (settings.local_context_tokens() - CHAT_MARKUP_TOKENS - CUT_SLACK_TOKENS - frame - answer
                 - headers) // len(finals)
        if share <= 0:
            raise StepFailed("meta", f"no room for {len(finals)} reviews in the model's context")
        cut = []
        for t in texts:
            c, _ = truncate_tokens(t, share, provider, model)
            cut.append(t if c == t else f"{c} {TRUNCATED}")
        return cut, share

    # ---- the run ----

    def run(self, run: SystemRun) -> Generator:
        opts, provider, model = run.opts, run.cfg.provider, run.cfg.model
        n, most = int(opts["ensemble"]), int(opts["reflections"])
        answer = min(int(opts["answer_tokens"]), run.cfg.max_output_tokens)
        low = float(opts["temperature"])
        form, history = _resolve(opts, provider)
        paper, info = self.paper(opts, run.package, provider, model, answer)
        members = list(range(n))
        first_temp = float(opts["temperature_ensemble"]) if n > 1 else low
        base = [run.request("review", REVIEW, temperature=first_temp, member=m, max_tokens=answer, form=form,
                            few_shot=int(opts["few_shot"]), paper=paper) for m in members]
        current = yield from run.ask_all(base, parse_review, members=members)  # per member: (review, text)
        turns: list[list[dict]] = [[] for _ in members]  # each member's conversation after the review prompt
        rounds = [0] * n
        said_done = [False] * n
        active = list(members)
        for r in range(1, most + 1):
            if not active:
                break
            reqs = []
            for m in active:
                ask = run.request("reflection", REFLECTION, temperature=low, round=r, member=m, max_tokens=answer,
                                  round_no=r, reflections=most)
                earlier = turns[m] if history == "full" else []
                convo = (*earlier, {"role": "assistant", "content": current[m][1]}, ask.messages[1])
                reqs.append(dataclasses.replace(ask, messages=tuple(base[m].messages) + convo))
            answers = yield from run.ask_all(reqs, parse_review, members=active)
            for m, req, got in zip(active, reqs, answers, strict=True):
                turns[m] = list(req.messages[len(base[m].messages):])
                current[m] = got
                rounds[m] = r
                said_done[m] = DONE in got[1]
            active = [m for m in active if not said_done[m]]
        finals = [current[m][0] for m in members]
        means = {k: fmean(f[k] for f in finals) for k in LIMITS}
        meta_share = None
        if n > 1:
            reviews, meta_share = self.meta_reviews(finals, opts, provider, model, answer)
            req = run.request("meta", META, temperature=low, max_tokens=answer, form=form, reviewer_count=n,
                              reviews=reviews)
            meta, _ = yield from run.ask(req, parse_review)
        else:
            meta = finals[0]
        extra = {**info, "form": form, "reflection_history": history, "ensemble": n, "meta_review": n > 1,
                 "meta_member_tokens": meta_share,
                 "members": [{"member": m, "review": finals[m], "reflection_rounds": rounds[m],
                              "said_done": said_done[m]} for m in members]}
        return normalize(meta, means, extra)

    def plan(self, opts: dict[str, Any], package, provider: str) -> list[PlannedStep]:
        """Reflections at their maximum; a reflection call's characters are the mean over its rounds
        (with the full history, round r carries r earlier answers), so calls x chars is the total."""
        from peerlake.prompts import load_template

        n, most = int(opts["ensemble"]), int(opts["reflections"])
        answer = int(opts["answer_tokens"])
        form, history = _resolve(opts, provider)
        paper, _ = self.paper(opts, package, provider, None, answer)
        review = sum(len(m["content"]) for m in load_template(REVIEW).render(
            form=form, few_shot=int(opts["few_shot"]), paper=paper))
        steps = [PlannedStep("review", n, review, answer, template=REVIEW)]
        if most:
            turn = answer * 4 + len(load_template(REFLECTION).render(round_no=most, reflections=most)[1]["content"])
            mean_turns = 1.0 if history == "last" else (most + 1) / 2  # rounds 1..R carry 1..R turns
            steps.append(PlannedStep("reflection", n * most, int(review + mean_turns * turn), answer,
                                     template=REFLECTION))
        if n > 1:
            frame = sum(len(m["content"]) for m in load_template(META).render(form=form, reviewer_count=n,
                                                                              reviews=[]))
            steps.append(PlannedStep("meta", 1, frame + n * answer * 4, answer, template=META))
        return steps


def normalize(meta: dict, means: dict[str, float], extra: dict[str, Any]) -> NormalizedReview:
    # The meta-review as the original leaves it: its numbers are the members' means rounded to integers.
    final = {**meta, **{k: round(means[k]) for k in LIMITS}}  # round() of a float is an int
    sections = {}
    for key in (*TEXTS, "Ethical Concerns", *LIMITS, "Decision"):
        value = final[key]
        sections[key] = "\n".join(f"- {x}" for x in as_list(value)) if key in LISTS else str(value).strip()
    extra = {**extra, "limitations": list(as_list(final["Limitations"])),
             "ethical_concerns": bool(final["Ethical Concerns"]), "decision": final["Decision"],
             "means": means, "meta_model_scores": {k: meta[k] for k in LIMITS} if extra["meta_review"] else None,
             "meta_thought": meta.get("Thought") if extra["meta_review"] else None}
    return NormalizedReview(summary=str(final["Summary"]).strip(), strengths=as_list(final["Strengths"]),
                            weaknesses=as_list(final["Weaknesses"]), questions=as_list(final["Questions"]),
                            recommendation=final["Decision"], score=means["Overall"], score_scale="neurips_1_10",
                            confidence=means["Confidence"], sub_scores={k.lower(): means[k] for k in RATINGS},
                            sections=sections, extra=extra)
