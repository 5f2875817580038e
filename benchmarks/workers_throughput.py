"""Two Celery workers ÷ one: review throughput of `peerlake run STUDY --executor celery` against a loopback
OpenAI-compatible server that answers after a fixed latency (200 ms by default), in the same run.

For each worker count, a fresh temporary lake, a real redis-server, real `dagster-celery` workers (concurrency
1 each, so a worker is one machine's worth of steps) and the `peerlake` CLI: the same study (the demo papers ×
`--samples` reviews, in units of `--unit-size` requests). Throughput is the review calls made ÷ the span of
the review phase (first review unit started → last one ended, from the Dagster instance); the whole run's wall
time (ingest, plan, collect, CLI start) is reported beside it.
Run: .venv/bin/python benchmarks/workers_throughput.py [--samples 32] [--unit-size 16] [--delay 0.2]
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from peerlake.studies import save_study  # noqa: E402
from peerlake.warehouse import EventLog, Lake  # noqa: E402
from tests.orchestration.celery_cluster import PEERLAKE_BIN, Workers, cluster_env, redis_server  # noqa: E402
from tests.orchestration.conftest import ReviewServer  # noqa: E402

RESULT_PATH = REPO / "benchmarks" / "results" / "workers_throughput.json"
PAPERS = 4  # the demo corpus


def study_text(base_url: str, samples: int) -> str:
    return f"""name = "bench"
[papers]
corpus = "demo"
[[reviewers]]
provider = "openai_compatible"
model = "fake-reviewer"
base_url = "{base_url}"
samples = {samples}
"""


def review_phase(lake_root: Path) -> tuple[float, int, float]:
    """(seconds from the first review unit's start to the last one's end, number of unit steps, their mean
    duration in seconds)."""
    from dagster import DagsterInstance

    with DagsterInstance.from_config(str(lake_root / "dagster")) as instance:
        run = instance.get_runs(limit=1)[0]
        stats = [s for s in instance.get_run_step_stats(run.run_id) if "ai_reviews_unit[" in s.step_key]
    span = max(s.end_time for s in stats) - min(s.start_time for s in stats)
    return span, len(stats), sum(s.end_time - s.start_time for s in stats) / len(stats)


def one(n_workers: int, args, root: Path) -> dict:
    lake_root = root / f"lake-{n_workers}"
    with ReviewServer(delay_s=args.delay) as server, redis_server(root / f"redis-{n_workers}") as broker:
        save_study(EventLog(Lake(lake_root)), "bench", study_text(server.openai_base_url, args.samples))
        env = cluster_env(lake_root, broker, {"PEERLAKE_UNIT_SIZE": str(args.unit_size)})
        workers = Workers(env, root / f"workers-{n_workers}", concurrency=1)
        try:
            for i in range(n_workers):
                workers.start(f"w{i + 1}")
            workers.wait_ready()
            t0 = time.perf_counter()
            run = subprocess.run([PEERLAKE_BIN, "run", "bench", "--executor", "celery", "--no-build"], env=env,
                                 cwd=REPO, capture_output=True, text=True, timeout=1800)
            wall = time.perf_counter() - t0
        finally:
            workers.stop()
        if run.returncode != 0:
            raise SystemExit(f"run with {n_workers} workers failed:\n{run.stdout}\n{run.stderr}")
        calls = server.requests
    span, units, unit_s = review_phase(lake_root)
    return {"workers": n_workers, "review_calls": calls, "review_units": units,
            "review_phase_s": round(span, 3), "review_calls_per_s": round(calls / span, 3),
            "unit_step_mean_s": round(unit_s, 3), "run_wall_s": round(wall, 3),
            "load_average_1m_after": round(os.getloadavg()[0], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=32, help="reviews per paper (4 demo papers)")
    parser.add_argument("--unit-size", type=int, default=16, help="requests per unit step (PEERLAKE_UNIT_SIZE)")
    parser.add_argument("--delay", type=float, default=0.2, help="the loopback server's latency per call, s")
    parser.add_argument("--out", type=Path, default=RESULT_PATH)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="peerlake-workers-") as tmp:
        runs = [one(n, args, Path(tmp)) for n in (1, 2)]
    one_w, two_w = runs
    result = {
        "benchmark": "workers_throughput",
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": f".venv/bin/python benchmarks/workers_throughput.py --samples {args.samples} "
                   f"--unit-size {args.unit_size} --delay {args.delay}",
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "papers": PAPERS, "samples": args.samples, "unit_size": args.unit_size, "server_delay_s": args.delay,
        "gateway_concurrency_per_worker": 2, "worker_concurrency": 1,
        "runs": runs,
        "throughput_ratio_2_over_1": round(two_w["review_calls_per_s"] / one_w["review_calls_per_s"], 3),
        "run_wall_ratio_1_over_2": round(one_w["run_wall_s"] / two_w["run_wall_s"], 3),
        "goal_throughput_ratio": 1.8,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = args.out.with_suffix(".json.tmp")
    tmp_out.write_text(json.dumps(result, indent=2) + "\n")
    tmp_out.replace(args.out)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
