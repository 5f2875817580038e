"""The whole pipeline through the `peerlake` CLI: real Dagster runs, real dbt, real GX gates.

The model sits behind a loopback OpenAI-compatible server here (the network edge); the test at the
bottom runs the real embedded model.
"""

import json
import statistics

import duckdb
import pytest
from dagster import AssetCheckKey, AssetKey, DagsterInstance

from peerlake.orchestration import build_plan
from peerlake.orchestration.project import peerlake_dbt
from peerlake.warehouse import EventLog, Lake
from tests.orchestration.conftest import run_cli


def _env(lake_root, server, prompts=None, papers="demo-001,demo-004", samples=2):
    env = {"PEERLAKE_HOME": str(lake_root), "PEERLAKE_PROVIDER": "openai_compatible",
           "PEERLAKE_BASE_URL": server.openai_base_url, "PEERLAKE_MODEL": "fake-reviewer",
           "PEERLAKE_DEMO_ONLY": papers, "PEERLAKE_SAMPLES": str(samples)}
    if prompts:
        env["PEERLAKE_PROMPTS_DIR"] = str(prompts)
    return env


def _calls(lake_root):
    return list(EventLog(Lake(lake_root)).iter_events("llm_call"))


def _reviews(lake_root):
    """The review calls (judging-demo's judges make calls of their own, purpose judge_*)."""
    return [c for c in _calls(lake_root) if c.purpose == "review"]


def _sql(lake_root, q):
    con = duckdb.connect(str(lake_root / "peerlake.duckdb"), read_only=True)
    try:
        return con.execute(q).fetchall()
    finally:
        con.close()


def _code_version(lake_root, key):
    inst = DagsterInstance.from_config(str(lake_root / "dagster"))
    ev = inst.get_latest_materialization_event(AssetKey(key))
    return ev.asset_materialization.tags.get("dagster/code_version")


def _said(proc) -> str:
    return " ".join(proc.stdout.split())


def _checks(inst) -> int:
    from dagster import DagsterEventType, EventRecordsFilter

    return len(inst.get_event_records(EventRecordsFilter(DagsterEventType.ASSET_CHECK_EVALUATION), limit=100_000))


def _rebuilt(said) -> tuple[int, int]:
    """(models rebuilt, models in all) from the build's summary line (it names at most 8 and a count)."""
    head = said.split("Rebuilding ", 1)[1]
    n, total = (int(x) for x in head.split(" models", 1)[0].split(" of "))
    return n, total


def _dbt_kinds_of_last_build(inst) -> set[str]:
    """The kinds of dbt node (model, test, unit_test) the newest build's dbt steps ran, from their run_results."""
    from peerlake.warehouse import settings

    [run] = inst.get_runs(limit=1)  # a build's run comes after its study's
    assert build_plan.PLAN_TAG in run.tags, run.tags
    kinds = set()
    for f in settings.dbt_target_dir().glob(f"dbt_*-{run.run_id[:7]}-*/run_results.json"):
        kinds |= {r["unique_id"].split(".")[0] for r in json.loads(f.read_text())["results"]}
    return kinds


def test_demo_replays_builds_only_what_changed_and_a_prompt_edit_rereviews_only(tmp_path, review_server,
                                                                                 prompts_copy):
    """One lake through the user's day (one first build for all of it: each is a minute on 2 cores): a rerun
    with nothing new builds nothing; `peerlake build` folds in the run records and gates only what it
    rebuilt (orchestration.build_plan); more samples pay only for the new ones; an edited template makes new
    review calls and rebuilds exactly the models downstream of the event types that grew."""
    lake_root = tmp_path / "lake"
    env = _env(lake_root, review_server, prompts_copy)

    first = run_cli(["demo"], env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert len(_calls(lake_root)) == len(_reviews(lake_root)) == 4  # the demo names no judge
    said = _said(first)
    assert "Model calls this run: 4 new" in said and "peerlake run judging-demo" in said
    assert "no published build yet" in said
    assert review_server.requests == 4
    scores_sql = "select paper_id, sample_index, overall_score from fct_ai_review_scores order by 1, 2"
    scores_first = _sql(lake_root, scores_sql)
    assert len(scores_first) == 4 and all(s is not None for *_, s in scores_first)
    version_first = _code_version(lake_root, "ai_reviews")
    published = lake_root / "peerlake.duckdb"
    stamp = published.stat().st_mtime_ns
    inst = DagsterInstance.from_config(str(lake_root / "dagster"))
    runs, checks = len(inst.get_runs()), _checks(inst)
    assert checks > 40  # every gate ran on the first build
    # ... and no dbt unit test: they test the models' code, which no build before this one ran
    assert _dbt_kinds_of_last_build(inst) == {"model", "test"}

    # Nothing new: decided before Dagster loads (orchestration.noop_run): no run, no dbt, no gate, no publish.
    again = run_cli(["demo"], env)
    assert again.returncode == 0, again.stdout + again.stderr
    said = _said(again)
    assert "Nothing to build" in said and "Model calls this run: 0 new" in said
    assert "no Dagster run was needed" in said
    assert review_server.requests == 4
    inst = DagsterInstance.from_config(str(lake_root / "dagster"))
    assert len(inst.get_runs()) == runs
    assert _checks(inst) == checks
    assert published.stat().st_mtime_ns == stamp

    # A run through Dagster (--no-build always takes it) replays the study's calls and records the tally
    # (calls_replayed, run_estimated), which waits for the next build.
    replayed = run_cli(["run", "demo", "--no-build"], env)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "4 reviews (0 model calls made, 4 replayed, 0 failed)" in replayed.stdout
    assert review_server.requests == 4
    assert len(DagsterInstance.from_config(str(lake_root / "dagster")).get_runs()) == runs + 1  # the study's run
    assert published.stat().st_mtime_ns == stamp

    # `peerlake build` folds the run records in: the cost models downstream of them, and their gates only.
    # (asked to run every unit test: those of the rebuilt models run, though no code changed)
    tally = run_cli(["build"], {**env, "PEERLAKE_DBT_UNIT_TESTS": "all"})
    assert tally.returncode == 0, tally.stdout + tally.stderr
    said = _said(tally)
    n, total = _rebuilt(said)
    assert "new events: calls_replayed, run_estimated" in said and 0 < n < total
    inst = DagsterInstance.from_config(str(lake_root / "dagster"))
    assert _dbt_kinds_of_last_build(inst) == {"model", "test", "unit_test"}
    rebuilt_gates = _checks(inst) - checks
    assert 0 < rebuilt_gates < checks
    assert "Nothing to build" in _said(run_cli(["build"], env))

    # judging-demo: the four judges read demo-001's first review (the demo's own call, replayed) and its
    # first human review (the fake's answers are no judge's JSON, so they record nulls with reasons;
    # tests/judging has the judges' own tests). The marts are left to the next build.
    judging = run_cli(["run", "judging-demo", "--no-build"], env)
    assert judging.returncode == 0, judging.stdout + judging.stderr
    assert "1 reviews (0 model calls made, 1 replayed, 0 failed)" in judging.stdout
    judged = len(_calls(lake_root)) - 4
    assert judged > 0 and {c.purpose.split("_")[1] for c in _calls(lake_root) if c.purpose != "review"} == {
        "depth", "novelty", "flaws", "constructiveness"}
    assert review_server.requests == 4 + judged and len(_reviews(lake_root)) == 4
    assert "[depth judge]" in judging.stdout and "[novelty judge]" in judging.stdout

    # Asking for a third sample per paper: everything made replays from the event log and only the new
    # samples are paid for (the model steps only: the next run builds the marts).
    more = run_cli(["run", "demo", "--no-build"], {**env, "PEERLAKE_SAMPLES": "3"})
    assert more.returncode == 0, more.stdout + more.stderr
    assert "6 reviews (2 model calls made, 4 replayed, 0 failed)" in more.stdout
    assert review_server.requests == 6 + judged and len(_calls(lake_root)) == 6 + judged
    assert len(_reviews(lake_root)) == 6
    # `peerlake review` is the user's own study: it never reviews the demo corpus.
    mine = run_cli(["review", "--samples", "3"], env)
    assert mine.returncode == 1 and review_server.requests == 6 + judged
    assert "covers no ingested manuscript" in " ".join(mine.stderr.split())

    # Editing the reviewer template: new review calls, a new code version, both template versions in
    # cost_by_model, and only the models downstream of the event types that grew are rebuilt.
    tpl = prompts_copy / "templates" / "reviewer_scoring.j2"
    tpl.write_text(tpl.read_text().replace("Be critical and specific.", "Be critical, specific and fair."))
    third = run_cli(["demo"], env)
    assert third.returncode == 0, third.stdout + third.stderr
    said = _said(third)
    assert "Model calls this run: 4 new" in said
    calls = _calls(lake_root)
    assert len(_reviews(lake_root)) == 10 and review_server.requests == len(calls)
    assert _code_version(lake_root, "ai_reviews") != version_first
    n, total = _rebuilt(said)
    assert n < total
    grown = said.split("new events: ", 1)[1].split(";")[0].split(")")[0].split(", ")
    assert "llm_call" in grown and "paper_ingested" not in grown
    manifest = json.loads(peerlake_dbt.manifest_path.read_text())
    roots = {u for u, s in manifest["sources"].items() if s["name"] in grown}
    models = {u for u in build_plan.reachable(manifest["child_map"], roots)
              if manifest["nodes"].get(u, {}).get("resource_type") == "model"}
    assert n == len(models)  # exactly the models downstream of the event types that grew
    rows = _sql(lake_root, "select prompt_template, prompt_hash, n_calls from cost_by_model "
                           "where prompt_template = 'reviewer_scoring' order by 2")
    assert len(rows) == 2 and rows[0][1] != rows[1][1]
    # An unpriced model: cost is null and counted as unknown, never summed as 0.
    assert _sql(lake_root, "select count(*) from fct_llm_calls where cost_usd is null")[0][0] == len(calls)
    # The judges judge the new review of demo-001 (and only that: the human review's judgments replay).
    again = run_cli(["run", "judging-demo", "--no-build"], env)
    assert again.returncode == 0, again.stdout + again.stderr
    new_judge_calls = _calls(lake_root)[len(calls):]
    assert new_judge_calls and all(c.purpose.startswith("judge_") for c in new_judge_calls)
    assert all(c.subject_id != "human:demo-001-review-1" for c in new_judge_calls
               if c.purpose in ("judge_depth_units", "judge_constructiveness_comments"))

    # The runs are in the Dagster instance under the lake, so `make ui` shows them: each demo that builds is
    # two runs (the study's partition of ingest and reviews, then the build), each build one, each run without
    # the build one; the rerun with nothing new, a build with nothing to do and the refused review start none.
    inst = DagsterInstance.from_config(str(lake_root / "dagster"))
    assert len(inst.get_runs()) == runs + 1 + 1 + 1 + 1 + 2 + 1

    out = run_cli(["query", "select prompt_hash, n_calls from cost_by_model"], env)
    assert out.returncode == 0 and out.stdout.count("│") > 4

    ok = run_cli(["verify"], env)
    assert ok.returncode == 0 and "verify OK" in ok.stdout
    seg = next(p for p in (lake_root / "events" / "segments" / "event_type=llm_call").glob("*.parquet")
               if "schema" not in p.name)
    data = bytearray(seg.read_bytes())
    data[100] ^= 0xFF
    seg.write_bytes(bytes(data))
    bad = run_cli(["verify"], env)
    assert bad.returncode == 1
    assert "MISMATCH" in bad.stdout and seg.name in bad.stdout.replace("\n", "")


ALL_DEMO = "demo-001,demo-002,demo-003,demo-004"


def _query(env, sql, *, candidate=False):
    """`peerlake query -f json` as a user runs it; (exit code, rows or the message)."""
    res = run_cli(["query", "-f", "json", sql, *(["--candidate"] if candidate else [])], env)
    return res.returncode, (json.loads(res.stdout) if res.returncode == 0 else " ".join(res.stdout.split()))


def test_marts_are_published_only_after_every_gate_passes(tmp_path, review_server):
    """Write, audit, publish: a failed gate publishes nothing and keeps the candidate to inspect."""
    lake_root = tmp_path / "lake"
    repeatability = "select * from reliability_repeatability order by all"
    gate = AssetCheckKey(AssetKey("fct_ai_review_scores"), "gx_ai_review_scores")

    # 1. A first build whose only review is off the 1-10 scale fails at the input gate: no mart at all.
    review_server.score = 42
    env = _env(lake_root, review_server, papers="demo-001", samples=1)
    first = run_cli(["demo"], env)
    assert first.returncode == 1
    out = " ".join(first.stdout.split())
    assert "GATE FAILED gx_ai_review_scores on fct_ai_review_scores (suite ai_review_scores)" in out
    assert "expect_column_values_to_be_between(overall_score_raw" in out and "values [42.0]" in out
    code, kept = _query(env, "select review_score_id, overall_score_raw from fct_ai_review_scores", candidate=True)
    assert code == 0 and [r["overall_score_raw"] for r in kept] == [42.0]  # the failed candidate is kept
    assert kept[0]["review_score_id"] in out  # ... and the CLI named its offending row
    assert not (lake_root / "peerlake.duckdb").exists()
    code, message = _query(env, repeatability)
    assert code == 1 and "No published marts yet" in message and "failed at gate gx_ai_review_scores" in message
    # The statistics were never built, not even in the candidate: bad inputs stop before them.
    assert _query(env, repeatability, candidate=True)[0] == 1
    inst = DagsterInstance.from_config(str(lake_root / "dagster"))
    record = inst.get_latest_asset_check_evaluation_record(gate)  # the UI shows it on this asset
    assert record is not None and record.evaluation.passed is False
    for key in ("reliability_repeatability", "published_marts", "review_summary"):
        assert inst.get_latest_materialization_event(AssetKey(key)) is None, key

    # 2. A good rebuild publishes. The log is immutable, so the bad answer stays; the suite tolerates
    #    up to 5 % off-scale answers (more means a broken prompt or model): 1 of 4 x 6 passes. (Few
    #    samples per paper: the rank-reproducibility mart enumerates every split of them.)
    review_server.score = None  # 4, 5, 6, 4, ...
    env = _env(lake_root, review_server, papers=ALL_DEMO, samples=6)
    second = run_cli(["demo"], env)
    assert second.returncode == 0, second.stdout + second.stderr
    by_paper: dict[str, list[int]] = {}
    for call in _reviews(lake_root):
        by_paper.setdefault(call.subject_id, []).append(json.loads(call.response_text)["overall_score"])
    assert sorted(len(v) for v in by_paper.values()) == [6, 6, 6, 6]
    good = {p: [s for s in v if 1 <= s <= 10] for p, v in by_paper.items()}
    pooled_sd = statistics.fmean(statistics.variance(v) for v in good.values()) ** 0.5
    code, published = _query(env, repeatability)
    assert code == 0 and len(published) == 1
    assert (published[0]["n_reviews"], published[0]["n_parsed_reviews"]) == (24, 23)
    assert published[0]["within_paper_sd"] == pytest.approx(pooled_sd)
    inst = DagsterInstance.from_config(str(lake_root / "dagster"))
    published_run = inst.get_latest_materialization_event(AssetKey("published_marts")).run_id

    # 3. Four more off-scale answers (5 of 28) fail the build; users keep the published marts.
    review_server.score = 42
    env = _env(lake_root, review_server, papers=ALL_DEMO, samples=7)
    third = run_cli(["demo"], env)
    assert third.returncode == 1
    out = " ".join(third.stdout.split())
    assert "GATE FAILED gx_ai_review_scores on fct_ai_review_scores" in out and "5 of 28 rows unexpected" in out
    assert "Nothing was published" in out
    assert _query(env, repeatability) == (0, published)
    code, bad = _query(env, "select count(*) as n from fct_ai_review_scores where overall_score_raw = 42",
                       candidate=True)
    assert bad == [{"n": 5}]
    assert _query(env, repeatability, candidate=True) == (0, published)  # stage 2 never saw the bad row
    record = inst.get_latest_asset_check_evaluation_record(gate)
    assert record.evaluation.passed is False and record.run_id != published_run
    assert inst.get_latest_materialization_event(AssetKey("published_marts")).run_id == published_run
    assert inst.get_latest_materialization_event(AssetKey("reliability_repeatability")).run_id == published_run
