"""Rank reproducibility: the vectorized exact enumeration vs a naive Python loop, same run.

200 papers × 10 review rounds (synthetic integer scores 1..10), every partition {A, B} of the 10
rounds into disjoint k-blocks for k = 1..5 (45 + 630 + 2,100 + 1,575 + 126 = 4,476 partitions),
every pair of papers within a venue-year. Two layouts: two venue-years of 100 papers
(2·C(100,2) = 9,900 pairs, the issue's count) and one venue-year of 200 (C(200,2) = 19,900 pairs).
The naive loop would take minutes, so it runs on an evenly spread subset of the partitions of each
k; its counts must equal the vectorized counts on the same subset, and its time is extrapolated by
the number of comparisons. Run: .venv/bin/python benchmarks/rank_reproducibility.py
"""

import argparse
import json
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from peerlake.metrics.stats.ranking import _pairs_within, compare_blocks, partitions, rank_reproducibility  # noqa: E402

RESULT_PATH = REPO / "benchmarks" / "results" / "rank_reproducibility.json"


def naive_counts(scores: list[list[float]], a_sets, b_sets, groups: list[str]) -> tuple[int, int, int]:
    """The loop as one would write it first: partitions × paper pairs × block means."""
    same = tie = reverse = 0
    n = len(scores)
    for a, b in zip(a_sets, b_sets, strict=True):
        k = len(a)
        for i in range(n):
            for j in range(i + 1, n):
                if groups[i] != groups[j]:
                    continue
                ai = sum(scores[i][r] for r in a) / k
                aj = sum(scores[j][r] for r in a) / k
                bi = sum(scores[i][r] for r in b) / k
                bj = sum(scores[j][r] for r in b) / k
                if ai == aj or bi == bj:
                    tie += 1
                elif (ai > aj) == (bi > bj):
                    same += 1
                else:
                    reverse += 1
    return same, tie, reverse


def run_layout(scores: np.ndarray, groups: list[str], naive_share: float, repeats: int) -> dict:
    n_rounds = scores.shape[1]
    first, second = _pairs_within(groups, scores.shape[0])
    n_pairs = int(first.size)
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        results = {k: rank_reproducibility(scores, k, groups) for k in range(1, n_rounds // 2 + 1)}
        best = min(best, time.perf_counter() - started)
    total_comparisons = sum(c.n_comparisons for c in results.values())

    naive_seconds = naive_comparisons = 0.0
    as_lists = scores.tolist()
    for k in results:
        a_sets, b_sets = partitions(n_rounds, k)
        step = max(1, round(1 / naive_share))
        a_sub, b_sub = a_sets[::step], b_sets[::step]
        started = time.perf_counter()
        got = naive_counts(as_lists, a_sub.tolist(), b_sub.tolist(), groups)
        naive_seconds += time.perf_counter() - started
        naive_comparisons += len(a_sub) * n_pairs
        check = compare_blocks(scores, a_sub, b_sub, first, second)
        if got != (check.n_same, check.n_tie, check.n_reverse):
            raise SystemExit(f"naive and vectorized counts differ for k={k}: {got} vs {check}")
    naive_full = naive_seconds * total_comparisons / naive_comparisons
    return {
        "n_papers": int(scores.shape[0]), "n_rounds": n_rounds, "n_venue_years": len(set(groups)),
        "n_pairs": n_pairs,
        "per_k": {k: {"n_partitions": c.n_partitions, "pct_same": round(c.pct_same, 3),
                      "pct_tie": round(c.pct_tie, 3), "pct_reverse": round(c.pct_reverse, 3)}
                  for k, c in results.items()},
        "n_comparisons": total_comparisons,
        "vectorized_seconds": round(best, 4),
        "naive_measured_seconds": round(naive_seconds, 3),
        "naive_measured_comparisons": int(naive_comparisons),
        "naive_share_measured": round(naive_comparisons / total_comparisons, 4),
        "naive_seconds_extrapolated": round(naive_full, 2),
        "naive_over_vectorized": round(naive_full / best, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--naive-share", type=float, default=0.02,
                        help="share of each k's partitions the naive loop runs on (then extrapolated)")
    parser.add_argument("--repeats", type=int, default=3, help="vectorized runs; the best counts")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    # Scores around a per-paper quality with review noise, like a real reviewer's.
    quality = rng.normal(5.5, 1.2, size=(args.papers, 1))
    scores = np.clip(np.rint(quality + rng.normal(0, 1.0, size=(args.papers, args.rounds))), 1, 10)
    half = args.papers // 2
    layouts = {
        "two_venue_years": ["ICLR 2017"] * half + ["ICLR 2018"] * (args.papers - half),
        "one_venue_year": ["ICLR 2017"] * args.papers,
    }
    result = {
        "benchmark": "rank_reproducibility",
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform(), "numpy": np.__version__},
        "params": vars(args),
        "layouts": {name: run_layout(scores, groups, args.naive_share, args.repeats)
                    for name, groups in layouts.items()},
    }
    RESULT_PATH.parent.mkdir(parents=True, exist_ok=True)
    tmp = RESULT_PATH.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=1) + "\n")
    os.replace(tmp, RESULT_PATH)
    for name, r in result["layouts"].items():
        print(f"{name}: {r['n_pairs']} pairs × {sum(v['n_partitions'] for v in r['per_k'].values())} "
              f"partitions = {r['n_comparisons']:,} comparisons; vectorized {r['vectorized_seconds']} s; "
              f"naive {r['naive_measured_seconds']} s on {r['naive_share_measured']:.1%} -> "
              f"~{r['naive_seconds_extrapolated']} s; ratio {r['naive_over_vectorized']}×")
    print(f"wrote {RESULT_PATH}")


if __name__ == "__main__":
    main()
