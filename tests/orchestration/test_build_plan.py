"""Builds in proportion to change: a rerun with nothing new runs no dbt and no gate; a change rebuilds
the models downstream of it and gates only those (orchestration.build_plan)."""

import json

from dagster import DagsterInstance

from orchestration import build_plan
from orchestration.build_plan import AUTO, EXPLICIT, FORCE, plan
from orchestration.project import peerlake_dbt
from tests.orchestration.conftest import run_cli
from warehouse import EventLog
from warehouse.events import StudyResolved

# ---- the plan, on a small manifest --------------------------------------------------------------------


def _manifest():
    """events.a → stg_a → int_x → mart_x; events.b → stg_b → mart_y; mart_z reads int_x and stg_b."""
    nodes = {f"model.p.{n}": {"resource_type": "model", "name": n, "checksum": {"sha256": n}, "config": {},
                              "language": "sql", "depends_on": {"macros": [], "nodes": []}}
             for n in ("stg_a", "stg_b", "int_x", "mart_x", "mart_y", "mart_z")}
    nodes["test.p.not_null_mart_y_id"] = {"resource_type": "test", "name": "not_null_mart_y_id",
                                          "checksum": {"sha256": "t"}, "raw_code": "", "config": {},
                                          "depends_on": {"nodes": ["model.p.mart_y"], "macros": []}}
    children = {"source.p.events.a": ["model.p.stg_a"], "source.p.events.b": ["model.p.stg_b"],
                "model.p.stg_a": ["model.p.int_x"], "model.p.int_x": ["model.p.mart_x", "model.p.mart_z"],
                "model.p.stg_b": ["model.p.mart_y", "model.p.mart_z"]}
    sources = {f"source.p.events.{t}": {"name": t} for t in ("a", "b", "calls_replayed")}
    children["source.p.events.calls_replayed"] = ["model.p.mart_y"]
    return {"nodes": nodes, "child_map": children, "sources": sources, "macros": {}}


def _fingerprint(manifest, events, gates=None):
    return {"version": build_plan.VERSION, "project": "p", "events": events,
            "models": build_plan.code_fingerprint(manifest), "gates": gates or {"x": ["mart_x", "1"]}}


def test_nothing_changed_plans_nothing_and_new_events_rebuild_only_their_descendants():
    m = _manifest()
    before = _fingerprint(m, {"a": "1", "b": "1"})
    assert plan(before, before, m, EXPLICIT).empty
    assert plan(before, before, m, AUTO).empty
    assert plan(before, None, m, EXPLICIT).full
    assert plan(before, before, m, FORCE).models == sorted(["stg_a", "stg_b", "int_x", "mart_x", "mart_y", "mart_z"])

    grown = plan(_fingerprint(m, {"a": "1", "b": "2"}), before, m, EXPLICIT)
    assert grown.models == ["mart_y", "mart_z", "stg_b"]  # not stg_a, int_x, mart_x
    assert "new events: b" in grown.summary()


def test_a_new_source_selects_the_view_that_reads_it():
    m = _manifest()
    before = _fingerprint(m, {"a": "1", "b": "1"})
    grown = plan(_fingerprint(m, {"a": "2", "b": "1"}), before, m, EXPLICIT)
    assert grown.models == ["int_x", "mart_x", "mart_z", "stg_a"]
    assert "Rebuilding 4 of 6 models" in grown.summary()


def test_changed_code_tests_and_gates_rebuild_what_they_touch():
    m = _manifest()
    before = _fingerprint(m, {"a": "1", "b": "1"})
    m2 = json.loads(json.dumps(m))
    m2["nodes"]["model.p.int_x"]["checksum"] = {"sha256": "edited"}
    assert plan(_fingerprint(m2, {"a": "1", "b": "1"}), before, m2, AUTO).models == ["int_x", "mart_x", "mart_z"]

    m3 = json.loads(json.dumps(m))
    m3["nodes"]["test.p.not_null_mart_y_id"]["raw_code"] = "edited"  # a changed test runs again
    assert plan(_fingerprint(m3, {"a": "1", "b": "1"}), before, m3, EXPLICIT).models == ["mart_y"]

    gate = plan(_fingerprint(m, {"a": "1", "b": "1"}, {"x": ["mart_x", "2"]}), before, m, EXPLICIT)
    assert gate.models == ["mart_x"] and "changed gates: x" in gate.summary()


def test_run_records_alone_wait_for_an_explicit_build():
    m = _manifest()
    before = _fingerprint(m, {"a": "1", "b": "1", "calls_replayed": "1"})
    now = _fingerprint(m, {"a": "1", "b": "1", "calls_replayed": "2"})
    auto = plan(now, before, m, AUTO)
    assert auto.empty and auto.pending == ["calls_replayed"]
    assert "tallied in the cost marts at the next `peerlake build`" in auto.summary()
    assert plan(now, before, m, EXPLICIT).models == ["mart_y"]
    # when the build runs anyway, the run records go in with it (the fingerprint then holds them)
    both = plan(_fingerprint(m, {"a": "2", "b": "1", "calls_replayed": "2"}), before, m, AUTO)
    assert "mart_y" in both.models and "stg_a" in both.models


def test_a_repeated_study_definition_is_no_change(lake):
    log = EventLog(lake)

    def resolve(papers):
        log.append(StudyResolved(study_id="s", study_sha256="abc", paper_ids_json=json.dumps(papers),
                                 reviewers_json="[]", external_systems_json="[]", paper_source="corpus:demo",
                                 asset="ai_reviews"))
        log.seal()
        return build_plan.event_fingerprint(log)["study_resolved"]

    first = resolve(["p1"])
    assert resolve(["p1"]) == first  # the same definition again: a rerun
    changed = resolve(["p1", "p2"])
    assert changed != first
    assert resolve(["p1"]) not in (changed,)  # back to one paper: the newest is what counts


# ---- the pipeline: real Dagster, dbt and gates behind a loopback model -----------------------------------


def _env(lake_root, server, prompts):
    return {"PEERLAKE_HOME": str(lake_root), "PEERLAKE_PROVIDER": "openai_compatible",
            "PEERLAKE_BASE_URL": server.openai_base_url, "PEERLAKE_MODEL": "fake-reviewer",
            "PEERLAKE_DEMO_ONLY": "demo-001", "PEERLAKE_SAMPLES": "2", "PEERLAKE_PROMPTS_DIR": str(prompts)}


def _said(proc):
    return " ".join(proc.stdout.split())


def _checks(inst):
    from dagster import DagsterEventType, EventRecordsFilter

    return len(inst.get_event_records(EventRecordsFilter(DagsterEventType.ASSET_CHECK_EVALUATION), limit=100_000))


def _rebuilt(said):
    """The model names a build said it rebuilds (the summary line names at most 8 and a count)."""
    head = said.split("Rebuilding ", 1)[1]
    n, total = (int(x) for x in head.split(" models", 1)[0].split(" of "))
    return n, total


def test_a_rerun_with_nothing_new_builds_nothing_and_a_prompt_edit_rebuilds_downstream(
        tmp_path, review_server, prompts_copy):
    lake_root = tmp_path / "lake"
    env = _env(lake_root, review_server, prompts_copy)
    first = run_cli(["demo"], env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "no published build yet" in _said(first)
    published = lake_root / "peerlake.duckdb"
    stamp = published.stat().st_mtime_ns
    inst = DagsterInstance.from_config(str(lake_root / "dagster"))
    runs, checks = len(inst.get_runs()), _checks(inst)
    assert checks > 40  # every gate ran on the first build

    # 1. Nothing new: the study's run replays, and no dbt, no gate, no publish follows.
    again = run_cli(["demo"], env)
    assert again.returncode == 0, again.stdout + again.stderr
    said = _said(again)
    assert "Nothing to build" in said and "Model calls this run: 0 new" in said
    assert "calls_replayed" in said  # ... and it says the replay tally waits for `peerlake build`
    inst = DagsterInstance.from_config(str(lake_root / "dagster"))
    assert len(inst.get_runs()) == runs + 1  # the study's run only
    assert _checks(inst) == checks
    assert published.stat().st_mtime_ns == stamp

    # 2. `peerlake build` folds the run records in: the cost models downstream of them, and their gates only.
    tally = run_cli(["build"], env)
    assert tally.returncode == 0, tally.stdout + tally.stderr
    said = _said(tally)
    n, total = _rebuilt(said)
    assert "new events: calls_replayed, run_estimated" in said and 0 < n < total
    inst = DagsterInstance.from_config(str(lake_root / "dagster"))
    rebuilt_gates = _checks(inst) - checks
    assert 0 < rebuilt_gates < checks
    assert "Nothing to build" in _said(run_cli(["build"], env))

    # 3. An edited reviewer template: new review calls, and only the models downstream of what grew.
    tpl = prompts_copy / "templates" / "reviewer_scoring.j2"
    tpl.write_text(tpl.read_text().replace("Be critical and specific.", "Be critical, specific and fair."))
    edited = run_cli(["demo"], env)
    assert edited.returncode == 0, edited.stdout + edited.stderr
    said = _said(edited)
    assert "Model calls this run: 2 new" in said and "llm_call" in said
    n, total = _rebuilt(said)
    assert n < total
    grown = said.split("new events: ", 1)[1].split(";")[0].split(")")[0].split(", ")
    assert "llm_call" in grown and "paper_ingested" not in grown
    manifest = json.loads(peerlake_dbt.manifest_path.read_text())
    roots = {u for u, s in manifest["sources"].items() if s["name"] in grown}
    models = {u for u in build_plan.reachable(manifest["child_map"], roots)
              if manifest["nodes"].get(u, {}).get("resource_type") == "model"}
    assert n == len(models)  # exactly the models downstream of the event types that grew
    out = run_cli(["query", "-f", "json", "select count(distinct prompt_hash) as n from cost_by_model "
                   "where prompt_template = 'reviewer_scoring'"], env)
    assert out.returncode == 0 and json.loads(out.stdout) == [{"n": 2}]
    # the papers mart was not rebuilt: no new paper
    assert "dim_papers" not in said
