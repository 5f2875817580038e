"""The dry-run estimate of reviewer systems: rows per (run, planned step) from a toy system whose plan this test
sets, output tokens from the log's system_step history (worked by hand), the stated defaults without it, a
run whose review is already recorded replays at no cost, and `study_estimate` lists the systems' rows.

Prices (tests/costs/test_estimate.py's table): input $0.001, output $0.002 per token.
"""

import pytest

from peerlake.costs.estimate import load_history
from peerlake.costs.systems import system_rows
from peerlake.reviewing.systems import register
from peerlake.reviewing.systems.base import PlannedStep, ReviewerSystem, SystemConfig, SystemRun
from peerlake.warehouse.events import LlmCall, SystemReviewRecorded
from peerlake.warehouse.log import EventLog
from tests.costs.test_estimate import gateway_of


class PlanToy(ReviewerSystem):
    """Never runs; its plan: 2 drafts of 400 characters (≤ 500 tokens out), 1 final of 1,000 (≤ 200), an idle step."""

    name = "plantoy"
    version = 1
    planned = 0  # how often plan() ran (the base class's `defaults` is {}: no option)

    def templates(self, opts):
        return []

    def plan(self, opts, package, provider):
        PlanToy.planned += 1
        return [PlannedStep("draft", 2, 400, 500), PlannedStep("final", 1, 1000, 200), PlannedStep("idle", 0, 9, 9)]


@pytest.fixture
def log(lake):
    register(PlanToy())
    PlanToy.planned = 0
    return EventLog(lake)


def runs(samples=2, package="pk"):
    cfg = SystemConfig(system="plantoy", provider="openai", model="gpt-test", samples=samples)
    return [SystemRun(cfg=cfg, system_config="cfg-x", paper_id="p1", title=None, package=None, package_sha256=package,
                      sample=k) for k in range(samples)]


def past_draft(log, output_tokens: int) -> None:
    """An answered draft call (its request blob absent: it gives no tokens-per-character ratio)."""
    log.append(LlmCall(
        request_key=f"k{output_tokens}", prompt_template="plantoy_draft", prompt_hash="h", reviewer_config="cfg-x",
        purpose="system_step", subject_id="p0", sample_index=0, provider="openai", model="gpt-test", params_json="{}",
        request_sha256="0" * 64, response_sha256=None, response_text="x", finish_reason="stop", input_tokens=90,
        cached_input_tokens=0, cache_write_tokens=0, output_tokens=output_tokens, reasoning_tokens=0, cost_usd=0.0,
        cost_status="priced", price_table_version="t", latency_ms=1.0, attempt=1, status="ok", system="plantoy",
        step="draft", round=0))


def recorded(log, sample: int, package: str = "pk") -> None:
    log.append(SystemReviewRecorded(
        review_key=f"rk{sample}{package}", system="plantoy", system_config="cfg-x", system_version=1, paper_id="p1",
        package_sha256=package, sample_index=sample, provider="openai", model="gpt-test", status="null",
        null_reason="final: unparseable", review_json="{}", score=None, score_scale=None, confidence=None,
        calls_json="[]", options_json="{}"))


def test_rows_per_run_and_step_from_the_plan_and_the_step_history(log):
    for out in (100, 200, 300):
        past_draft(log, out)
    rows = system_rows(runs(), gateway_of(log), load_history(log))
    # 2 samples × 2 steps (the idle step plans no call); one plan for the two samples of one package
    assert [(r["sample_index"], r["step"], r["calls"]) for r in rows] == [(0, "draft", 2), (0, "final", 1),
                                                                           (1, "draft", 2), (1, "final", 1)]
    assert PlanToy.planned == 1
    draft, final = rows[0], rows[1]
    assert (draft["asset"], draft["purpose"], draft["system"], draft["system_config"], draft["new"]) == (
        "system_reviews", "system_step", "plantoy", "cfg-x", True)
    # draft input: 2 × 400 = 800 chars × default 0.20 / 0.25 / 0.33 tokens per char = 160 / 200 / 264
    assert (draft["est_input_tokens_lo"], draft["est_input_tokens"], draft["est_input_tokens_hi"]) == pytest.approx(
        (160, 200, 264))
    # draft output per call: history 100, 200, 300 → mean 200, 10th pct 120, 90th 280; × 2 calls
    assert (draft["est_output_tokens_lo"], draft["est_output_tokens"], draft["est_output_tokens_hi"]) == pytest.approx(
        (240, 400, 560))
    # cost 200·0.001 + 400·0.002 = 1.00; lo 0.16 + 0.48 = 0.64; hi 0.264 + 1.12 = 1.384
    assert (draft["est_cost_lo_usd"], draft["est_cost_usd"], draft["est_cost_hi_usd"]) == pytest.approx(
        (0.64, 1.00, 1.384))
    assert draft["basis"] == "plan 2 call(s) × 400 chars; input default; output history:3"
    # final: no history of its step → the default share 0.25 / 0.60 / 1.00 of 200 = 50 / 120 / 200;
    # input 1000 chars → 200 / 250 / 330; cost 0.25 + 0.24 = 0.49 (lo 0.2 + 0.1 = 0.30, hi 0.33 + 0.4 = 0.73)
    assert (final["est_output_tokens_lo"], final["est_output_tokens"], final["est_output_tokens_hi"]) == pytest.approx(
        (50, 120, 200))
    assert (final["est_cost_lo_usd"], final["est_cost_usd"], final["est_cost_hi_usd"]) == pytest.approx(
        (0.30, 0.49, 0.73))
    assert final["basis"].endswith("output default") and final["request_key"] is None


def test_a_recorded_review_replays_and_a_new_package_does_not(log):
    recorded(log, 0)  # sample 0 of this package is in the log (null reviews too: the chain replays)
    recorded(log, 1, package="older")  # sample 1 was of an older version of the paper
    rows = system_rows(runs(), gateway_of(log), load_history(log))
    assert [(r["sample_index"], r["new"], r["est_cost_usd"]) for r in rows][:2] == [(0, False, 0.0), (0, False, 0.0)]
    assert all(r["new"] and r["est_cost_usd"] > 0 for r in rows if r["sample_index"] == 1)
    assert system_rows([], gateway_of(log), load_history(log)) == []


def test_the_dry_run_lists_the_studys_systems(log, tmp_path):
    import shutil

    from peerlake.costs.plan import study_estimate
    from peerlake.ingest.demo_corpus import demo_papers
    from peerlake.ingest.papers import ingest_pdf
    from peerlake.studies import parse_study

    folder = tmp_path / "pdfs"
    folder.mkdir()
    shutil.copy(demo_papers()[0], folder / "mine.pdf")
    ingest_pdf(log, folder / "mine.pdf")
    study = parse_study("mine", f'name = "mine"\n[papers]\nfolders = ["{folder}"]\n[[reviewers]]\n'
                                'system = "plantoy"\nprovider = "openai"\nmodel = "gpt-test"\nsamples = 2\n')
    est = study_estimate(log, study, gateway_of(log))
    systems = [r for r in est.rows if r["asset"] == "system_reviews"]
    assert [(r["step"], r["calls"], r["new"]) for r in systems] == [("draft", 2, True), ("final", 1, True)] * 2
    assert not [r for r in est.rows if r["asset"] == "ai_reviews"]  # the study names no template reviewer
    assert est.totals()["new_calls"] == 6
    assert any("reviewer systems" in n for n in est.notes)
