"""The run estimator: tokens and cost from the log's own history (worked by hand here), the stated
defaults without history, and the split between new calls and calls the log already answers.

Prices in a test table: input $1000, output $2000 per million tokens = $0.001 and $0.002 per token.
"""

import json

import pytest

from peerlake.costs.estimate import Estimate, ToJudge, grouped, judge_rows, load_history, request_rows, run_estimated
from peerlake.judging.base import JudgeConfig
from peerlake.llm_calls.cost import parse_price_table
from peerlake.llm_calls.gateway import Gateway
from peerlake.llm_calls.providers.openai_chat import OpenAIProvider
from peerlake.llm_calls.types import LlmRequest
from peerlake.warehouse.events import JudgmentRecorded, LlmCall
from peerlake.warehouse.log import EventLog

TABLE = parse_price_table('version = "estimate-test-1"\n[[openai."gpt-test"]]\neffective_from = 2000-01-01\n'
                          'checked = 2000-01-01\ninput = 1000.0\noutput = 2000.0\n')
JUDGE_TEMPLATE = "judge_constructiveness_comments"


@pytest.fixture
def log(lake):
    return EventLog(lake)


def gateway_of(log) -> Gateway:
    """Made after the history is written: a gateway indexes the log when it starts. No call is made:
    the provider only names the endpoint a request is keyed with."""
    return Gateway(log, providers={"openai": OpenAIProvider(base_url="http://127.0.0.1:9/v1")}, price_table=TABLE)


def req(i: int, chars: int = 1000, max_tokens: int = 600, template: str = "review_v1") -> LlmRequest:
    return LlmRequest(provider="openai", model="gpt-test", messages=({"role": "user", "content": "x" * chars},),
                      params={"max_tokens": max_tokens, "seed": i}, sample_index=i, prompt_template=template,
                      prompt_hash="h", subject_id="paper-1")


def past_call(log, r: LlmRequest, input_tokens: int, output_tokens: int, purpose: str = "review") -> LlmCall:
    """An ok call as the gateway records it: the request blob is what history reads its length from."""
    sha = log.blobs.put_text(json.dumps(r.canonical()))
    return log.append(LlmCall(
        request_key=r.request_key, prompt_template=r.prompt_template, prompt_hash="h", reviewer_config="c",
        purpose=purpose, subject_id=r.subject_id, sample_index=r.sample_index, provider=r.provider, model=r.model,
        params_json="{}", request_sha256=sha, response_sha256=None, response_text="{}", finish_reason="stop",
        input_tokens=input_tokens, cached_input_tokens=0, cache_write_tokens=0, output_tokens=output_tokens,
        reasoning_tokens=0, cost_usd=0.0, cost_status="priced", price_table_version="t", latency_ms=1.0, attempt=1,
        status="ok"))


def test_history_gives_tokens_per_character_and_output_tokens(log):
    # five past calls of 100 characters: input tokens 20..40 -> ratios 0.20, 0.25, 0.30, 0.35, 0.40
    # (mean 0.30; 10th pct 0.20 + 0.4·0.05 = 0.22; 90th pct 0.35 + 0.6·0.05 = 0.38);
    # output tokens 100..500 (mean 300; 10th pct 100 + 0.4·100 = 140; 90th pct 400 + 0.6·100 = 460)
    for i, (inp, out) in enumerate(zip((20, 25, 30, 35, 40), (100, 200, 300, 400, 500), strict=True)):
        past_call(log, req(100 + i, chars=100), inp, out)
    (row,) = request_rows("ai_reviews", [req(0, chars=1000)], gateway_of(log), load_history(log))
    # 1000 characters: input 300 (220..380); output 300 (140..460), under max_tokens 600
    assert (row["est_input_tokens"], row["est_input_tokens_lo"], row["est_input_tokens_hi"]) == pytest.approx(
        (300, 220, 380))
    assert (row["est_output_tokens"], row["est_output_tokens_lo"], row["est_output_tokens_hi"]) == pytest.approx(
        (300, 140, 460))
    # cost 300·0.001 + 300·0.002 = 0.90; lo 0.22 + 0.28 = 0.50; hi 0.38 + 0.92 = 1.30
    assert (row["est_cost_usd"], row["est_cost_lo_usd"], row["est_cost_hi_usd"]) == pytest.approx((0.90, 0.50, 1.30))
    assert row["new"] and row["basis"] == "input history:5; output history:5"


def test_without_enough_history_the_stated_defaults_apply(log):
    past_call(log, req(100, chars=100), 20, 100)
    past_call(log, req(101, chars=100), 25, 200)  # two calls: fewer than MIN_HISTORY (3)
    (row,) = request_rows("ai_reviews", [req(0, chars=1000, max_tokens=600)], gateway_of(log), load_history(log))
    # input 1000 chars × (0.20, 0.25, 0.33) = 200, 250, 330; output 600 × (0.25, 0.60, 1.00) = 150, 360, 600
    assert (row["est_input_tokens_lo"], row["est_input_tokens"], row["est_input_tokens_hi"]) == pytest.approx(
        (200, 250, 330))
    assert (row["est_output_tokens_lo"], row["est_output_tokens"], row["est_output_tokens_hi"]) == pytest.approx(
        (150, 360, 600))
    # cost 250·0.001 + 360·0.002 = 0.97; lo 0.20 + 0.30 = 0.50; hi 0.33 + 1.20 = 1.53
    assert (row["est_cost_usd"], row["est_cost_lo_usd"], row["est_cost_hi_usd"]) == pytest.approx((0.97, 0.50, 1.53))
    assert row["basis"] == "input default; output default"


def test_calls_already_in_the_log_are_replays_and_cost_nothing(log):
    requests = [req(i) for i in range(3)]
    past_call(log, gateway_of(log).bind(requests[0]), 250, 360)  # request 0 is answered: it will replay
    rows = request_rows("ai_reviews", requests, gateway_of(log), load_history(log))
    assert [r["new"] for r in rows] == [False, True, True]
    assert rows[0]["est_cost_usd"] == 0.0
    (group,) = grouped(rows)
    # two new calls at the default estimate: 2 × 0.97 = 1.94; the replay adds 0
    assert (group["new_calls"], group["replayed_calls"]) == (2, 1)
    assert group["est_cost_usd"] == pytest.approx(1.94)
    ev = log.append(run_estimated(Estimate(study="s", rows=rows), dagster_run_id=None))
    (back,) = EventLog(log.lake).iter_events("run_estimated")
    assert (back.estimate_id, back.dagster_run_id, back.new_calls, back.replayed_calls) == (ev.estimate_id, None, 2, 1)
    assert back.est_cost_usd == pytest.approx(1.94) and back.method == "history:v1"
    assert len(json.loads(back.rows_json)) == 3


def judgment(subject: str, config: str = "cfg1") -> JudgmentRecorded:
    return JudgmentRecorded(judgment_key=f"k-{subject}", judge="constructiveness", step="comments",
                            judge_config=config, subject_key=subject, paper_id="p", repeat=0, status="ok",
                            null_reason=None, units_json="[]", dropped_json="{}", llm_call_ids_json="[]",
                            request_keys_json="[]")


def test_judge_calls_per_review_come_from_the_judged_reviews_in_the_log(log):
    # two reviews judged, four comment calls of 1000 input and 100 output tokens: 2 calls per review
    for subject in ("human:a", "human:b"):
        log.append(judgment(subject))
    for i in range(4):
        past_call(log, req(200 + i, template=JUDGE_TEMPLATE), 1000, 100, purpose="judge_constructiveness_comments")
    cfg = JudgeConfig(provider="openai", model="gpt-test", max_output_tokens=700)
    reviews = [ToJudge("human:a", 500), ToJudge("human:c", 500), ToJudge("human:d", 500)]
    new, done = judge_rows("constructiveness", (JUDGE_TEMPLATE,), cfg, "cfg1", reviews, gateway_of(log),
                           load_history(log))
    # new: human:c and human:d, 2 calls each = 4 calls; input 4 × 1000, output 4 × 100
    assert (new["new"], new["calls"], new["est_input_tokens"], new["est_output_tokens"]) == (True, 4, 4000, 400)
    # cost 4000·0.001 + 400·0.002 = 4.00 + 0.80 = 4.80
    assert new["est_cost_usd"] == pytest.approx(4.80)
    # human:a is already judged under cfg1: its 2 calls replay
    assert (done["new"], done["calls"], done["est_cost_usd"]) == (False, 2, 0.0)


def test_judge_calls_without_history_default_to_one_per_template(log):
    from peerlake.prompts import load_template

    cfg = JudgeConfig(provider="openai", model="gpt-test", max_output_tokens=700)
    (row,) = judge_rows("constructiveness", (JUDGE_TEMPLATE,), cfg, "cfg1", [ToJudge("human:a", 1000)],
                        gateway_of(log), load_history(log))
    template_chars = len(load_template(JUDGE_TEMPLATE).source)
    # one call reading the review (1000 chars) and the template at 0.25 tokens per char; output 0.6 × 700 = 420
    assert row["calls"] == 1 and row["est_input_tokens"] == pytest.approx(round((1000 + template_chars) * 0.25, 1))
    assert row["est_output_tokens"] == pytest.approx(420)
    assert "calls/review default" in row["basis"]


def test_an_unpriced_model_has_no_cost_estimate_not_zero(log):
    r = LlmRequest(provider="openai", model="unpriced", messages=({"role": "user", "content": "hi"},),
                   params={"max_tokens": 10})
    (row,) = request_rows("ai_reviews", [r], gateway_of(log), load_history(log))
    assert row["est_cost_usd"] is None
    assert grouped([row])[0]["unpriced_calls"] == 1


def test_a_long_tail_widens_the_interval_to_hold_the_mean():
    from peerlake.costs.estimate import spread

    # nineteen 1s and one 1000: mean (19 + 1000) / 20 = 50.95, but the 90th percentile (position
    # 0.9 · 19 = 17.1, between two 1s) is 1: the interval's top is raised to the mean
    s = spread([1.0] * 19 + [1000.0])
    assert (s.lo, s.mid, s.hi) == pytest.approx((1.0, 50.95, 50.95))


def test_a_pool_judgment_counts_each_member_review_as_judged(log):
    # the flaws judge records one judgment per pool; its inputs name the member reviews
    members = {"members": [{"label": "R1", "review_key": "human:a"}, {"label": "R2", "review_key": "peerlake:k"}]}
    log.append(JudgmentRecorded(judgment_key="pool-1", judge="flaws", step="pool", judge_config="cfg1",
                                subject_key="pool:p1|sys", paper_id="p1", repeat=0, status="ok", null_reason=None,
                                units_json="[]", dropped_json="{}", llm_call_ids_json="[]", request_keys_json="[]",
                                inputs_json=json.dumps(members)))
    for i in range(3):
        past_call(log, req(300 + i, template="judge_flaws_extract"), 1000, 100, purpose="judge_flaws_extract")
    cfg = JudgeConfig(provider="openai", model="gpt-test", max_output_tokens=700)
    reviews = [ToJudge("human:a", 500), ToJudge("peerlake:k", 500), ToJudge("human:z", 500)]
    new, done = judge_rows("flaws", ("judge_flaws_extract",), cfg, "cfg1", reviews, gateway_of(log),
                           load_history(log))
    # 3 extract calls over the 2 member reviews: 1.5 calls per review; human:z alone is new
    assert (new["new"], new["calls"]) == (True, 1.5)
    assert (done["new"], done["calls"], done["est_cost_usd"]) == (False, 3.0, 0.0)


def test_pdfs_not_ingested_yet_are_estimated_with_the_requests_the_run_will_make(log, tmp_path):
    import shutil

    from peerlake.costs.plan import study_estimate
    from peerlake.ingest.demo_corpus import demo_papers
    from peerlake.ingest.papers import ingest_pdf
    from peerlake.reviewing.scoring import review_requests
    from peerlake.studies import parse_study, resolve_papers, with_study

    folder = tmp_path / "pdfs"
    folder.mkdir()
    for src in demo_papers()[:2]:
        shutil.copy(src, folder / f"mine-{src.stem}.pdf")
    (folder / "broken.pdf").write_bytes(b"not a pdf at all")  # left out of the estimate, with a note
    study = parse_study("mine", f'name = "mine"\n[papers]\nfolders = ["{folder}"]\n[[reviewers]]\n'
                                'provider = "openai"\nmodel = "gpt-test"\nsamples = 2\n')
    est = study_estimate(log, study, gateway_of(log))  # nothing ingested: packaged in memory
    estimated = {r["request_key"] for r in est.rows if r["asset"] == "ai_reviews"}
    assert len(estimated) == 4 and all(r["new"] for r in est.rows)  # 2 papers × 2 samples
    assert any("packaged in memory" in n for n in est.notes)
    assert any("could not be read" in n and "broken.pdf" in n for n in est.notes)
    # What the run makes after ingesting them: the very same requests.
    for pdf in sorted(folder.glob("*.pdf")):
        ingest_pdf(log, pdf)
    gw = gateway_of(log)
    made = with_study([r for p in resolve_papers(log, study).manuscripts
                       for r in review_requests(log, p, study.reviewer_configs()[0])], study)
    assert {gw.bind(r).request_key for r in made} == estimated
