"""What prompt caching saves on k = 10 repeated reviews of one paper, at OpenAI and at Anthropic.

The k review requests are built exactly as `reviewing.scoring.review_requests` builds them (the
reviewer_scoring template: system message and manuscript first, then `{{ cache_breakpoint }}`, then
the instructions; one seed per sample) and sent through the real Gateway into a temporary lake, to
the loopback server (tests/doubles/fake_server.py) reporting usage the way each provider does: OpenAI
`prompt_tokens_details.cached_tokens` for a repeated prefix of >= 1,024 tokens in 128-token steps;
Anthropic `cache_creation_input_tokens` on the first use of the prefix marked `cache_control` and
`cache_read_input_tokens` afterwards. Each call's cost is the one the gateway records from that usage
and llm_calls/prices.toml. "Without caching" sends the same requests to a server that counts the
same tokens but reports no cache (every input token at the input rate).

Tokens are counted at 4 characters per token (the fake has no tokenizer) and every answer is
`--output-tokens` long (default 400: a review answer is up to ~550 tokens, prompts/README.md).
Output tokens are never cached, so the total ratio also depends on how long the answers are; the
input-only ratio does not.

    .venv/bin/python benchmarks/prompt_caching.py [--paper PDF ...] [--k 10] [--output-tokens 400]
"""

import argparse
import json
import os
import platform
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from peerlake.ingest.demo_corpus import demo_papers  # noqa: E402
from peerlake.ingest.extraction import extract_records  # noqa: E402
from peerlake.llm_calls.cost import load_price_table  # noqa: E402
from peerlake.llm_calls.gateway import Gateway  # noqa: E402
from peerlake.llm_calls.providers.anthropic_messages import AnthropicProvider  # noqa: E402
from peerlake.llm_calls.providers.openai_chat import OpenAIProvider  # noqa: E402
from peerlake.llm_calls.types import LlmRequest  # noqa: E402
from peerlake.prompts import load_template  # noqa: E402
from peerlake.reviewing.scoring import ReviewerConfig  # noqa: E402
from peerlake.warehouse import settings  # noqa: E402
from peerlake.warehouse.fsutil import atomic_write  # noqa: E402
from peerlake.warehouse.lake import Lake  # noqa: E402
from peerlake.warehouse.log import EventLog  # noqa: E402
from tests.doubles.fake_server import FakeLlmServer, Usage  # noqa: E402

RESULT_PATH = REPO / "benchmarks" / "results" / "prompt_caching.json"
# gpt-4.1-mini (the README's example) bills cached input at 0.25x, gpt-5-mini and Claude at 0.1x.
MODELS = [("openai", "gpt-4.1-mini"), ("openai", "gpt-5-mini"), ("anthropic", "claude-sonnet-4-6")]
GOAL = 0.35


def review_requests(pdf: Path, provider: str, model: str, k: int) -> list[LlmRequest]:
    package = extract_records(pdf.read_bytes())
    template = load_template("reviewer_scoring")
    cfg = ReviewerConfig(provider=provider, model=model, template=template.name, samples=k, temperature=0.7,
                         max_output_tokens=700)
    messages = template.render(title=package.title,
                               paper_text=package.review_text(settings.review_max_chars(provider)))
    return [LlmRequest(provider=provider, model=model, messages=tuple(messages), params=cfg.params(i),
                       response_schema=template.output_schema, sample_index=i, prompt_template=template.name,
                       prompt_hash=template.hash, purpose="review", subject_id=pdf.stem,
                       prompt_source=template.source) for i in range(k)]


def run(reqs: list[LlmRequest], caching: bool, output_tokens: int) -> list:
    """The k calls' llm_call events, from a fresh lake and a fresh server (a cold cache)."""
    with tempfile.TemporaryDirectory(prefix="peerlake-bench-") as tmp, \
            FakeLlmServer(prompt_cache=True, cache_hits=caching, usage=Usage(completion_tokens=output_tokens)) as srv:
        log = EventLog(Lake(Path(tmp) / "lake").ensure())
        providers = {"openai": OpenAIProvider(base_url=srv.openai_base_url),
                     "anthropic": AnthropicProvider(base_url=srv.url)}
        gw = Gateway(log, providers=providers, max_concurrency=1)  # in order: the first call writes the cache
        for req in reqs:
            gw.call(req)
        return sorted(log.iter_events("llm_call"), key=lambda e: e.sample_index)


def measure(pdf: Path, k: int, output_tokens: int) -> dict:
    prices = load_price_table()
    out = {}
    for provider, model in MODELS:
        reqs = review_requests(pdf, provider, model, k)
        with_cache, without = run(reqs, True, output_tokens), run(reqs, False, output_tokens)
        price = prices.lookup(provider, model)
        out_cost = sum(e.output_tokens for e in with_cache) * price.output / 1e6  # the same in both runs
        cost_with, cost_without = sum(e.cost_usd for e in with_cache), sum(e.cost_usd for e in without)
        first, rest = with_cache[0], with_cache[1:]
        out[f"{provider}/{model}"] = {
            "prompt_tokens": first.input_tokens,
            "first_call": {"cached": first.cached_input_tokens or 0, "cache_write": first.cache_write_tokens or 0},
            "later_calls": {"cached": rest[0].cached_input_tokens or 0 if rest else 0,
                            "cache_write": rest[0].cache_write_tokens or 0 if rest else 0},
            "output_tokens_per_call": first.output_tokens,
            "cost_usd_with_caching": round(cost_with, 6),
            "cost_usd_without_caching": round(cost_without, 6),
            "ratio": round(cost_with / cost_without, 4),
            "input_only_ratio": round((cost_with - out_cost) / (cost_without - out_cost), 4),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--paper", type=Path, action="append", help="a PDF (repeatable; default: demo-001)")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--output-tokens", type=int, default=400)
    args = ap.parse_args()
    # Loopback only: never let a real key leave for the fake server.
    os.environ.update({"OPENAI_API_KEY": "sk-bench-loopback", "ANTHROPIC_API_KEY": "sk-ant-bench-loopback"})
    papers = args.paper or [demo_papers()[0]]
    result = {"benchmark": "prompt_caching", "when": datetime.now(UTC).isoformat(timespec="seconds"),
              "machine": f"{platform.machine()} cpus={os.cpu_count()} python={platform.python_version()}",
              "k": args.k, "output_tokens_per_call": args.output_tokens, "chars_per_token": 4,
              "price_table": load_price_table().version, "goal_ratio": GOAL, "papers": {}}
    for pdf in papers:
        rows = measure(pdf, args.k, args.output_tokens)
        result["papers"][pdf.name] = rows
        for name, r in rows.items():
            print(f"{pdf.name:40} {name:28} prompt {r['prompt_tokens']:>6} tok  "
                  f"${r['cost_usd_without_caching']:.5f} -> ${r['cost_usd_with_caching']:.5f}  "
                  f"ratio {r['ratio']:.3f} (input only {r['input_only_ratio']:.3f})")
    atomic_write(RESULT_PATH, (json.dumps(result, indent=1) + "\n").encode())
    print(f"written {RESULT_PATH.relative_to(REPO)}")


if __name__ == "__main__":
    main()
