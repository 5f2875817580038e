"""What judging a review costs, per PRISM dimension, measured on a lake's own events.

For each judge: the calls, input and output tokens and model seconds per judged review (the flaw
judge's per-pool calls are shared out over the pool's members), and what those tokens would cost on
hosted judges at the price table's rates. The baseline in the same run is the review itself: the
mean tokens and seconds of one `review` call in the same lake, so "depth costs 0.4 reviews" reads
directly. Tokens are the lake model's own tokenizer's counts; a hosted model's tokenizer differs by
some percent, so the hosted prices are estimates.

Run after `make demo` (or on any lake that has judgments):
    .venv/bin/python benchmarks/judge_cost.py [--lake warehouse/lake]
"""

import argparse
import json
import platform
import sys
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from peerlake.judging.registry import judge_names, judges  # noqa: E402
from peerlake.llm_calls.cost import compute_cost, load_price_table  # noqa: E402
from peerlake.llm_calls.types import Usage  # noqa: E402
from peerlake.warehouse import settings  # noqa: E402
from peerlake.warehouse.lake import Lake  # noqa: E402
from peerlake.warehouse.log import EventLog  # noqa: E402

RESULT_PATH = REPO / "benchmarks" / "results" / "judge_cost.json"
HOSTED = [("openai", "gpt-4.1-mini"), ("openai", "gpt-4.1"), ("anthropic", "claude-haiku-4-5"),
          ("anthropic", "claude-sonnet-4-5")]
JUDGES = judge_names()
PER_REVIEW_STEP = {name: module.REVIEW_STEP for name, module in judges().items()}


def measure(log: EventLog) -> dict:
    calls = {}  # the first ok event per request key: what was paid for
    for ev in log.iter_events("llm_call"):
        if ev.status == "ok" and ev.request_key not in calls:
            calls[ev.request_key] = ev
    reviews = [c for c in calls.values() if c.purpose == "review"]
    if not reviews:
        raise SystemExit("no review calls in this lake: run `make demo` first")
    baseline = {"calls": len(reviews),
                "input_tokens": sum(c.input_tokens or 0 for c in reviews) / len(reviews),
                "output_tokens": sum(c.output_tokens or 0 for c in reviews) / len(reviews),
                "seconds": sum(c.latency_ms for c in reviews) / len(reviews) / 1000}
    judged: dict[str, set] = defaultdict(set)
    for ev in log.iter_events("judgment_recorded"):
        if ev.step == PER_REVIEW_STEP.get(ev.judge):
            # flaws' order subjects are "<pool>|<review key>"; a review in two pools counts twice
            judged[ev.judge].add(ev.subject_key)
    retrievals = sum(1 for ev in log.iter_events("retrieval_call") if ev.status == "ok")
    prices = load_price_table()
    out = {}
    for judge in JUDGES:
        mine = [c for c in calls.values() if c.purpose.startswith(f"judge_{judge}_")]
        n = len(judged[judge])
        if not n:
            continue
        usage = Usage(input_tokens=sum(c.input_tokens or 0 for c in mine),
                      output_tokens=sum(c.output_tokens or 0 for c in mine))
        row = {"reviews_judged": n, "calls": len(mine), "calls_per_review": len(mine) / n,
               "input_tokens_per_review": usage.input_tokens / n, "output_tokens_per_review": usage.output_tokens / n,
               "model_seconds_per_review": sum(c.latency_ms for c in mine) / n / 1000,
               "steps": dict(sorted(_count(c.purpose for c in mine).items()))}
        row["tokens_vs_one_review"] = ((usage.input_tokens + usage.output_tokens) / n
                                       / (baseline["input_tokens"] + baseline["output_tokens"]))
        row["seconds_vs_one_review"] = row["model_seconds_per_review"] / baseline["seconds"]
        row["hosted_usd_per_review"] = {}
        for provider, model in HOSTED:
            price = prices.lookup(provider, model)
            if price is not None:
                row["hosted_usd_per_review"][f"{provider}/{model}"] = compute_cost(usage, price) / n
        if judge == "novelty":
            row["retrieval_calls"] = retrievals
        out[judge] = row
    model = reviews[0].model
    return {"model": model, "baseline_review": baseline, "judges": out, "price_table": prices.version}


def _count(items) -> dict:
    counts: dict = defaultdict(int)
    for it in items:
        counts[it] += 1
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lake", type=Path, default=None, help="the lake (default: $PEERLAKE_HOME or warehouse/lake)")
    args = ap.parse_args()
    log = EventLog(Lake(args.lake or settings.lake_root()))
    result = {"benchmark": "judge_cost", "when": datetime.now(UTC).isoformat(timespec="seconds"),
              "machine": f"{platform.machine()} {platform.processor() or ''} cpus={__import__('os').cpu_count()}",
              **measure(log)}
    base = result["baseline_review"]
    print(f"baseline: one review on {result['model']} = {base['input_tokens']:.0f} in + "
          f"{base['output_tokens']:.0f} out tokens, {base['seconds']:.1f} s")
    print(f"{'judge':18} {'reviews':>7} {'calls/rev':>9} {'in tok':>7} {'out tok':>7} {'s/rev':>6} "
          f"{'× review':>8}  hosted USD per review")
    for judge, r in result["judges"].items():
        hosted = ", ".join(f"{m.split('/')[1]} {v:.5f}" for m, v in r["hosted_usd_per_review"].items())
        print(f"{judge:18} {r['reviews_judged']:>7} {r['calls_per_review']:>9.2f} {r['input_tokens_per_review']:>7.0f} "
              f"{r['output_tokens_per_review']:>7.0f} {r['model_seconds_per_review']:>6.1f} "
              f"{r['tokens_vs_one_review']:>8.2f}  {hosted}")
    RESULT_PATH.parent.mkdir(parents=True, exist_ok=True)
    RESULT_PATH.write_text(json.dumps(result, indent=1) + "\n")
    print(f"written {RESULT_PATH.relative_to(REPO)}")


if __name__ == "__main__":
    main()
