"""Gateway throughput vs raw async httpx against the same loopback server, in the same run.

Both clients send the same request bodies with the same concurrency to a fake chat-completions
server running in its own process (so it does not share this process's GIL). The gateway's extra
work per call is the price of the record: request and response blobs, an fsync'd event, a flock
and a tail of the log. The two run alternately `--repeat` times against the same server (the
machine's load changes between rounds, so every round pairs one of each) and each round's ratio is
kept; the result is the MEDIAN round (goal: >= 0.9). It runs once per `--server-delays` value: at 0 ms the
ratio is the recording's whole CPU and fsync price against a loopback answer that costs nothing; at
50 ms (a model 20-100x faster than real ones) it is what recording costs a caller.
Run: .venv/bin/python benchmarks/gateway_throughput.py [--n 400] [--repeat 5] [--server-delays 0,0.05]
"""

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402

from peerlake.llm_calls.gateway import Gateway  # noqa: E402
from peerlake.llm_calls.providers.openai_chat import OpenAICompatibleProvider  # noqa: E402
from peerlake.llm_calls.types import LlmRequest  # noqa: E402
from peerlake.warehouse.lake import Lake  # noqa: E402
from peerlake.warehouse.log import EventLog, _WalWriter  # noqa: E402

RESULT_PATH = REPO / "benchmarks" / "results" / "gateway_throughput.json"


def make_requests(n: int, base_url: str) -> list[LlmRequest]:
    schema = {"type": "object", "properties": {"score": {"type": "integer", "enum": [1, 2, 3, 4, 5]}}}
    return [LlmRequest(provider="openai_compatible", model="bench-model", base_url=base_url,
                       messages=({"role": "system", "content": "You review papers."},
                                 {"role": "user", "content": f"Paper {i}: rate it 1-5 as JSON."}),
                       params={"temperature": 0.7, "max_tokens": 64, "seed": i},
                       response_schema=schema, sample_index=i, purpose="benchmark", subject_id=f"paper-{i}")
            for i in range(n)]


def start_server(delay_s: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "tests.doubles.fake_server", str(delay_s)], cwd=REPO,
                            stdout=subprocess.PIPE, text=True)
    return proc, proc.stdout.readline().strip()


def run_gateway(reqs: list[LlmRequest], concurrency: int, lake_root: Path) -> tuple[float, float, Gateway, int]:
    """(seconds for the new calls, seconds for the same batch replayed, gateway, WAL fsyncs of the new calls)."""
    lake = Lake(lake_root)
    gw = Gateway(EventLog(lake), max_concurrency=concurrency,
                 providers={"openai_compatible": OpenAICompatibleProvider()})
    fsyncs = _WalWriter.for_lake(lake).fsyncs
    started = time.perf_counter()
    gw.call_many(reqs, progress=False)
    made = time.perf_counter() - started
    fsyncs = _WalWriter.for_lake(lake).fsyncs - fsyncs
    started = time.perf_counter()
    gw.call_many(reqs, progress=False)
    return made, time.perf_counter() - started, gw, fsyncs


async def _run_httpx(bodies: list[dict], url: str, concurrency: int) -> float:
    gate = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:
        async def one(body: dict) -> None:
            async with gate:
                resp = await client.post(url, json=body, headers={"authorization": "Bearer not-needed"})
                resp.raise_for_status()
                resp.json()["choices"][0]["message"]["content"]

        started = time.perf_counter()
        await asyncio.gather(*(one(b) for b in bodies))
        return time.perf_counter() - started


GOAL = 0.9  # gateway calls/s over raw httpx calls/s, median round


def measure(n: int, concurrency: int, delay_s: float, repeat: int) -> dict:
    """`repeat` rounds of (raw httpx, gateway into a fresh lake) against one server answering after `delay_s`."""
    rounds = []
    server, base = start_server(delay_s)
    try:
        base_url = f"{base}/v1"
        reqs = make_requests(n, base_url)
        provider = OpenAICompatibleProvider()
        bodies = [provider.request_body(r) for r in reqs]
        # Warm-up, both sides alike (imports, first connections, the SDK's lazy modules): 16 calls
        # each, the gateway's into a throwaway lake, so the measured N are all new calls.
        asyncio.run(_run_httpx(bodies[:16], f"{base_url}/chat/completions", concurrency))
        with tempfile.TemporaryDirectory(prefix="peerlake-bench-") as tmp:
            os.environ["PEERLAKE_HOME"] = tmp
            run_gateway(make_requests(16, base_url), concurrency, Path(tmp))
        for _ in range(repeat):
            httpx_s = asyncio.run(_run_httpx(bodies, f"{base_url}/chat/completions", concurrency))
            # A fresh lake per round: the same N requests are all new calls again.
            with tempfile.TemporaryDirectory(prefix="peerlake-bench-") as tmp:
                os.environ["PEERLAKE_HOME"] = tmp
                cpu0 = os.times()
                gateway_s, replay_s, gw, wal_fsyncs = run_gateway(reqs, concurrency, Path(tmp))
                cpu1 = os.times()
                assert gw.stats.calls_made == n and gw.stats.replayed == n, gw.stats
            rounds.append({"httpx_s": httpx_s, "gateway_s": gateway_s, "replay_s": replay_s,
                           "wal_fsyncs": wal_fsyncs,
                           # new calls and their replays together: this process's CPU per call
                           "gateway_cpu_ms": 1000 * (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / (2 * n)})
    finally:
        server.terminate()
        server.wait(timeout=10)
    ratios = [r["httpx_s"] / r["gateway_s"] for r in rounds]
    # The median round (both sides of it measured back to back); every round's ratio below.
    mid = sorted(range(len(rounds)), key=lambda i: ratios[i])[(len(rounds) - 1) // 2]
    m = rounds[mid]
    median = statistics.median(ratios)
    return {
        "server_delay_s": delay_s,
        "gateway_over_httpx_median": round(median, 3),
        "goal": GOAL,
        "passes": median >= GOAL,
        "gateway_over_httpx_rounds": [round(r, 3) for r in ratios],
        "httpx_calls_per_s": round(n / m["httpx_s"], 1),
        "gateway_calls_per_s": round(n / m["gateway_s"], 1),
        "gateway_replay_calls_per_s": round(n / m["replay_s"], 1),
        "extra_wall_ms_per_call": round((m["gateway_s"] - m["httpx_s"]) / n * 1000, 2),
        "wal_fsyncs_per_call": round(m["wal_fsyncs"] / n, 3),  # < 1: appends shared fsyncs
        "gateway_cpu_ms_per_call": round(statistics.median(r["gateway_cpu_ms"] for r in rounds), 2),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--server-delays", default="0,0.05",
                    help="comma-separated seconds the fake server waits per request; one measurement each")
    ap.add_argument("--repeat", type=int, default=5, help="rounds of (raw httpx, gateway), alternating")
    args = ap.parse_args()
    delays = [float(d) for d in args.server_delays.split(",") if d.strip()]
    load_before = os.getloadavg()[0]
    runs = [measure(args.n, args.concurrency, d, args.repeat) for d in delays]
    result = {
        "benchmark": "gateway_throughput",
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "n_calls": args.n,
        "concurrency": args.concurrency,
        "repeat": args.repeat,
        "by_server_delay": runs,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                    "load_avg_1m_at_start": round(load_before, 2),
                    "load_avg_1m_at_end": round(os.getloadavg()[0], 2)},
    }
    RESULT_PATH.parent.mkdir(parents=True, exist_ok=True)
    tmp_path = RESULT_PATH.with_suffix(".json.tmp")
    tmp_path.write_text(json.dumps(result, indent=2) + "\n")
    os.replace(tmp_path, RESULT_PATH)
    for r in runs:
        print(f"server delay {r['server_delay_s'] * 1000:4.0f} ms: raw httpx {r['httpx_calls_per_s']:7.1f} calls/s, "
              f"gateway {r['gateway_calls_per_s']:7.1f} calls/s (replay {r['gateway_replay_calls_per_s']:.0f}); "
              f"median ratio {r['gateway_over_httpx_median']:.3f} over rounds {r['gateway_over_httpx_rounds']} "
              f"-> {'PASS' if r['passes'] else 'FAIL'} (goal >= {GOAL}); "
              f"gateway CPU {r['gateway_cpu_ms_per_call']} ms/call, WAL fsyncs/call {r['wal_fsyncs_per_call']}")
    print(f"load average {result['machine']['load_avg_1m_at_start']} -> {result['machine']['load_avg_1m_at_end']}; "
          f"wrote {RESULT_PATH.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
