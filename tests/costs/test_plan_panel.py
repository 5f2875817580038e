"""The dry run of a judge panel: every member is estimated, each under its own identity and label, and two
members on one model stay apart; a study without a panel estimates exactly as before panels (#45)."""

import pytest

from peerlake.costs.estimate import ToJudge, grouped, load_history
from peerlake.costs.plan import judge_estimate
from peerlake.judging.base import JudgeConfig
from peerlake.judging.registry import judges
from peerlake.studies import parse_study
from peerlake.warehouse.log import EventLog
from tests.costs.test_estimate import JUDGE_TEMPLATE, gateway_of, judgment

JUDGING = ('name = "s"\njudges = ["constructiveness"]\n[papers]\ncorpus = "demo"\n'
           '[judging]\nprovider = "openai"\nmodel = "gpt-test"\nmax_output_tokens = 700\n')
PANEL = JUDGING + '[[judging.panel]]\nname = "t0"\n[[judging.panel]]\nname = "t07"\ntemperature = 0.7\n'
REVIEWS = [ToJudge("human:a", 500), ToJudge("human:b", 500)]


@pytest.fixture
def log(lake):
    return EventLog(lake)


def _config_id(temperature: float) -> str:
    cfg = JudgeConfig(provider="openai", model="gpt-test", temperature=temperature, max_output_tokens=700)
    return cfg.identity("constructiveness", judges()["constructiveness"].TEMPLATES)


def test_each_member_is_estimated_and_a_finished_member_replays(log):
    # t0 judged both reviews before (the study's one judge until the panel was added): its calls replay
    for subject in ("human:a", "human:b"):
        log.append(judgment(subject, config=_config_id(0.0)))
    study = parse_study("s", PANEL)
    rows = judge_estimate(log, study, gateway_of(log), "constructiveness", REVIEWS, load_history(log))
    # no history of calls per review: 1 per review and template, so 2 calls per member
    got = sorted((r["judge_label"], r["prompt_template"], r["new"], r["calls"]) for r in rows)
    assert got == [("t0", JUDGE_TEMPLATE, False, 2), ("t07", JUDGE_TEMPLATE, True, 2)]
    assert {r["model"] for r in rows} == {"gpt-test"}
    # one model, two members: two groups, not one of 4 calls
    groups = grouped(rows)
    assert [(g["judge_label"], g["new_calls"], g["replayed_calls"]) for g in groups] == [("t0", 0, 2), ("t07", 2, 0)]
    assert groups[0]["est_cost_usd"] == 0.0 and groups[1]["est_cost_usd"] > 0


def test_a_study_without_a_panel_has_no_label_in_its_rows_or_groups(log):
    study = parse_study("s", JUDGING)
    rows = judge_estimate(log, study, gateway_of(log), "constructiveness", REVIEWS, load_history(log))
    assert len(rows) == 1 and "judge_label" not in rows[0]
    (group,) = grouped(rows)
    assert list(group)[:5] == ["asset", "purpose", "prompt_template", "provider", "model"]
    assert "judge_label" not in group and group["new_calls"] == 2


def test_a_fresh_lake_says_the_human_reviews_to_ingest_are_not_estimated(log):
    # judges only, on the demo corpus' human reviews, none ingested yet: no call can be counted, and the
    # estimate says why instead of reading as $0
    from peerlake.costs.plan import study_estimate

    study = parse_study("s", JUDGING.replace("[judging]\n", '[judging]\npapers = ["demo-001", "demo-002"]\n'
                                                         'sources = ["human"]\n'))
    est = study_estimate(log, study, gateway_of(log))
    assert [r for r in est.rows if r["calls"] and r["purpose"].startswith("judge")] == []
    (note,) = [n for n in est.notes if n.startswith("judges:")]
    assert "human reviews of 2 papers the run will ingest first (demo-001, demo-002)" in note
    ai_only = parse_study("s", JUDGING.replace("[judging]\n", '[judging]\nsources = ["peerlake"]\n'))
    assert not [n for n in study_estimate(log, ai_only, gateway_of(log)).notes if n.startswith("judges:")]
