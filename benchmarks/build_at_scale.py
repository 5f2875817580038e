"""`peerlake build` at scale: the full build over N synthetic `llm_call` review events against a
single DuckDB scan of the same Parquet, as a ratio.

For each --papers size, a temporary lake (never inside the repo) gets papers × configs × rounds
successful review calls (defaults: 1,000 and 10,000 papers × 10 × 10 = 100 k and 1 M), the
matching `paper_ingested` events, three human reviews and a decision per paper. Events go
through the log's own write and seal code: they are serialized with `to_json_line` into
write-ahead files of --chunk events each (one file per chunk, named like the log's own), then
`EventLog.seal()` turns every file into Parquet segments and a manifest, as it does in production.
The build is the real CLI in a subprocess: `.venv/bin/peerlake build` (every dbt model and test,
every Great Expectations gate, the summary and the report page; no model call). Its peak memory is
sampled over the whole process tree (TreeMemory), with the dbt nodes running at the peak, and its time
is split into dbt steps, gate steps, other steps and what runs outside any step.
Run: .venv/bin/python benchmarks/build_at_scale.py [--papers 1000,10000] [--configs 10] [--rounds 10]
"""

import argparse
import functools
import glob
import hashlib
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import duckdb  # noqa: E402
import numpy as np  # noqa: E402
from ulid import ULID  # noqa: E402

from peerlake.ingest.openreview import ICLR2017_SCALE  # noqa: E402
from peerlake.llm_calls.cost import compute_cost, load_price_table  # noqa: E402
from peerlake.llm_calls.types import LlmRequest, Usage  # noqa: E402
from peerlake.prompts import load_template  # noqa: E402
from peerlake.studies import resolution_event  # noqa: E402
from peerlake.warehouse import EventLog, HumanReviewImported, Lake, LlmCall, PaperIngested  # noqa: E402
from peerlake.warehouse.events import PaperStatusRecorded, to_json_line  # noqa: E402

RESULT_PATH = REPO / "benchmarks" / "results" / "build_at_scale.json"
PEAK_GOAL_MB = 4096  # peak memory of the whole build at 1 M llm_call events
T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
# (provider, model, temperature): ten configurations a user might compare, all in the price table.
CONFIGS = [("openai", "gpt-5-mini", 1.0), ("openai", "gpt-4.1-mini", 0.7), ("openai", "gpt-4.1", 0.7),
           ("openai", "gpt-5.1", 1.0), ("openai", "o4-mini", 1.0), ("anthropic", "claude-sonnet-4-5", 0.7),
           ("anthropic", "claude-haiku-4-5", 0.7), ("anthropic", "claude-opus-4-5", 0.7),
           ("openai", "gpt-4.1-mini", 1.0), ("anthropic", "claude-sonnet-4-5", 1.0)]
VENUES = ["ICLR", "NeurIPS", "ICML", "ACL", "EMNLP", "CVPR", "AAAI", "COLT", "UAI", "AISTATS",
          "KDD", "WWW", "SIGIR", "NAACL", "ECCV", "ICCV", "IJCAI", "CoRL", "TMLR", "COLM"]
SUMMARY = ["The paper proposes {m} for {t} and evaluates it on {n} benchmarks.",
           "This work studies {t} through the lens of {m}, with experiments on {n} datasets.",
           "The authors introduce {m}, a method for {t}, and report gains on {n} tasks."]
METHODS = ["a sparse mixture of adapters", "a contrastive pretraining objective", "a learned optimizer",
           "a graph rewiring scheme", "a calibrated ensemble", "a token-pruning heuristic"]
TOPICS = ["long-context retrieval", "few-shot classification", "robust control", "protein design",
          "code generation", "speech recognition", "causal discovery", "federated learning"]
STRENGTHS = ["Clear motivation and well-organized presentation.", "Strong results on the main benchmark.",
             "Ablations isolate the contribution of each component.", "Code and data are released.",
             "The theoretical analysis is sound and easy to follow.", "Broad evaluation across domains.",
             "The method is simple and cheap to implement."]
CONCERNS = ["Baselines are not tuned with the same budget.", "Error bars are missing for most tables.",
            "The improvement over prior work is within noise.", "Related work omits several close methods.",
            "The main theorem relies on a strong assumption.", "Compute cost is not reported.",
            "Evaluation is limited to English datasets.", "Hyperparameter sensitivity is not studied."]
RATIONALE = ["Solid contribution with limited novelty; the empirical case is {q}.",
             "The idea is interesting, but the evidence is {q} and some claims are overstated.",
             "Overall {q} execution; the concerns above would need to be addressed for a strong accept."]
QUALITY = ["weak", "mixed", "reasonable", "convincing", "strong"]


def _configs() -> list[dict]:
    template = load_template("reviewer_scoring")
    out = []
    for provider, model, temp in CONFIGS:
        req = LlmRequest(provider=provider, model=model, messages=({"role": "user", "content": "x"},),
                         params={"temperature": temp, "max_tokens": 700},
                         response_schema=template.output_schema, prompt_template=template.name,
                         prompt_hash=template.hash, purpose="review")
        out.append({"provider": provider, "model": model, "temperature": temp,
                    "template": template.name, "hash": template.hash, "config": req.reviewer_config})
    return out


def _response(rng: np.random.Generator, score: int, confidence: int, kind: float) -> str:
    body = {"summary": SUMMARY[rng.integers(3)].format(m=METHODS[rng.integers(6)], t=TOPICS[rng.integers(8)],
                                                       n=int(rng.integers(2, 9))),
            "strengths": [STRENGTHS[i] for i in rng.choice(7, size=int(rng.integers(2, 5)), replace=False)],
            "concerns": [CONCERNS[i] for i in rng.choice(8, size=int(rng.integers(2, 5)), replace=False)],
            "rationale": RATIONALE[rng.integers(3)].format(q=QUALITY[min(max(score // 2 - 1, 0), 4)]),
            "overall_score": score, "confidence": confidence}
    text = json.dumps(body, ensure_ascii=False)
    if kind < 0.01:  # what small models do: prose instead of JSON (flagged, never a score)
        return f"I would rate this paper around {score} out of 10. {body['rationale']}"
    if kind < 0.02:  # JSON in a code fence (extracted by int_ai_reviews_parsed)
        return f"```json\n{text}\n```"
    return text


def _llm_calls(rng, cfg: dict, ci: int, paper: dict, rounds: int, bias: float, noise: float,
               prices) -> list[LlmCall]:
    price = prices.lookup(cfg["provider"], cfg["model"])
    out = []
    for k in range(rounds):
        score = int(np.clip(np.rint(paper["quality"] + bias + rng.normal(0, noise)), 1, 10))
        text = _response(rng, score, int(rng.integers(2, 6)), rng.random())
        n_in = paper["tokens"] + 650
        # Prompt caching: the paper prefix is written once (Anthropic) and read on later rounds.
        cached = (n_in - 40) if k and cfg["provider"] == "anthropic" else ((n_in // 1024) * 1024 if k else 0)
        write = (n_in - 40) if (not k and cfg["provider"] == "anthropic") else 0
        reasoning = int(rng.integers(200, 1500)) if cfg["model"] in ("gpt-5-mini", "gpt-5.1", "o4-mini") else 0
        n_out = len(text) // 4 + reasoning
        usage = Usage(n_in, cached, write, n_out, reasoning)
        key = f"{cfg['config']}|{paper['paper_id']}|{k}"
        out.append(LlmCall(
            occurred_at=paper["at"] + timedelta(minutes=ci, seconds=k),
            request_key=_sha(key),
            prompt_template=cfg["template"], prompt_hash=cfg["hash"], reviewer_config=cfg["config"],
            purpose="review", subject_id=paper["paper_id"], sample_index=k, provider=cfg["provider"],
            model=cfg["model"],
            params_json=json.dumps({"max_tokens": 700, "seed": k, "temperature": cfg["temperature"]}),
            request_sha256=_sha("req|" + key), response_sha256=_sha(text), response_text=text,
            finish_reason="stop", input_tokens=n_in, cached_input_tokens=cached, cache_write_tokens=write,
            output_tokens=n_out, reasoning_tokens=reasoning, cost_usd=compute_cost(usage, price),
            cost_status="priced", price_table_version=prices.version,
            latency_ms=round(400 + 12.0 * n_out + rng.exponential(300), 1), attempt=1, status="ok"))
    return out


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _paper_events(rng, paper: dict) -> list:
    p = paper
    events = [PaperIngested(occurred_at=p["at"], paper_id=p["paper_id"], title=p["title"],
                            source_uri=f"file:///synthetic/{p['paper_id']}.pdf",
                            pdf_sha256=_sha("pdf|" + p["paper_id"]),
                            package_sha256=_sha("pkg|" + p["paper_id"]), n_pages=int(rng.integers(8, 30)),
                            n_text_records=int(rng.integers(200, 900)), n_chars=p["tokens"] * 4,
                            venue=p["venue"], is_synthetic=True, year=p["year"], area=TOPICS[rng.integers(8)])]
    ratings = np.clip(np.rint(p["quality"] + rng.normal(0, 1.3, size=3)), 1, 10)
    for j, r in enumerate(ratings):
        events.append(HumanReviewImported(
            occurred_at=p["at"] + timedelta(days=30), paper_id=p["paper_id"], review_id=f"{p['paper_id']}-R{j}",
            source="openreview", venue=p["venue"], rating=float(r), rating_scale=ICLR2017_SCALE,
            confidence=float(rng.integers(2, 6)), body_sha256=_sha(f"hr|{p['paper_id']}|{j}")))
    withdrawn = rng.random() < 0.03
    accepted = (not withdrawn) and ratings.mean() >= 6.0
    status = "withdrawn" if withdrawn else ("accepted" if accepted else "rejected")
    events.append(PaperStatusRecorded(
        occurred_at=p["at"] + timedelta(days=60), paper_id=p["paper_id"], venue=p["venue"], status=status,
        decision={"accepted": "Accept (Poster)", "rejected": "Reject", "withdrawn": "Withdrawn"}[status],
        is_accepted=None if withdrawn else bool(accepted), source="openreview", title=p["title"],
        year=p["year"]))
    return events


def write_lake(root: Path, papers: int, n_configs: int, rounds: int, venue_year_size: int,
               chunk: int, seed: int, first: int = 0, study_name: str = "bench") -> dict:
    """Write every event into write-ahead files (one per chunk) and seal them with the log's code.

    Papers SYN-<first> … SYN-<first + papers − 1>, and one study `study_name` over them: a second
    call with first = the papers already written adds a new study to the lake (the rebuild benchmark)."""
    rng = np.random.default_rng(seed)
    log = EventLog(Lake(root))
    configs = _configs()[:n_configs]
    bias = rng.uniform(-0.8, 0.8, size=n_configs)
    noise = rng.uniform(0.5, 1.3, size=n_configs)
    prices = load_price_table()
    host = socket.gethostname()
    buf: list[bytes] = []
    n_buf = 0
    counts = {"llm_call": 0, "paper_ingested": 0, "human_review_imported": 0, "paper_status_recorded": 0}
    wal_files = 0
    t0 = time.perf_counter()

    def flush():
        nonlocal buf, n_buf, wal_files
        if buf:
            path = log.lake.wal_dir / f"{ULID()}-{host}-{os.getpid()}.jsonl"
            path.write_bytes(b"".join(buf))
            wal_files += 1
        buf, n_buf = [], 0

    for i in range(first, first + papers):
        vy = i // venue_year_size
        venue, year = VENUES[vy % len(VENUES)], 2018 + (vy // len(VENUES))
        paper = {"paper_id": f"SYN-{i:06d}", "title": f"Synthetic paper {i}", "venue": f"{venue} {year}",
                 "year": year, "quality": float(np.clip(rng.normal(5.3, 1.4), 1.5, 9.5)),
                 "tokens": int(np.clip(rng.normal(9000, 2500), 2500, 30000)),
                 "at": T0 + timedelta(minutes=10 * i)}
        events = _paper_events(rng, paper)
        for ci, cfg in enumerate(configs):
            events += _llm_calls(rng, cfg, ci, paper, rounds, bias[ci], noise[ci], prices)
        for ev in events:
            counts[ev.event_type] += 1
        buf.extend(to_json_line(ev) for ev in events)
        n_buf += len(events)
        if n_buf >= chunk:
            flush()
    # One study covering every paper and configuration, as `peerlake run` records it: the marts are
    # keyed by study and count only what a study covers.
    study = resolution_event(study_name, _sha(study_name), [f"SYN-{i:06d}" for i in range(first, first + papers)],
                             [{"reviewer_config": c["config"], "samples": rounds} for c in configs],
                             paper_source="benchmark")
    buf.append(to_json_line(study))
    flush()
    write_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = log.seal()
    seal_s = time.perf_counter() - t0
    if report.bad_lines:
        raise SystemExit(f"seal rejected lines: {report.bad_lines[:3]}")
    return {"events": counts, "wal_files": wal_files, "segments_written": report.segments_written,
            "events_sealed": report.events_sealed, "write_wal_seconds": round(write_s, 1),
            "seal_seconds": round(seal_s, 1),
            "wal_bytes": sum(p.stat().st_size for p in log.lake.wal_dir.glob("*.jsonl")),
            "llm_call_parquet_bytes": sum(p.stat().st_size for p in
                                          (log.lake.segments_dir / "event_type=llm_call").glob("*.parquet"))}


SCAN_SQL = ("select count(*), sum(cost_usd), avg(output_tokens) from read_parquet('{glob}', "
            "union_by_name=true, hive_partitioning=true)")


# A second reference that touches what the build must read: every review's text, parsed as JSON.
PARSE_SQL = ("select count(*), avg(case when json_valid(response_text) then try_cast("
             "json_extract_string(response_text, '$.overall_score') as double) end) "
             "from read_parquet('{glob}', union_by_name=true, hive_partitioning=true)")


def _timed(sql: str, repeats: int) -> tuple[list[float], tuple]:
    times, row = [], ()
    for _ in range(repeats):
        t0 = time.perf_counter()
        con = duckdb.connect()  # in memory, fresh each time
        row = con.execute(sql).fetchone()
        con.close()
        times.append(time.perf_counter() - t0)
    return times, row


def duckdb_scan(root: Path, repeats: int) -> dict:
    """The single DuckDB scan of the llm_call partition, and the JSON-parsing scan beside it."""
    pattern = str(root / "events" / "segments" / "event_type=llm_call" / "*.parquet")
    times, row = _timed(SCAN_SQL.format(glob=pattern), repeats)
    parse_times, parse_row = _timed(PARSE_SQL.format(glob=pattern), repeats)
    return {"seconds_each": [round(t, 3) for t in times], "seconds_best": round(min(times), 3),
            "rows": row[0], "sum_cost_usd": round(row[1], 2), "avg_output_tokens": round(row[2], 1),
            "parse_scan_seconds_best": round(min(parse_times), 3),
            "parse_scan_avg_score": round(parse_row[1], 3)}


def _run_results(after: float, run_id: str | None) -> list[Path]:
    """dagster-dbt writes each dbt invocation's target to dbt_project/target/<step>-<run id[:7]>-<…>/: one per
    stage (dbt_inputs, dbt_statistics), all of this run's."""
    found = [Path(p) for p in glob.glob(str(REPO / "dbt_project" / "target" / "*" / "run_results.json"))]
    found = [p for p in found if p.stat().st_mtime >= after]
    if run_id:  # other people's dbt runs share the folder; prefer ours
        found = [p for p in found if f"-{run_id[:7]}-" in p.parent.name] or found
    return sorted(found, key=lambda p: p.stat().st_mtime)


class TreeMemory(threading.Thread):
    """Samples the resident memory of a process and all its descendants (the CLI, Dagster's step
    processes, each dbt process) every `every` seconds: the peak of their sum, the peak of the dbt
    processes' sum, and what each process held at the peak. A sum of RSS counts shared pages (libraries)
    once per process, so it is an upper bound on what the tree needs; GNU time's figure beside it is the
    largest single process."""

    def __init__(self, pid: int, every: float = 0.2):
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.done = threading.Event()
        self.peak = self.peak_dbt = 0
        self.peak_at = self.peak_dbt_at = None
        self.at_peak: list[tuple[str, int]] = []
        self.samples = 0
        self.dbt_series: list[tuple[float, int]] = []  # (time, dbt processes' RSS): each node's own peak

    @staticmethod
    def _kind(proc) -> str:
        try:
            argv = proc.cmdline()
        except Exception:
            return "?"
        names = [Path(a).name for a in argv[:2]]
        for kind in ("dbt", "peerlake", "dagster"):
            if kind in names:
                return kind
        return names[0] if names else "?"

    def run(self) -> None:
        import psutil

        try:
            root = psutil.Process(self.pid)
        except psutil.Error:
            return
        while not self.done.is_set():
            try:
                procs = [root, *root.children(recursive=True)]
            except psutil.Error:
                break
            held = []
            for proc in procs:
                try:
                    held.append((self._kind(proc), proc.memory_info().rss))
                except psutil.Error:
                    continue
            total = sum(r for _, r in held)
            dbt = sum(r for k, r in held if k == "dbt")
            now = time.time()
            if total > self.peak:
                self.peak, self.peak_at = total, now
                self.at_peak = sorted(held, key=lambda kr: -kr[1])[:6]
            if dbt > self.peak_dbt:
                self.peak_dbt, self.peak_dbt_at = dbt, now
            if dbt:
                self.dbt_series.append((now, dbt))
            self.samples += 1
            self.done.wait(self.every)

    def stop(self) -> dict:
        self.done.set()
        self.join(timeout=5)
        mb = 1024 * 1024
        return {"peak_rss_mb_process_tree": round(self.peak / mb),
                "peak_rss_mb_dbt_processes": round(self.peak_dbt / mb),
                "at_peak_mb": [[k, round(r / mb)] for k, r in self.at_peak], "samples": self.samples,
                "peak_at": self.peak_at, "peak_dbt_at": self.peak_dbt_at}


def _node_peaks(results: list[dict], series: list[tuple[float, int]], top: int = 8) -> list[list]:
    """The dbt nodes by the dbt processes' largest RSS while each ran (MB): which node sets the peak,
    and which would set it next once that one is fixed."""
    peaks = []
    for r in results:
        for t in r.get("timing", []):
            if t.get("name") == "execute" and t.get("started_at") and t.get("completed_at"):
                lo, hi = (datetime.fromisoformat(t[k].replace("Z", "+00:00")).timestamp()
                          for k in ("started_at", "completed_at"))
                held = [rss for at, rss in series if lo <= at <= hi + 0.5]
                if held:
                    peaks.append([r["unique_id"].split(".")[-1], round(max(held) / 1024 / 1024)])
    return sorted(peaks, key=lambda p: -p[1])[:top]


def _running_at(results: list[dict], at: float | None) -> list[str]:
    """The dbt nodes that were executing at time `at` (run_results' execute timings, UTC)."""
    if at is None:
        return []
    out = []
    for r in results:
        for t in r.get("timing", []):
            if t.get("name") == "execute" and t.get("started_at") and t.get("completed_at"):
                lo, hi = (datetime.fromisoformat(t[k].replace("Z", "+00:00")).timestamp()
                          for k in ("started_at", "completed_at"))
                if lo <= at <= hi + 0.5:  # a sample lands up to one interval after the node ends
                    out.append(r["unique_id"])
    return out


def dagster_run(root: Path, after: float) -> dict:
    """The lake's Dagster run that started at or after `after` (the build just made; none for a build with
    nothing to do, which makes no run: the latest run then is an earlier build's and must not be counted):
    its id, start and end (wall-clock seconds) and the wall seconds of each step (dbt, each gate, report)."""
    from dagster import DagsterEventType, DagsterInstance

    if not (root / "dagster").is_dir():
        return {"run_id": None, "steps": {}}
    instance = DagsterInstance.from_config(str(root / "dagster"))
    try:
        records = instance.get_run_records(limit=1)
        if not records or records[0].start_time is None or records[0].start_time < after:
            return {"run_id": None, "steps": {}}
        record = records[0]
        start: dict[str, float] = {}
        out: dict[str, float] = {}
        marks: dict[str, dict[str, float]] = {}  # per dbt step: when dbt was launched, its first and last result
        for rec in instance.all_logs(record.dagster_run.run_id):
            ev, step = rec.dagster_event, rec.step_key
            if not step:
                continue
            if ev is None:  # a log line: dagster-dbt says when it starts and when it has finished dbt
                for word, mark in (("Running dbt command", "dbt_launched"), ("Finished dbt command", "dbt_finished")):
                    if word in (rec.user_message or "") and step in start:
                        marks.setdefault(step, {})[mark] = round(rec.timestamp - start[step], 2)
            elif ev.event_type == DagsterEventType.STEP_START:
                start[step] = rec.timestamp
            elif ev.event_type == DagsterEventType.ASSET_MATERIALIZATION and step.startswith("dbt_"):
                marks.setdefault(step, {}).setdefault("first_result", round(rec.timestamp - start[step], 2))
                marks[step]["last_result"] = round(rec.timestamp - start[step], 2)
            elif ev.event_type in (DagsterEventType.STEP_SUCCESS, DagsterEventType.STEP_FAILURE):
                out[step] = round(rec.timestamp - start.get(step, rec.timestamp), 2)
        return {"run_id": record.dagster_run.run_id, "start": record.start_time, "end": record.end_time,
                "steps": dict(sorted(out.items(), key=lambda kv: -kv[1])), "dbt_step_marks": marks}
    finally:
        instance.dispose()


@functools.cache
def is_statistics_node(unique_id: str) -> bool:
    """A statistics node: a dbt Python model whose code calls peerlake.metrics (the pure statistics), i.e. the
    computation a build exists for, as against SQL reshaping, tests, per-node overhead and start-up."""
    if not unique_id.startswith("model."):
        return False
    found = list((REPO / "dbt_project" / "models").rglob(f"{unique_id.split('.')[-1]}.py"))
    return bool(found) and "peerlake.metrics" in found[0].read_text()


def time_split(wall: float, started: float, run: dict, results: list[dict], dbt_elapsed: float) -> dict:
    """Where one build's wall time went, every part measured, none reused from another build:
    - before_run: CLI start-up, the build plan (seal, parse check, fingerprints), Dagster's definitions and
      the job, until the run starts (all of a build with nothing to do: it makes no run);
    - dbt_steps (of which dbt_elapsed: dbt's own task time, the rest the dbt process's start-up, loading the
      parse, writing artifacts and dagster-dbt's handling of its events; of dbt_elapsed, the nodes' time),
      gate_steps, other_steps (publish, report);
    - run_outside_steps: Dagster's time in the run between steps (the plan, events, storage);
    - after_run: the summary and what the CLI prints after the run.
    With dbt threads > 1 the nodes' seconds overlap and can sum past dbt_elapsed."""
    steps = run.get("steps") or {}
    dbt_steps = sum(v for k, v in steps.items() if k.startswith("dbt_"))
    gates = sum(v for k, v in steps.items() if "_gx_" in k or k.startswith("gx_"))
    node_sum = sum(r["execution_time"] for r in results)
    small = [r["execution_time"] for r in results if r["execution_time"] < 1.0]
    if run.get("run_id") and run.get("start") and run.get("end"):
        before, after = run["start"] - started, started + wall - run["end"]
        inside = run["end"] - run["start"] - sum(steps.values())
    else:  # no run: nothing was built
        before, after, inside = wall, 0.0, 0.0
    stats = sum(r["execution_time"] for r in results if is_statistics_node(r["unique_id"]))
    return {k: round(v, 1) for k, v in {
        "before_run": before, "dbt_steps": dbt_steps, "dbt_process_outside_dbt_elapsed": dbt_steps - dbt_elapsed,
        "dbt_elapsed": dbt_elapsed, "dbt_nodes": node_sum, "dbt_nodes_under_1s": sum(small),
        "dbt_elapsed_outside_nodes": dbt_elapsed - node_sum, "statistics_nodes": stats, "gate_steps": gates,
        "other_steps": sum(steps.values()) - dbt_steps - gates, "run_outside_steps": inside, "after_run": after,
        # the older figure: everything outside Dagster's steps (before_run + run_outside_steps + after_run)
        "outside_steps": wall - sum(steps.values())}.items()} | {
        "dbt_nodes_count": len(results), "dbt_nodes_under_1s_count": len(small)}


def run_build(root: Path) -> dict:
    """`peerlake build` as a user runs it, against the temporary lake; dbt timings from its run."""
    env = {k: v for k, v in os.environ.items() if k != "PEERLAKE_DUCKDB_PATH"}
    env["PEERLAKE_HOME"] = str(root)
    cmd = [str(REPO / ".venv" / "bin" / "peerlake"), "build"]
    rss_file = root.parent / "build.maxrss"
    if Path("/usr/bin/time").exists():  # GNU time: max RSS of the child and its waited descendants
        cmd = ["/usr/bin/time", "-f", "%M", "-o", str(rss_file), *cmd]
    started = time.time()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    memory = TreeMemory(proc.pid)
    memory.start()
    stdout, stderr = proc.communicate()
    wall = time.perf_counter() - t0
    mem = memory.stop()
    peak_kb = int(rss_file.read_text().split()[-1]) if rss_file.exists() else None
    out = {"seconds": round(wall, 1), "returncode": proc.returncode,
           # the largest single process (peerlake, or the dbt process it starts), not a sum
           "peak_rss_mb_largest_process": round(peak_kb / 1024) if peak_kb else None,
           "memory": mem,
           "stdout_tail": stdout.strip().splitlines()[-6:], "stderr_tail": stderr.strip().splitlines()[-6:]}
    try:
        run = dagster_run(root, started)
    except Exception as exc:  # timings are a bonus; never lose the main figures over them
        run = {"run_id": None, "steps": {}, "error": f"{type(exc).__name__}: {exc}"}
    out["dagster_step_seconds"], run_id = run["steps"], run["run_id"]
    out["dbt_step_marks_seconds"] = run.get("dbt_step_marks", {})  # from each dbt step's start
    out["dagster_run_id"] = run_id
    results, elapsed = [], 0.0
    for rr in _run_results(started, run_id) if run_id else []:  # no run, no dbt
        doc = json.loads(rr.read_text())
        results.extend(doc["results"])
        elapsed += doc.get("elapsed_time", 0.0)
    if results:
        nodes = [{"node": r["unique_id"], "status": r["status"], "seconds": round(r["execution_time"], 2)}
                 for r in results]
        nodes.sort(key=lambda r: -r["seconds"])
        out["dbt_elapsed_seconds"] = round(elapsed, 1)
        out["dbt_nodes"] = len(nodes)
        out["dbt_node_seconds_sum"] = round(sum(n["seconds"] for n in nodes), 1)
        out["dbt_slowest"] = nodes[:12]
        out["dbt_not_success"] = [n for n in nodes if n["status"] not in ("success", "pass")]
        mem["dbt_nodes_running_at_peak"] = _running_at(results, mem["peak_at"])
        mem["dbt_nodes_running_at_dbt_peak"] = _running_at(results, mem["peak_dbt_at"])
        mem["dbt_node_peaks_mb"] = _node_peaks(results, memory.dbt_series)
    out["time_breakdown_seconds"] = time_split(wall, started, run, results, elapsed)
    out["statistics_share"] = round(out["time_breakdown_seconds"]["statistics_nodes"] / wall, 3)
    return out


def measure(args, papers: int) -> dict:
    """Write one lake of `papers` papers, scan it, build it, scan it again; the lake is then deleted."""
    tmp = Path(tempfile.mkdtemp(prefix="peerlake-build-at-scale-"))
    root = tmp / "lake"
    try:
        n_calls = papers * args.configs * args.rounds
        print(f"writing {n_calls:,} llm_call events ({papers:,} papers × {args.configs} configs × "
              f"{args.rounds} rounds) into {root}", flush=True)
        lake = write_lake(root, papers, args.configs, args.rounds, args.venue_year_size, args.chunk, args.seed)
        print(f"  wrote WAL in {lake['write_wal_seconds']} s, sealed in {lake['seal_seconds']} s", flush=True)
        scan_before = duckdb_scan(root, args.scan_repeats)
        print(f"  scan: {scan_before['seconds_best']} s; running peerlake build …", flush=True)
        build = run_build(root)
        scan_after = duckdb_scan(root, args.scan_repeats)  # same run, after the build
        scan_best = min(scan_before["seconds_best"], scan_after["seconds_best"])
        ratio = round(build["seconds"] / scan_best, 1)
        parse_best = min(scan_before["parse_scan_seconds_best"], scan_after["parse_scan_seconds_best"])
        mem = build["memory"]
        print(f"  build {build['seconds']} s (exit {build['returncode']}, peak RSS: largest process "
              f"{build['peak_rss_mb_largest_process']} MB, process tree {mem['peak_rss_mb_process_tree']} MB, "
              f"dbt {mem['peak_rss_mb_dbt_processes']} MB) / scan {scan_best} s = {ratio:.0f}×", flush=True)
        print(f"  at the peak: {mem['at_peak_mb']}; dbt running {mem.get('dbt_nodes_running_at_peak')}; at dbt's "
              f"peak: {mem.get('dbt_nodes_running_at_dbt_peak')}")
        print(f"  largest dbt RSS while each node ran (MB): {mem.get('dbt_node_peaks_mb')}")
        print(f"  where the time goes (s): {build['time_breakdown_seconds']}")
        for n in build.get("dbt_slowest", [])[:8]:
            print(f"    {n['seconds']:8.2f} s  {n['node']}")
        return {"shape": {"papers": papers, "configs": args.configs, "rounds": args.rounds,
                          "venue_year_size": args.venue_year_size,
                          "venue_years": -(-papers // args.venue_year_size),
                          "pairs_within_venue_year_per_config":
                              sum(m * (m - 1) // 2 for m in _group_sizes(papers, args.venue_year_size)),
                          "llm_call_events": n_calls},
                "lake": lake, "duckdb_scan_before_build": scan_before, "duckdb_scan_after_build": scan_after,
                "build": build, "build_seconds": build["seconds"], "scan_seconds_best": scan_best,
                "build_over_scan": ratio, "parse_scan_seconds_best": parse_best,
                "build_over_parse_scan": round(build["seconds"] / parse_best, 1)}
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", default="1000,10000",
                    help="comma-separated paper counts, one lake and build each (1,000 → 100 k events)")
    ap.add_argument("--configs", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--venue-year-size", type=int, default=100, help="papers per venue-year")
    ap.add_argument("--chunk", type=int, default=100_000, help="events per write-ahead file")
    ap.add_argument("--scan-repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", action="store_true", help="keep the temporary lakes (prints their paths)")
    ap.add_argument("--result", type=Path, default=RESULT_PATH)
    args = ap.parse_args()
    if not 1 <= args.configs <= len(CONFIGS):
        raise SystemExit(f"--configs must be 1..{len(CONFIGS)}")
    runs = [measure(args, int(p)) for p in args.papers.split(",")]
    result = {
        "benchmark": "build_at_scale",
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "peerlake build (subprocess, PEERLAKE_HOME = a fresh temporary lake)",
        "scan_sql": SCAN_SQL.format(glob="<lake>/events/segments/event_type=llm_call/*.parquet"),
        "parse_scan_sql": PARSE_SQL.format(glob="<lake>/events/segments/event_type=llm_call/*.parquet"),
        "route": "events serialized with to_json_line into write-ahead files of --chunk events, "
                 "then EventLog.seal() writes the Parquet segments and manifests",
        "runs": runs,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform(), "duckdb": duckdb.__version__},
    }
    args.result.parent.mkdir(parents=True, exist_ok=True)
    tmp_path = args.result.with_suffix(".json.tmp")
    tmp_path.write_text(json.dumps(result, indent=1) + "\n")
    os.replace(tmp_path, args.result)
    for r in runs:
        peak = r["build"]["memory"]["peak_rss_mb_process_tree"]
        print(f"{r['shape']['llm_call_events']:>10,} events: peak RSS {peak} MB (process tree; goal at 1 M events: "
              f"{PEAK_GOAL_MB} MB)")
        print(f"{r['shape']['llm_call_events']:>10,} events: build {r['build_seconds']} s / scan "
              f"{r['scan_seconds_best']} s = {r['build_over_scan']:.0f}× (JSON-parsing scan "
              f"{r['parse_scan_seconds_best']} s: {r['build_over_parse_scan']:.0f}×; exit {r['build']['returncode']})")
    print(f"wrote {args.result}")
    return 0 if all(r["build"]["returncode"] == 0 for r in runs) else 1


def _group_sizes(papers: int, size: int) -> list[int]:
    return [min(size, papers - s) for s in range(0, papers, size)]


if __name__ == "__main__":
    raise SystemExit(main())
