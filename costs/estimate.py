"""What a study run will cost before it runs: every call it would make, new or already in the log,
with estimated tokens and cost and an interval, learnt from the log's own history.

Review, decimal-review and probe requests are known exactly (the same functions the assets call
build them), so whether each is already answered is checked against the log (Gateway.answered).
Judge calls depend on earlier answers, so they are estimated per judged review: calls per judged
review per (judge, template) from the judgments and calls in the log.

Tokens, from the log's ok llm_calls (the newest HISTORY_CALLS per model):
  input  = the request's characters × tokens per character of that provider/model;
           a judge call: input tokens of that (model, template) directly
  output = output tokens of that (provider, model, template), at most what the request lets the
           provider bill (its output_bound: a reasoning model's headroom and a thinking budget count,
           since reasoning is billed as output and the history's output tokens include it)
Each as the mean (the estimate) and the 10th–90th percentiles (the interval). With fewer than
MIN_HISTORY calls the stated DEFAULTS are used instead: DEFAULT_OUTPUT_SHARE of the answer budget,
plus, for a model that reasons, the provider's reasoning prior (llm_calls/providers/model_rules.py:
REASONING_PRIOR_TOKENS by reasoning_effort, THINKING_PRIOR_SHARE of a thinking budget); the row's
`basis` says which ("history:N", "default", "default+reasoning prior").
The interval of a total is the sum of the rows' intervals: wide on purpose (it assumes every call is
long, or every call short, at once). Caching discounts and retried attempts are not estimated.
"""

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from peerlake.llm_calls.budget import max_output_tokens, request_chars
from peerlake.llm_calls.cost import price_call
from peerlake.llm_calls.types import LlmRequest, Usage, canonical_json
from peerlake.warehouse.events import RunEstimated, new_event_id

METHOD = "history:v1"
MIN_HISTORY = 3  # fewer calls than this: the defaults below
HISTORY_CALLS = 200  # per provider/model: enough for stable percentiles, cheap to read (one blob each)
# (10th percentile, estimate, 90th percentile) when the log has no history:
DEFAULT_TOKENS_PER_CHAR = (0.20, 0.25, 0.33)  # English prose runs ~4 characters per token
DEFAULT_OUTPUT_SHARE = (0.25, 0.60, 1.00)  # of the request's max_tokens
DEFAULT_JUDGE_CALLS_PER_REVIEW = 1.0  # per judge template, when no judgment of that judge is in the log
DEFAULT_REVIEW_CHARS = 3000  # a review this run has not written yet, as a judge will read it


@dataclass(frozen=True)
class Spread:
    lo: float
    mid: float
    hi: float
    n: int = 0

    def scaled(self, k: float) -> "Spread":
        return Spread(self.lo * k, self.mid * k, self.hi * k, self.n)

    def capped(self, top: float) -> "Spread":
        return Spread(min(self.lo, top), min(self.mid, top), min(self.hi, top), self.n)


def spread(values: Iterable[float]) -> Spread | None:
    """Mean, and the 10th and 90th percentiles (linear interpolation); None below MIN_HISTORY values.
    A long tail can put the mean outside the percentiles: the interval is then widened to hold it."""
    v = np.asarray(list(values), dtype=float)
    if len(v) < MIN_HISTORY:
        return None
    mean = float(v.mean())
    # the history's own quantiles (not a bootstrap interval: metrics.stats.bootstrap holds that one)
    lo, hi = (float(q) for q in np.quantile(v, [0.1, 0.9]))
    return Spread(min(lo, mean), mean, max(hi, mean), len(v))


@dataclass
class History:
    tokens_per_char: dict[tuple[str, str], Spread] = field(default_factory=dict)  # (provider, model)
    output_tokens: dict[tuple[str, str, str | None], Spread] = field(default_factory=dict)  # + template
    input_tokens: dict[tuple[str, str, str | None], Spread] = field(default_factory=dict)
    judge_calls: dict[tuple[str, str], float] = field(default_factory=dict)  # (judge, template) -> per review
    judged: set[tuple[str, str, str, int]] = field(default_factory=set)  # (judge, config, subject, repeat)

    def input_for(self, req: LlmRequest) -> tuple[Spread, str]:
        chars = request_chars(req.messages, req.response_schema)
        tpc = self.tokens_per_char.get((req.provider, req.model))
        if tpc is None:
            return Spread(*DEFAULT_TOKENS_PER_CHAR).scaled(chars), "default"
        return tpc.scaled(chars), f"history:{tpc.n}"

    def output_for(self, provider: str, model: str, template: str | None, max_tokens: int,
                   bound: int | None = None, reasoning: tuple[int, int, int] | None = None) -> tuple[Spread, str]:
        """Output tokens per call: the history's, else the default share of the answer budget `max_tokens`
        plus the `reasoning` prior; never above `bound`, what the request can bill (default max_tokens)."""
        out = self.output_tokens.get((provider, model, template))
        if out is not None:
            return out.capped(max_tokens if bound is None else max(bound, max_tokens)), f"history:{out.n}"
        return default_output(max_tokens, bound, reasoning)


def default_output(max_tokens: int, bound: int | None = None,
                   reasoning: tuple[int, int, int] | None = None) -> tuple[Spread, str]:
    """Output tokens per call without history: DEFAULT_OUTPUT_SHARE of the answer budget, plus the reasoning
    prior of a model that reasons, never above `bound` (what the request can bill; default max_tokens)."""
    top = max_tokens if bound is None else max(bound, max_tokens)
    answer = Spread(*DEFAULT_OUTPUT_SHARE).scaled(max_tokens)
    if not reasoning or not any(reasoning):
        return answer.capped(top), "default"
    lo, mid, hi = reasoning
    return Spread(answer.lo + lo, answer.mid + mid, answer.hi + hi).capped(top), "default+reasoning prior"


def load_history(log) -> History:
    """Token ratios and judge call counts from the log's ok llm_calls and recorded judgments."""
    hist = History()
    calls = sorted((e for e in log.iter_events("llm_call") if e.status == "ok" and e.cost_status != "no_usage"),
                   key=lambda e: e.occurred_at, reverse=True)
    ratios, outputs, inputs = defaultdict(list), defaultdict(list), defaultdict(list)
    for e in calls:
        if e.output_tokens is not None:
            outputs[(e.provider, e.model, e.prompt_template)].append(e.output_tokens)
        if e.input_tokens is not None:
            inputs[(e.provider, e.model, e.prompt_template)].append(e.input_tokens)
        ratio = ratios[(e.provider, e.model)]
        if e.input_tokens and len(ratio) < HISTORY_CALLS:
            chars = _request_chars(log, e.request_sha256)
            if chars:
                ratio.append(e.input_tokens / chars)
    for target, source in ((hist.tokens_per_char, ratios), (hist.output_tokens, outputs),
                           (hist.input_tokens, inputs)):
        for key, values in source.items():
            if (s := spread(values[:HISTORY_CALLS])) is not None:
                target[key] = s
    # Calls per judged review: a judge's ok calls of each template over the reviews it judged. A
    # paper is not a review; a pool (the flaws judge) judged each of its member reviews.
    reviews_judged: dict[str, set] = defaultdict(set)
    for j in log.iter_events("judgment_recorded"):
        hist.judged.add((j.judge, j.judge_config, j.subject_key, j.repeat))
        if j.subject_key.startswith("pool:"):
            for key in _pool_members(j.inputs_json):
                hist.judged.add((j.judge, j.judge_config, key, j.repeat))
                reviews_judged[j.judge].add((j.judge_config, key, j.repeat))
        elif not j.subject_key.startswith("paper:"):
            reviews_judged[j.judge].add((j.judge_config, j.subject_key, j.repeat))
    per_template: dict[tuple[str, str], int] = defaultdict(int)
    for e in calls:
        if e.purpose.startswith("judge_") and e.prompt_template:
            judge = e.purpose.split("_")[1]
            per_template[(judge, e.prompt_template)] += 1
    for (judge, template), n in per_template.items():
        if reviews_judged.get(judge):
            hist.judge_calls[(judge, template)] = n / len(reviews_judged[judge])
    return hist


def _pool_members(inputs_json: str | None) -> list[str]:
    """The review keys a pool judgment covered (judging.flaws records them as inputs.members)."""
    try:
        return [m["review_key"] for m in json.loads(inputs_json or "{}").get("members", [])]
    except (ValueError, TypeError, KeyError, AttributeError):
        return []


def _request_chars(log, sha: str) -> int | None:
    try:
        req = json.loads(log.blobs.get_text(sha))
    except (OSError, ValueError):
        return None  # a missing or unreadable request blob: that call is left out of the ratio
    return request_chars(req.get("messages") or [], req.get("response_schema"))


@dataclass
class Estimate:
    study: str | None
    rows: list[dict]
    method: str = METHOD
    notes: list[str] = field(default_factory=list)

    def totals(self) -> dict:
        return total(self.rows)


def _cost(provider: str, model: str, inp: Spread, out: Spread, *, new: bool, free: bool, table) -> tuple:
    """(estimate, lo, hi) in USD; 0 for a replay or a free model; None for a model without a price."""
    if not new or free:
        return 0.0, 0.0, 0.0
    return tuple(price_call(provider, model, Usage(input_tokens=round(i), output_tokens=round(o)),
                            free=False, table=table)[0]
                 for i, o in ((inp.mid, out.mid), (inp.lo, out.lo), (inp.hi, out.hi)))


def _row(asset: str, purpose: str, template: str | None, provider: str, model: str, *, request_key: str | None,
         new: bool, calls: float, inp: Spread, out: Spread, basis: str, gateway) -> dict:
    cost, lo, hi = _cost(provider, model, inp, out, new=new, free=gateway.is_free(provider), table=gateway.prices)
    return {"request_key": request_key, "asset": asset, "purpose": purpose, "prompt_template": template,
            "provider": provider, "model": model, "new": new, "calls": round(calls, 4),
            "est_input_tokens": round(inp.mid, 1), "est_input_tokens_lo": round(inp.lo, 1),
            "est_input_tokens_hi": round(inp.hi, 1), "est_output_tokens": round(out.mid, 1),
            "est_output_tokens_lo": round(out.lo, 1), "est_output_tokens_hi": round(out.hi, 1),
            "est_cost_usd": _round(cost), "est_cost_lo_usd": _round(lo), "est_cost_hi_usd": _round(hi),
            "basis": basis}


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 9)


def request_rows(asset: str, requests: Iterable[LlmRequest], gateway, hist: History) -> list[dict]:
    """One row per exact request; `new` False when the log already answers it (it will replay)."""
    rows = []
    for req in requests:
        bound = gateway.bind(req)
        inp, b_in = hist.input_for(req)
        out, b_out = hist.output_for(req.provider, req.model, req.prompt_template, max_output_tokens(req),
                                     bound=gateway.output_bound(bound), reasoning=gateway.reasoning_prior(bound))
        rows.append(_row(asset, req.purpose, req.prompt_template, req.provider, req.model,
                         request_key=bound.request_key, new=not gateway.answered(bound), calls=1.0,
                         inp=inp, out=out, basis=f"input {b_in}; output {b_out}", gateway=gateway))
    return rows


@dataclass(frozen=True)
class ToJudge:
    """A review a judge will read: its key and length (a review not written yet: DEFAULT_REVIEW_CHARS)."""

    review_key: str
    chars: int


def judge_rows(judge: str, templates: tuple[str, ...], cfg, config_id: str, reviews: list[ToJudge],
               gateway, hist: History, label: str | None = None) -> list[dict]:
    """Rows per (judge template, new or already judged): calls = reviews × repeats × calls per review.
    `label`: the judge panel member's name, as the rows' `judge_label` (none without a panel, so a
    single judge's rows, and the run_estimated events holding them, are as before panels)."""
    from peerlake.prompts import load_template

    rows = []
    for template in templates:
        t = load_template(template)
        per_review = hist.judge_calls.get((judge, template))
        b_calls = "history" if per_review is not None else "default"
        per_review = DEFAULT_JUDGE_CALLS_PER_REVIEW if per_review is None else per_review
        hist_in = hist.input_tokens.get((cfg.provider, cfg.model, template))
        # A judge's call as its provider sends it (no messages): what it can bill and may reason.
        probe = LlmRequest(provider=cfg.provider, model=cfg.model, messages=(), params=cfg.params(0),
                           base_url=cfg.base_url)
        out, b_out = hist.output_for(cfg.provider, cfg.model, template, cfg.max_output_tokens,
                                     bound=gateway.output_bound(probe), reasoning=gateway.reasoning_prior(probe))
        for new in (True, False):
            todo = [r for r in reviews for rep in range(cfg.repeats)
                    if ((judge, config_id, r.review_key, rep) not in hist.judged) == new]
            if not todo:
                continue
            calls = len(todo) * per_review
            if hist_in is not None:
                inp, b_in = hist_in.scaled(calls), f"history:{hist_in.n}"
            else:  # the review and the template's own text, at the model's (or the default) ratio
                chars = sum(r.chars + len(t.source) for r in todo) * per_review
                tpc = hist.tokens_per_char.get((cfg.provider, cfg.model)) or Spread(*DEFAULT_TOKENS_PER_CHAR)
                inp, b_in = tpc.scaled(chars), "chars" + (f" history:{tpc.n}" if tpc.n else " default")
            # a judge template is named for its call's purpose (judge_<judge>_<step>; judging.base.judge_request)
            row = _row(f"judgments_{judge}", template, template, cfg.provider, cfg.model,
                       request_key=None, new=new, calls=calls, inp=inp, out=out.scaled(calls),
                       basis=f"calls/review {b_calls} {per_review:.3g}; input {b_in}; output {b_out}",
                       gateway=gateway)
            rows.append(row if label is None else {**row, "judge_label": label})
    return rows


GROUP_KEYS = ("asset", "purpose", "prompt_template", "provider", "model")
LABEL = "judge_label"  # a judge panel member's rows: grouped apart, even on one model (two temperatures)


def total(rows: Iterable[dict]) -> dict:
    """Sums over rows; a cost is None (unknown) if any new row of a priced-or-not model is unpriced."""
    rows = list(rows)
    out = {"new_calls": sum(r["calls"] for r in rows if r["new"]),
           "replayed_calls": sum(r["calls"] for r in rows if not r["new"])}
    for k in ("est_input_tokens", "est_input_tokens_lo", "est_input_tokens_hi", "est_output_tokens",
              "est_output_tokens_lo", "est_output_tokens_hi"):
        out[k] = sum(r[k] for r in rows if r["new"])
    for k in ("est_cost_usd", "est_cost_lo_usd", "est_cost_hi_usd"):
        values = [r[k] for r in rows]
        out[k] = None if any(v is None for v in values) else sum(values)
    out["unpriced_calls"] = sum(r["calls"] for r in rows if r["new"] and r["est_cost_usd"] is None)
    return out


def grouped(rows: Iterable[dict]) -> list[dict]:
    """Per asset / purpose / template / provider / model (and judge panel member, where a row has one),
    with their totals, in a stable order."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        groups[(*(r[k] for k in GROUP_KEYS), r.get(LABEL))].append(r)
    out = []
    for key, members in sorted(groups.items(), key=lambda kv: (tuple(map(str, kv[0][:-1])), kv[0][-1] or "")):
        group = dict(zip(GROUP_KEYS, key[:-1], strict=True))
        if key[-1] is not None:
            group[LABEL] = key[-1]
        out.append({**group, **total(members)})
    return out


def run_estimated(est: Estimate, dagster_run_id: str | None) -> RunEstimated:
    t = est.totals()
    return RunEstimated(estimate_id=new_event_id(), study=est.study, dagster_run_id=dagster_run_id,
                        method=est.method, rows_json=canonical_json(est.rows),
                        new_calls=round(t["new_calls"]), replayed_calls=round(t["replayed_calls"]),
                        est_cost_usd=t["est_cost_usd"], est_cost_lo_usd=t["est_cost_lo_usd"],
                        est_cost_hi_usd=t["est_cost_hi_usd"])
