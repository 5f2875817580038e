"""A full `peerlake build` ÷ a parsing scan, and the rebuild after +1 % events ÷ the full build, in one run.

One temporary lake (build_at_scale's synthetic events: --papers papers × --configs × --rounds review
calls, one study "bench") is scanned (DuckDB parsing every review's JSON: the floor) and built. Then
+1 % events arrive — a second study "bench-plus" of papers/100 new papers under the same
configurations, written and sealed by the log's own code — and the lake is built again, as a user
would: `peerlake build`, which rebuilds only the models downstream of the event types that grew
(orchestration.build_plan) into a candidate that starts as a copy of the published file
(warehouse.publish), so the per-(study, configuration) statistics of "bench" are reused
(metrics.stats.memo) and only "bench-plus" is computed. Then a third build with nothing new (no dbt,
no gate: the no-op), and an empty lake's first build and its no-op. With --verify, the final lake is
also built from nothing in a copy and every table of the two published files is compared row for row
(EXCEPT ALL both ways).
Run: .venv/bin/python benchmarks/rebuild_incremental.py [--papers 10000] [--verify]
"""

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import build_at_scale as bas
import duckdb

RESULT_PATH = bas.REPO / "benchmarks" / "results" / "rebuild_incremental.json"


def _slowest(build: dict) -> list:
    """Where the build's time went: the split (dbt steps and their small nodes, gates, outside any
    step) and the slowest dbt nodes."""
    split = [f"split (s): {build.get('time_breakdown_seconds')}"]
    return split + [f"{n['seconds']:.2f} s {n['node'].split('.')[-1] if n['node'].startswith('model.') else n['node']}"
                    for n in build.get("dbt_slowest", [])[:8]]


def compare_published(a: Path, b: Path) -> dict:
    """Every table of published file a against b, row for row (EXCEPT ALL both ways); a table that
    differs is compared again with its floating-point columns rounded to 8 decimals, since DuckDB's
    parallel sums and averages add in no fixed order and two builds from nothing differ there too."""
    con = duckdb.connect()
    con.execute("set enable_progress_bar = false")  # DuckDB 2 refuses it as a connect-time global option
    con.execute(f"attach '{a}' as a (read_only)")
    con.execute(f"attach '{b}' as b (read_only)")
    tables = [r[0] for r in con.execute(
        "select table_name from duckdb_tables() where database_name = 'a' and schema_name = 'main' "
        "order by table_name").fetchall()]
    out = {"tables": len(tables), "differing": {}, "differing_beyond_rounding": {}}

    def only(x: str, y: str, t: str, columns: str) -> int:
        return con.execute(f'select count(*) from (select {columns} from {x}.main."{t}" except all '
                           f'select {columns} from {y}.main."{t}")').fetchone()[0]

    for t in tables:
        counts = {"only_incremental": only("a", "b", t, "*"), "only_full": only("b", "a", t, "*")}
        if not any(counts.values()):
            continue
        out["differing"][t] = counts
        cols = con.execute("select column_name, data_type from duckdb_columns() where database_name = 'a' "
                           "and schema_name = 'main' and table_name = ? order by column_index", [t]).fetchall()
        rounded = ", ".join(f'round("{c}", 8)' if d in ("DOUBLE", "FLOAT") else f'"{c}"' for c, d in cols)
        counts = {"only_incremental": only("a", "b", t, rounded), "only_full": only("b", "a", t, rounded)}
        if any(counts.values()):
            out["differing_beyond_rounding"][t] = counts
    con.close()
    return out


def kept_builds(root: Path) -> dict:
    """What keeping the builds costs after the full build and the rebuild ($PEERLAKE_KEEP_BUILDS, warehouse.builds):
    their records and chunks on disk against the published file, and one `peerlake diff --build prev`."""
    import time

    from peerlake.audit.builds_diff import compare_published as diff_published
    from peerlake.warehouse import Lake, builds
    from peerlake.warehouse.builds import BuildUnknown

    lake = Lake(root)
    t0 = time.monotonic()
    try:
        report = diff_published(lake, "prev")
    except BuildUnknown as exc:  # a build failed (its exit code is in the result): nothing to compare
        return {"records": len(builds.records(lake)), "bytes": builds.disk_bytes(lake), "error": str(exc)}
    return {"records": len(builds.records(lake)), "bytes": builds.disk_bytes(lake),
            "published_bytes": lake.duckdb_path.stat().st_size, "diff_seconds": round(time.monotonic() - t0, 2),
            "marts_differing": sum(1 for m in report["marts"] if m["status"] != "compared" or m["added"]
                                   or m["removed"] or m["changed"]),
            "calls_since": sum(g["calls"] for g in report["since"]["groups"])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=10_000, help="10,000 papers → 1 M llm_call events")
    ap.add_argument("--configs", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--venue-year-size", type=int, default=100)
    ap.add_argument("--chunk", type=int, default=100_000)
    ap.add_argument("--scan-repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verify", action="store_true", help="also build the final lake from nothing and compare")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--result", type=Path, default=RESULT_PATH)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="peerlake-rebuild-"))
    root = tmp / "lake"
    extra = max(1, args.papers // 100)
    try:
        print(f"writing {args.papers * args.configs * args.rounds:,} llm_call events into {root}", flush=True)
        lake = bas.write_lake(root, args.papers, args.configs, args.rounds, args.venue_year_size, args.chunk,
                              args.seed)
        scan = bas.duckdb_scan(root, args.scan_repeats)
        print(f"  parsing scan {scan['parse_scan_seconds_best']} s; full build …", flush=True)
        full = bas.run_build(root)
        print(f"  full build {full['seconds']} s (exit {full['returncode']})", *_slowest(full), sep="\n    ",
              flush=True)
        plus = bas.write_lake(root, extra, args.configs, args.rounds, args.venue_year_size, args.chunk,
                              args.seed + 1, first=args.papers, study_name="bench-plus")
        print(f"  +{plus['events']['llm_call']:,} llm_call events (study bench-plus); rebuild …", flush=True)
        rebuild = bas.run_build(root)
        print(f"  rebuild {rebuild['seconds']} s (exit {rebuild['returncode']})", *_slowest(rebuild), sep="\n    ",
              flush=True)
        kept = kept_builds(root)
        print(f"  kept builds: {kept['records']} on disk {kept['bytes']:,} B" + (
              f" beside a published file of {kept['published_bytes']:,} B; diff --build prev {kept['diff_seconds']} s"
              if "error" not in kept else f"; {kept['error']}"), flush=True)
        noop = bas.run_build(root)
        print(f"  no-op build (nothing new) {noop['seconds']} s (exit {noop['returncode']})", flush=True)
        empty_root = tmp / "empty"
        empty = bas.run_build(empty_root)
        empty_again = bas.run_build(empty_root)
        print(f"  empty lake: first build {empty['seconds']} s, again {empty_again['seconds']} s", flush=True)
        scan_after = bas.duckdb_scan(root, args.scan_repeats)
        parse_best = min(scan["parse_scan_seconds_best"], scan_after["parse_scan_seconds_best"])
        verify = None
        if args.verify:
            fresh = tmp / "fresh"
            # the events and the embedding store, not the published file, the candidate or Dagster's runs
            shutil.copytree(root, fresh, ignore=shutil.ignore_patterns(
                "peerlake.duckdb*", "candidate", "dagster", "logs", "dbt", "locks"))
            from_nothing = bas.run_build(fresh)
            verify = {"build_seconds": from_nothing["seconds"], "returncode": from_nothing["returncode"],
                      **compare_published(root / "peerlake.duckdb", fresh / "peerlake.duckdb")}
            print(f"  from nothing {from_nothing['seconds']} s; tables differing: {sorted(verify['differing'])}; "
                  f"beyond float rounding: {verify['differing_beyond_rounding'] or 'none'}", flush=True)
        result = {
            "benchmark": "rebuild_incremental",
            "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "command": "peerlake build (subprocess, PEERLAKE_HOME = a temporary lake), twice",
            "parse_scan_sql": bas.PARSE_SQL.format(glob="<lake>/events/segments/event_type=llm_call/*.parquet"),
            "shape": {"papers": args.papers, "configs": args.configs, "rounds": args.rounds,
                      "llm_call_events": lake["events"]["llm_call"], "added_papers": extra,
                      "added_llm_call_events": plus["events"]["llm_call"]},
            "lake": lake, "added": plus, "parse_scan": scan, "parse_scan_after": scan_after,
            "full_build": full, "rebuild": rebuild, "noop_build": noop, "empty_build": empty,
            "empty_build_again": empty_again, "verify": verify, "kept_builds": kept,
            "parse_scan_seconds_best": parse_best,
            "full_over_parse_scan": round(full["seconds"] / parse_best, 1),
            "rebuild_over_full": round(rebuild["seconds"] / full["seconds"], 3),
            "noop_over_full": round(noop["seconds"] / full["seconds"], 3),
            "goals": {"rebuild_over_full": 0.15, "full_over_parse_scan": 10, "empty_build_seconds": 15,
                      "noop_over_full": 0.05},
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                        "platform": platform.platform(), "duckdb": duckdb.__version__},
        }
        args.result.parent.mkdir(parents=True, exist_ok=True)
        tmp_path = args.result.with_suffix(".json.tmp")
        tmp_path.write_text(json.dumps(result, indent=1) + "\n")
        os.replace(tmp_path, args.result)
        print(f"full build {full['seconds']} s / parsing scan {parse_best} s = {result['full_over_parse_scan']}×; "
              f"rebuild after +1 % {rebuild['seconds']} s / full = {result['rebuild_over_full']} (goal ≤ 0.15); "
              f"no-op {noop['seconds']} s / full = {result['noop_over_full']}; empty lake {empty['seconds']} s "
              f"(goal ≤ 15 s), again {empty_again['seconds']} s")
        print(f"wrote {args.result}")
        ok = all(b["returncode"] == 0 for b in (full, rebuild, noop, empty, empty_again))
        return 0 if ok and not (verify and verify["differing_beyond_rounding"]) else 1
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
