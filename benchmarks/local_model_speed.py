"""How fast the embedded models read and write on this machine, measured in one run.

For each embedded model (settings.LOCAL_MODELS) and each thread count, llama.cpp reads the same prompt
(the reviewer template over demo-001, as the demo's first review) and writes a fixed number of tokens
with sampling off and no stop, so both models do the same work. Prompt and generation are timed
separately from the two calls `Llama.eval` and `Llama.sample`/`eval` make, not from wall time around a
chat completion, which mixes them. The ratios in the result are what the tests and the README quote:
the small model over the default one (the machinery tests run on the small one, tests/embedded.py) and
2 threads over 1 (what a second core buys).

Run: .venv/bin/python benchmarks/local_model_speed.py [--prompt-tokens 1024] [--gen-tokens 64] [--repeat 2]
"""

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from peerlake.ingest.demo_corpus import demo_papers  # noqa: E402
from peerlake.ingest.manuscripts import extract_records  # noqa: E402
from peerlake.prompts import load_template  # noqa: E402
from peerlake.warehouse import settings  # noqa: E402

RESULT_PATH = REPO / "benchmarks" / "results" / "local_model_speed.json"


def prompt_tokens(llm, n: int) -> list[int]:
    """The demo's first review prompt, by the model's own chat template and tokenizer, cut to n tokens."""
    template = load_template("reviewer_scoring")
    package = extract_records(demo_papers()[0].read_bytes())
    messages = template.render(paper_text=package.review_text(20_000))
    text = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
    tokens = llm.tokenize(text.encode(), add_bos=False, special=True)
    if len(tokens) < n:
        raise SystemExit(f"the prompt is {len(tokens)} tokens, fewer than --prompt-tokens {n}")
    return tokens[:n]


def measure(name: str, threads: int, n_prompt: int, n_gen: int) -> dict:
    from llama_cpp import Llama

    llm = Llama(model_path=str(settings.local_model_path(name)), n_ctx=n_prompt + n_gen + 8,
                n_threads=threads, n_threads_batch=threads, n_batch=512, verbose=False)
    tokens = prompt_tokens(llm, n_prompt)
    llm.reset()
    t0 = time.perf_counter()
    llm.eval(tokens)
    t1 = time.perf_counter()
    for _ in range(n_gen):  # greedy, one token at a time, as generation runs
        token = llm.sample(top_k=1, temp=0.0)
        llm.eval([token])
    t2 = time.perf_counter()
    del llm
    return {"model": name, "threads": threads, "prompt_tok_per_s": n_prompt / (t1 - t0),
            "gen_tok_per_s": n_gen / (t2 - t1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompt-tokens", type=int, default=1024)
    ap.add_argument("--gen-tokens", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=2, help="rounds; each keeps the median per model and threads")
    args = ap.parse_args()
    missing = [n for n in settings.LOCAL_MODELS if not settings.local_model_path(n).is_file()]
    if missing:
        raise SystemExit(f"not installed: {', '.join(missing)}; run `make model`")
    thread_counts = sorted({1, os.cpu_count() or 1})
    rounds = [measure(name, t, args.prompt_tokens, args.gen_tokens)
              for _ in range(args.repeat) for name in settings.LOCAL_MODELS for t in thread_counts]
    rows = []
    for name in settings.LOCAL_MODELS:
        for t in thread_counts:
            mine = [r for r in rounds if r["model"] == name and r["threads"] == t]
            rows.append({"model": name, "threads": t,
                         "prompt_tok_per_s": round(statistics.median(r["prompt_tok_per_s"] for r in mine), 1),
                         "gen_tok_per_s": round(statistics.median(r["gen_tok_per_s"] for r in mine), 1)})
            print(f"{name:42s} {t} thread(s): prompt {rows[-1]['prompt_tok_per_s']:7.1f} tok/s, "
                  f"generation {rows[-1]['gen_tok_per_s']:6.1f} tok/s")

    def row(name, t):
        return next(r for r in rows if r["model"] == name and r["threads"] == t)

    big, small, most = settings.LOCAL_MODEL_NAME, settings.LOCAL_SMALL_MODEL_NAME, thread_counts[-1]
    def ratio(num, den, what):
        return round(row(*num)[what] / row(*den)[what], 2)

    ratios = {
        "small_over_default_prompt_1_thread": ratio((small, 1), (big, 1), "prompt_tok_per_s"),
        "small_over_default_gen_1_thread": ratio((small, 1), (big, 1), "gen_tok_per_s"),
        f"default_{most}_threads_over_1_prompt": ratio((big, most), (big, 1), "prompt_tok_per_s"),
        f"default_{most}_threads_over_1_gen": ratio((big, most), (big, 1), "gen_tok_per_s"),
    }
    for k, v in ratios.items():
        print(f"{k}: {v}")
    cpu_flags = next((line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags")), "")
    result = {"when": datetime.now(UTC).isoformat(timespec="seconds"), "cpus": os.cpu_count(),
              "python": platform.python_version(), "platform": platform.platform(),
              "avx512": " avx512f" in cpu_flags, "prompt_tokens": args.prompt_tokens, "gen_tokens": args.gen_tokens,
              "repeat": args.repeat, "rows": rows, **ratios}
    RESULT_PATH.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=RESULT_PATH.parent, delete=False, suffix=".tmp") as f:
        json.dump(result, f, indent=2)
    os.replace(f.name, RESULT_PATH)
    print(f"wrote {RESULT_PATH.relative_to(REPO)}")


if __name__ == "__main__":
    main()
