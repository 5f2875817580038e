"""Builds in proportion to change: a rerun with nothing new runs no dbt and no gate; a change rebuilds
the models downstream of it and gates only those (orchestration.build_plan): the plan, here."""

import json

import pytest

from peerlake.orchestration import build_plan
from peerlake.orchestration.build_plan import AUTO, EXPLICIT, FORCE, plan
from peerlake.warehouse import EventLog
from peerlake.warehouse.events import StudyResolved

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


# The pipeline's side (a rerun with nothing new invokes no dbt and no gate; `peerlake build` gates only what it
# rebuilt; an edited template rebuilds exactly the models downstream of its calls) is in
# tests/orchestration/test_pipeline.py: test_demo_replays_builds_only_what_changed_and_a_prompt_edit_rereviews_only,
# on the same lake as the replay checks, so `make test` pays one first build for both.


def test_the_unit_tests_run_only_where_code_changed_unless_asked():
    """dbt unit tests check the models' code, not the lake's data: a build runs them when code changed (an
    edited model or project, `--force`), never for new events alone or a first build; `all` / `none` say
    otherwise (settings.dbt_unit_tests)."""
    m = _manifest()
    before = _fingerprint(m, {"a": "1", "b": "1"})
    edited = json.loads(json.dumps(m))
    edited["nodes"]["model.p.int_x"]["checksum"] = {"sha256": "edited"}
    new_code = _fingerprint(edited, {"a": "1", "b": "1"})
    new_events = _fingerprint(m, {"a": "2", "b": "1"})
    new_project = {**before, "project": "q"}
    assert plan(new_code, before, edited, EXPLICIT).unit_tests
    assert plan(new_project, before, m, EXPLICIT).unit_tests
    assert plan(before, before, m, FORCE).unit_tests
    assert not plan(new_events, before, m, EXPLICIT).unit_tests
    assert not plan(before, None, m, EXPLICIT).unit_tests
    assert not plan(_fingerprint(m, {"a": "1", "b": "1"}, {"x": ["mart_x", "2"]}), before, m, EXPLICIT).unit_tests
    assert plan(new_events, before, m, EXPLICIT, "all").unit_tests
    assert plan(before, None, m, EXPLICIT, "all").unit_tests
    assert not plan(new_code, before, edited, EXPLICIT, "none").unit_tests
    assert not plan(before, before, m, FORCE, "none").unit_tests


def test_incremental_tables_are_refreshed_whole_only_when_their_version_cannot_see_the_change():
    """An incremental model's version covers its SQL and its upstream models (macros/incremental_version.sql):
    an edited model, new events or gates keep its rows; a changed project (vars, profile, dbt, the lake's
    location) or `--force` rebuild it from every event (dbt --full-refresh); a first build has nothing to keep."""
    m = _manifest()
    before = _fingerprint(m, {"a": "1", "b": "1"})
    edited = json.loads(json.dumps(m))
    edited["nodes"]["model.p.int_x"]["checksum"] = {"sha256": "edited"}
    assert plan({**before, "project": "q"}, before, m, EXPLICIT).full_refresh
    assert plan(before, before, m, FORCE).full_refresh
    assert not plan(before, None, m, EXPLICIT).full_refresh
    assert not plan(_fingerprint(edited, {"a": "1", "b": "1"}), before, edited, EXPLICIT).full_refresh
    assert not plan(_fingerprint(m, {"a": "2", "b": "1"}), before, m, EXPLICIT).full_refresh


def test_a_bad_unit_test_setting_is_one_line(monkeypatch):
    from peerlake.warehouse import settings

    monkeypatch.setenv("PEERLAKE_DBT_UNIT_TESTS", "sometimes")
    with pytest.raises(settings.SettingError, match="PEERLAKE_DBT_UNIT_TESTS='sometimes': expected one of"):
        settings.dbt_unit_tests()
    monkeypatch.setenv("PEERLAKE_DBT_UNIT_TESTS", " ALL ")
    assert settings.dbt_unit_tests() == "all"
