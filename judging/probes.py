"""Bias probes of a judge: each a controlled variant of an item the judge already judged, judged like the
original (same judge, same configuration, same repeat) so that the only difference is the one the probe
makes. The dbt mart judge_probes pairs each variant judgment with its original and reports the shift.

  length          every judged review padded with PAD_SENTENCES neutral sentences (NEUTRAL_SENTENCES: no
                  claim, no evidence, no request), each as its own paragraph at a seeded paragraph boundary
                  of a seeded section the judge reads. Depth, novelty and constructiveness: every review;
                  flaws: the system review of each pool (the humans are the pool's fixed reference).
  comment_order   the paragraphs and list items of each section the judge reads shuffled (seeded), so the
                  review's comments come in another order; a review with nothing to reorder is skipped.
                  The same reviews as `length`.
  pool_order      flaws only: the pool shown system review first, humans after (the judge's order puts the
                  humans first, as PRISM's pools do).
  candidate_order flaws only: the pool's valid flaws listed in reverse order to the order step (the step
                  that maps a review onto the pool's flaws).

A variant judgment is an ordinary `judgment_recorded` event of the same judge configuration, its subject
`probe:<probe>:<original subject>` (no study scope lists such a subject, so no quality mart counts it) and
its inputs_json["probe"] = {"name", "original_subject", "seed"}. Its calls are ordinary llm_calls.

Self-preference needs no new call: judge and reviewer of one model family (model_family) are flagged on
the quality rows and the mart compares same-family with other-family rows where both exist.
"""

import random
import re
from collections.abc import Sequence
from dataclasses import replace

from peerlake.judging.base import JudgeContext, Judgment
from peerlake.judging.reviews import JudgedReview

PROBES = ("length", "comment_order", "pool_order", "candidate_order")
# The review-text probes change what any judge reads, so they apply to every judge; a judge module lists
# the other probes it takes in its own PROBES (the flaws judge: pool_order, candidate_order).
REVIEW_TEXT_PROBES = ("length", "comment_order")
PREFIX = "probe:"
PAD_SENTENCES = 3
DEFAULT_SEED = 0
# Sentences that add no argument: no claim about the paper, no evidence, no request of the authors. Fixed
# (their order too): a probe run is reproducible only if what it pads with never changes.
NEUTRAL_SENTENCES = (
    "I have read the submission and the comments below reflect my reading of it.",
    "The points that follow are listed in the order in which they occurred to me.",
    "I have tried to state each point as plainly as I can.",
    "These remarks are offered in the hope that they are useful to the authors.",
    "Where a point is brief, that is not a sign of its importance.",
    "I am happy to clarify any of these remarks if anything is unclear.",
)
# Default tolerance per dimension (each judge's probe_measures and PROBE_TOLERANCE), in the dimension's own
# unit: a shift of one comment/unit/flaw, or of 0.05 on a 0–1 share, is what a reader of a quality table
# would notice.
FALLBACK_TOLERANCE = 0.05

# Self-preference (no variant to run: quality rows compared by family) is a probe for tolerances and the mart;
# its dimensions are the quality metrics (int_quality_review_metrics), most of them shares in [0, 1].
SELF_PREFERENCE = "self_preference"
SELF_PREFERENCE_TOLERANCE = 0.05
TOLERANCE_PROBES = (*PROBES, SELF_PREFERENCE)


def default_tolerances() -> dict[str, float]:
    """Every judge's probe dimensions with their default tolerance (the judge modules' PROBE_TOLERANCE)."""
    from peerlake.judging.registry import judges

    return {dim: tol for module in judges().values() for dim, tol in getattr(module, "PROBE_TOLERANCE", {}).items()}


def applies(probe: str, judge: str) -> bool:
    """Whether `probe` varies what `judge` reads: every review-text probe, and the judge's own PROBES."""
    from peerlake.judging.registry import by_judge

    return probe in REVIEW_TEXT_PROBES or probe in getattr(by_judge()[judge], "PROBES", ())


def tolerance(probe: str, dimension: str, declared: dict[str, float] | None = None) -> float:
    """The tolerance in force: the study's "probe.dimension", else its "probe", else the default."""
    declared = declared or {}
    default = (SELF_PREFERENCE_TOLERANCE if probe == SELF_PREFERENCE
               else default_tolerances().get(dimension, FALLBACK_TOLERANCE))
    return float(declared.get(f"{probe}.{dimension}", declared.get(probe, default)))


_ITEM = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)")


def probe_subject(probe: str, subject_key: str) -> str:
    return f"{PREFIX}{probe}:{subject_key}"


def _rng(seed: int, probe: str, review_key: str) -> random.Random:
    # a string seed is hashed with SHA-512 by random.Random: stable across processes, unlike hash()
    return random.Random(f"{seed}|{probe}|{review_key}")


def pad(review: JudgedReview, judge: str, seed: int = DEFAULT_SEED, n: int = PAD_SENTENCES) -> JudgedReview:
    """The review as `judge` reads it with n neutral sentences (drawn without replacement, seeded by the
    review key) inserted as paragraphs at seeded paragraph boundaries of seeded sections."""
    view = review.for_judge(judge)
    if not view.sections:
        return view
    rng = _rng(seed, "length", review.review_key)
    bodies = [body.split("\n\n") for _, body in view.sections]
    for sentence in rng.sample(NEUTRAL_SENTENCES, min(n, len(NEUTRAL_SENTENCES))):
        paragraphs = bodies[rng.randrange(len(bodies))]
        paragraphs.insert(rng.randrange(len(paragraphs) + 1), sentence)
    return replace(view, sections=tuple((name, "\n\n".join(p)) for (name, _), p in zip(view.sections, bodies,
                                                                                        strict=True)))


def items(body: str) -> list[str]:
    """A section's comments: its paragraphs and list items, in order."""
    return [p.strip() for p in _ITEM.split(body) if p.strip()]


def shuffle_comments(review: JudgedReview, judge: str, seed: int = DEFAULT_SEED) -> JudgedReview | None:
    """The review as `judge` reads it with each section's comments in a seeded other order (joined by blank
    lines where the section had any, else by line breaks); None when no section has two comments to reorder."""
    view = review.for_judge(judge)
    rng = _rng(seed, "comment_order", review.review_key)
    out, changed = [], False
    for name, body in view.sections:
        parts = items(body)
        if len(parts) > 1:
            order = list(range(len(parts)))
            while order == sorted(order):  # a shuffle that leaves the order as it was is no variant
                rng.shuffle(order)
            parts = [parts[i] for i in order]
            changed = True
        # the section's own separator kept (a list stays a list): only the order changes
        out.append((name, ("\n\n" if "\n\n" in body.strip() else "\n").join(parts)))
    return replace(view, sections=tuple(out)) if changed else None


def _variant_reviews(probe: str, module, reviews: Sequence[JudgedReview], seed: int) -> list[JudgedReview]:
    """The reviews the probe's judge reads; for a pooling judge (flaws) only the system reviews change (the
    pool's humans are its reference), for the other judges a review with no variant is left out."""
    judge, pooled = module.JUDGE, getattr(module, "POOLED", False)
    out = []
    for r in reviews:
        if pooled and r.source == "human":
            out.append(r)
            continue
        v = pad(r, judge, seed) if probe == "length" else shuffle_comments(r, judge, seed)
        if v is not None:
            out.append(v)
        elif pooled:
            out.append(r)  # the pool is still judged; its system review is unchanged, so the pair shifts 0
    return out


def run_probe(ctx: JudgeContext, module, probe: str, reviews: Sequence[JudgedReview], seed: int = DEFAULT_SEED,
              **options) -> list[Judgment]:
    """The judge `module` on the probe's variants of `reviews`, every judgment re-keyed and tagged as the
    probe's variant of its original subject (record them with judging.base.Recorder)."""
    if probe not in PROBES:
        raise ValueError(f"unknown probe {probe!r}; known: {', '.join(PROBES)}")
    if not applies(probe, module.JUDGE):
        return []
    if probe in REVIEW_TEXT_PROBES:
        judged = module.judge(ctx, _variant_reviews(probe, module, reviews, seed), **options)
    elif probe == "pool_order":
        judged = module.judge(ctx, reviews, pool_order="system_first", **options)
    else:
        judged = module.judge(ctx, reviews, flaw_listing="reversed", **options)
    for j in judged:
        j.inputs["probe"] = {"name": probe, "original_subject": j.subject_key, "seed": seed}
        j.subject_key = probe_subject(probe, j.subject_key)
    return judged


# ---- what a probe compares: a few numbers per judgment, each as int_quality_* defines it --------------

def _units(units) -> list[dict]:
    return [u for u in (units or []) if isinstance(u, dict)]


def measures(judge: str, step: str, units: list | None, inputs: dict | None) -> dict[str, float]:
    """The probe's dimensions of one ok judgment, as the judge's quality models define them per repeat (its
    module's probe_measures); {} when the (judge, step) has none."""
    from peerlake.judging.registry import by_judge

    hook = getattr(by_judge().get(judge), "probe_measures", None)
    return hook(step, _units(units), inputs or {}) if hook is not None else {}


# ---- self-preference: which model family a model belongs to -------------------------------------------

# First matching prefix of the model's name (after any "vendor/" path) wins; a name no prefix matches has
# no family (null: not computable). A family is the maker's line of models, so a judge and a reviewer of
# one family may share training data and style, which is what self-preference is about.
FAMILIES = (("gpt", "openai"), ("o1", "openai"), ("o3", "openai"), ("o4", "openai"), ("chatgpt", "openai"),
            ("claude", "anthropic"), ("gemini", "google"), ("gemma", "google"), ("qwen", "qwen"),
            ("llama", "meta-llama"), ("meta-llama", "meta-llama"), ("mistral", "mistral"),
            ("mixtral", "mistral"), ("deepseek", "deepseek"), ("mimo", "xiaomi-mimo"), ("phi", "microsoft-phi"),
            ("grok", "xai"), ("glm", "zhipu-glm"), ("kimi", "moonshot-kimi"))


def model_family(model: str | None) -> str | None:
    """The family of a model name ('qwen2.5-1.5b-instruct-q4_k_m.gguf' → 'qwen'), or None when unknown."""
    if not isinstance(model, str) or not model.strip():  # a missing model (None, or NaN from a data frame)
        return None
    name = model.strip().lower().rsplit("/", 1)[-1]
    for prefix, family in FAMILIES:
        if name.startswith(prefix):
            return family
    return None
