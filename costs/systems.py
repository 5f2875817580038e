"""What a study's reviewer systems will cost before they run: one estimate row per (system run, step), in the
shape of costs.estimate.request_rows, from each system's own plan (ReviewerSystem.plan: the calls one
run makes at most, reflections at their maximum, and the characters each sends) and the log's history.

A system's requests depend on earlier answers, so they cannot be listed exactly as a template reviewer's can:
  calls   = the planned calls of the step (an upper bound: a reflection that stops early makes fewer)
  input   = planned characters × calls × tokens per character of that provider/model (history, else
            estimate.DEFAULT_TOKENS_PER_CHAR)
  output  = mean output tokens of that (provider, model, system, step) in the log's system_step calls, at most
            what a call with the step's max_output_tokens can bill (a reasoning model's headroom and thinking
            budget count) (history: at least estimate.MIN_HISTORY calls), else estimate.DEFAULT_OUTPUT_SHARE
            × max_output_tokens plus the provider's reasoning prior (History.output_for); times calls
  new     = False when the log already holds a system_review for the run's (paper, system config, sample) of
            the same manuscript package: that run replays its whole chain at no cost. (our default)
            A run whose chain broke off before (a failed call, the cost cap) is estimated as wholly new, though
            the calls it did make will replay: the estimate errs high.
Rows carry request_key None, the step's template (None when the plan does not name it) and the system and
step, so `peerlake run STUDY --dry-run` can list them per system and step.
"""

from collections import defaultdict
from collections.abc import Sequence

from peerlake.costs.estimate import (
    DEFAULT_TOKENS_PER_CHAR,
    HISTORY_CALLS,
    History,
    Spread,
    _row,
    default_output,
    spread,
)
from peerlake.llm_calls.types import LlmRequest

ASSET = "system_reviews"
PURPOSE = "system_step"  # reviewing.systems.base.PURPOSE


def step_history(log) -> dict[tuple[str, str, str, str], Spread]:
    """(provider, model, system, step) -> output tokens of the log's answered system calls (newest first)."""
    outputs: dict[tuple, list[int]] = defaultdict(list)
    calls = sorted((e for e in log.iter_events("llm_call")
                    if e.purpose == PURPOSE and e.status == "ok" and e.output_tokens is not None),
                   key=lambda e: e.occurred_at, reverse=True)
    for e in calls:
        outputs[(e.provider, e.model, e.system, e.step)].append(e.output_tokens)
    return {k: s for k, v in outputs.items() if (s := spread(v[:HISTORY_CALLS])) is not None}


def recorded_slots(log) -> set[tuple[str, str, int, str]]:
    """(paper, system config, sample, package) of every system_review in the log, ok or null."""
    return {(e.paper_id, e.system_config, e.sample_index, e.package_sha256) for e in log.iter_events("system_review")}


def step_probe(cfg, step) -> LlmRequest:
    """A step's call as its provider would send it, without messages: what it can bill and may reason."""
    return LlmRequest(provider=cfg.provider, model=step.model or cfg.model, messages=(),
                      params={"max_tokens": step.max_output_tokens}, base_url=cfg.base_url)


def system_rows(runs: Sequence, gateway, hist: History) -> list[dict]:
    """One row per (run, planned step) of reviewing.systems.base.SystemRun runs."""
    if not runs:
        return []
    steps_seen = step_history(gateway.log)
    recorded = recorded_slots(gateway.log)
    plans: dict[tuple[str, str], list] = {}  # one plan per (config, package): samples share it
    rows = []
    for run in runs:
        cfg = run.cfg
        key = (run.system_config, run.package_sha256)
        if key not in plans:
            plans[key] = cfg.impl.plan(run.opts, run.package, cfg.provider)
        new = (run.paper_id, run.system_config, run.sample, run.package_sha256) not in recorded
        tpc = hist.tokens_per_char.get((cfg.provider, cfg.model))
        b_in = "default" if tpc is None else f"history:{tpc.n}"
        tpc = tpc or Spread(*DEFAULT_TOKENS_PER_CHAR)
        for step in plans[key]:
            if step.calls <= 0:
                continue
            seen = steps_seen.get((cfg.provider, cfg.model, cfg.system, step.step))
            probe = step_probe(cfg, step)
            bound, prior = gateway.output_bound(probe), gateway.reasoning_prior(probe)
            if seen is None:
                per_call, b_out = default_output(step.max_output_tokens, bound, prior)
            else:
                per_call, b_out = seen.capped(max(bound, step.max_output_tokens)), f"history:{seen.n}"
            row = _row(ASSET, PURPOSE, step.template, cfg.provider, cfg.model, request_key=None, new=new,
                       calls=step.calls,
                       inp=tpc.scaled(step.input_chars * step.calls), out=per_call.scaled(step.calls),
                       basis=f"plan {step.calls} call(s) × {step.input_chars} chars; input {b_in}; output {b_out}",
                       gateway=gateway)
            rows.append({**row, "system": cfg.system, "system_config": run.system_config, "step": step.step,
                         "paper_id": run.paper_id, "sample_index": run.sample})
    return rows
