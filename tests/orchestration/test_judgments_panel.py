"""A judge panel through `peerlake run` (#45): a study with one judge runs, then gains a second member (the
same hosted model at another temperature). The first member has the old judge's settings, so it keeps its
identity (pinned below), its calls replay and its judgments are not written again: the second run makes
exactly the new member's calls. The `judgments` resolution lists the judge once per member with its label
and whether it is primary; the study without a panel resolves as before panels (no label, no primary).

The loopback server answers each judge call with a small instance of the schema it asks for; the marts are
left out (--no-build): what is checked here is which calls are made and under which identity."""

import json

import pytest

from peerlake.studies import save_study
from peerlake.warehouse import EventLog, Lake
from tests.doubles.fake_server import FakeLlmServer, Reply
from tests.judging.support import schema_instance
from tests.orchestration.conftest import run_cli

PAPER = "demo-001"
STUDY = "panel"
SINGLE = f"""name = "{STUDY}"
judges = ["constructiveness"]
reviewers = []

[papers]
corpus = "demo"

[judging]
papers = ["{PAPER}"]
sources = ["human"]
human_per_paper = 2
provider = "openai"
model = "gpt-4.1-mini"
temperature = 0.7
"""
# the first member repeats the [judging] keys: the single judge's settings, so its identity
PANEL = SINGLE + '\n[[judging.panel]]\nname = "t07"\n\n[[judging.panel]]\nname = "t0"\ntemperature = 0\n'
# JudgeConfig.identity("constructiveness", ...) of openai/gpt-4.1-mini at temperature 0.7 (max_output_tokens
# 700, the default), computed with the code of d78afcf before panels existed: written down, not recomputed
PINNED = "7eddc9909d3260dc"
LEGACY_ROW_KEYS = ["judge", "judge_config", "provider", "model", "repeats", "review_keys"]


class SchemaServer(FakeLlmServer):
    """Answers an OpenAI chat request with a small instance of the schema it asks for."""

    def _enter(self, body: dict) -> tuple[int, Reply]:
        number, _reply = super()._enter(body)
        fmt = body.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("schema") or {}
        payload = self.openai_answer(body, number)
        payload["choices"][0]["message"]["content"] = json.dumps(schema_instance(schema, "The paper is clear."))
        return number, Reply(body=payload)


def _judges_rows(lake_root) -> list[dict]:
    events = [e for e in EventLog(Lake(lake_root)).iter_events("study_resolved")
              if e.study_id == STUDY and e.asset == "judgments"]
    return json.loads(events[-1].judges_json)


@pytest.fixture(scope="module")
def panel_runs(tmp_path_factory):
    lake_root = tmp_path_factory.mktemp("judge_panel") / "lake"
    log = EventLog(Lake(lake_root).ensure())
    out = {"lake": lake_root}
    with SchemaServer() as server:
        env = {"PEERLAKE_HOME": str(lake_root), "PEERLAKE_DEMO_ONLY": PAPER,
               "OPENAI_API_KEY": "sk-test-judge-panel", "OPENAI_BASE_URL": server.openai_base_url}
        save_study(log, STUDY, SINGLE)
        out["single"] = run_cli(["run", STUDY, "--no-build"], env)
        out["single_requests"] = server.requests
        out["single_rows"] = _judges_rows(lake_root)
        out["single_judgments"] = list(EventLog(Lake(lake_root)).iter_events("judgment_recorded"))
        save_study(log, STUDY, PANEL)
        out["dry_run"] = run_cli(["run", STUDY, "--dry-run"], env)
        assert server.requests == out["single_requests"], "a dry run made a call"
        out["panel"] = run_cli(["run", STUDY, "--no-build"], env)
        out["bodies"] = list(server.bodies)
        out["panel_rows"] = _judges_rows(lake_root)
        out["judgments"] = list(EventLog(Lake(lake_root)).iter_events("judgment_recorded"))
    return out


def _ok(result):
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def test_a_study_without_a_panel_judges_and_resolves_as_before_panels(panel_runs):
    _ok(panel_runs["single"])
    judgments = panel_runs["single_judgments"]
    assert judgments and {j.judge_config for j in judgments} == {PINNED}
    (row,) = panel_runs["single_rows"]
    assert list(row) == LEGACY_ROW_KEYS  # no label, no primary: the row of before panels
    assert {k: row[k] for k in LEGACY_ROW_KEYS[:-1]} == {"judge": "constructiveness", "judge_config": PINNED,
                                                          "provider": "openai", "model": "gpt-4.1-mini", "repeats": 1}
    assert len(row["review_keys"]) == 2  # human_per_paper on one paper


def test_the_dry_run_shows_each_member_and_the_finished_one_in_the_log(panel_runs):
    run = panel_runs["dry_run"]
    _ok(run)
    assert "judge panel of 2 (t0, t07)" in run.stdout and "┃ judge " in run.stdout
    (estimate,) = [e for e in EventLog(Lake(panel_runs["lake"])).iter_events("run_estimated")
                   if e.dagster_run_id is None]
    rows = json.loads(estimate.rows_json)
    # t07 replays what the single judge made; t0 is new, one call per review (no history of calls per review)
    assert sorted((r["judge_label"], r["new"], r["calls"]) for r in rows) == [("t0", True, 2), ("t07", False, 2)]


def test_adding_a_member_pays_only_for_it_under_its_own_identity(panel_runs):
    _ok(panel_runs["panel"])
    before, bodies = panel_runs["single_requests"], panel_runs["bodies"]
    # the new member's calls alone: as many as the single judge made, each at its temperature
    new = bodies[before:]
    assert len(new) == before > 0
    assert {b["temperature"] for b in bodies[:before]} == {0.7} and {b["temperature"] for b in new} == {0}
    judgments = panel_runs["judgments"]
    old = panel_runs["single_judgments"]
    added = judgments[len(old):]
    assert [j.judgment_key for j in judgments[:len(old)]] == [j.judgment_key for j in old]
    configs = {j.judge_config for j in added}
    assert len(configs) == 1 and PINNED not in configs  # t07's judgments were not written again
    assert sorted((j.subject_key, j.repeat) for j in added) == sorted((j.subject_key, j.repeat) for j in old)


def test_the_resolution_lists_the_judge_once_per_member_primary_first(panel_runs):
    _ok(panel_runs["panel"])
    rows = panel_runs["panel_rows"]
    (t0_config,) = {j.judge_config for j in panel_runs["judgments"]} - {PINNED}
    assert [(r["judge"], r["label"], r["primary"], r["judge_config"], r["model"]) for r in rows] == [
        ("constructiveness", "t07", True, PINNED, "gpt-4.1-mini"),
        ("constructiveness", "t0", False, t0_config, "gpt-4.1-mini")]
    assert rows[0]["review_keys"] == rows[1]["review_keys"] == panel_runs["single_rows"][0]["review_keys"]
    assert "[t07]" in panel_runs["panel"].stdout and "[t0]" in panel_runs["panel"].stdout  # the run summary
