"""The stress suite's mention judge through the real gateway and event log, answers scripted at the network
edge: one judgment per (review of a built soundness variant, repeat) with the review's key as subject, the
problem sentence in the prompt, a verbatim quote kept and a made-up one dropped, every null path, and
nothing asked of a presentation variant, a variant that was not built or a base paper's review."""

import json

import pytest

from peerlake.judging import stress_mention
from peerlake.warehouse.events import PaperVariantRecorded
from tests.doubles.fake_server import Reply
from tests.judging.support import record

SCHEMA = "stress_mention_judge"
TABLE = "demo-1~stress-aaaaaaaaaa"
TYPOS = "demo-1~stress-bbbbbbbbbb"
PROBLEM = "Table 1, the paper's main table of results, was removed with its caption and the sentences citing it."


def variant(vid, family, *, built=True, problem=PROBLEM):
    d = {"family": family, "edit": "remove_main_table" if family == "soundness" else "typos", "params": {},
         "problem": problem if family == "soundness" else None, "checks": {}, "text_level": True}
    return PaperVariantRecorded(variant_key=vid[-10:] * 6 + "abcd", variant_id=vid if built else vid + "-x",
                                kind="stress", base_paper_id="demo-1", base_package_sha256="b" * 64,
                                experiment_config="e" * 16, built=built, reason=None if built else "no_table",
                                pdf_sha256="p" * 64 if built else None, package_sha256="k" * 64 if built else None,
                                details_json=json.dumps(d))


@pytest.fixture
def lake_with_variants(judge_log):
    judge_log.append_many([variant(TABLE, "soundness"), variant(TYPOS, "presentation"),
                           variant("demo-1~stress-cccccccccc", "soundness", built=False),
                           variant("demo-1~stress-dddddddddd", "soundness", problem="")])
    return judge_log


@pytest.fixture
def reviews(make_review):
    def review(key, paper, text):
        return make_review(("summary", "A paper on adapters."), ("weaknesses", text), key=key, paper_id=paper,
                           source="peerlake", system="cfg-a", sample_index=0)
    return [review("peerlake:found", TABLE, "The results are not shown in any table; the claims are unsupported."),
            review("peerlake:invented", TABLE, "Too few baselines."),
            review("peerlake:garbled", TABLE, "The writing is unclear."),
            make_review(key="peerlake:empty", paper_id=TABLE, source="peerlake", system="cfg-a", sample_index=1),
            review("peerlake:typos", TYPOS, "Many typos."),
            review("peerlake:noproblem", "demo-1~stress-dddddddddd", "Fine."),
            review("peerlake:base", "demo-1", "No table is missing here.")]


def test_each_review_of_a_soundness_variant_is_judged_per_repeat(lake_with_variants, judge_server, make_judge_ctx,
                                                                 reviews):
    judge_server.answer(SCHEMA, "not shown in any table",
                        reply={"quote": "The results are not shown in any table", "mentions": True})
    judge_server.answer(SCHEMA, "Too few baselines", reply={"quote": "the main table was removed", "mentions": True})
    judge_server.answer(SCHEMA, "The writing is unclear", reply={"quote": "", "mentions": "yes"})
    ctx = make_judge_ctx(stress_mention, repeats=2, temperature=0.5)
    judgments = stress_mention.judge(ctx, reviews, stress_mention.Spec())
    by = {(j.subject_key, j.repeat): j for j in judgments}
    # 5 reviews of built soundness variants × 2 repeats; the typo variant's and the base's are not asked
    assert sorted({k for k, _ in by}) == ["peerlake:empty", "peerlake:found", "peerlake:garbled",
                                          "peerlake:invented", "peerlake:noproblem"]
    assert len(judgments) == 10 and judge_server.requests == 6 and not judge_server.unmatched
    assert all(PROBLEM in json.dumps(b) for b in judge_server.bodies)
    assert by[("peerlake:found", 1)].units == [{"variant_id": TABLE, "edit": "remove_main_table",
                                                 "review_key": "peerlake:found", "mentions": True,
                                                 "quote": "The results are not shown in any table"}]
    invented = by[("peerlake:invented", 0)]
    assert invented.units[0]["quote"] is None and invented.units[0]["mentions"] is True
    assert invented.dropped == {"quote_not_verbatim": 1}
    assert by[("peerlake:garbled", 0)].null_reason == "unparseable:mention"
    assert by[("peerlake:empty", 0)].null_reason == "empty_review"
    assert by[("peerlake:noproblem", 1)].null_reason == "no_problem_text"
    assert {b["seed"] for b in judge_server.bodies} == {3000, 3001}  # repeat r is seed 3000 + r

    _, events = record(ctx, stress_mention, judgments)
    assert len(events) == 10 and {e.judge for e in events} == {"stress_mention"}
    assert {e.paper_id for e in events if e.subject_key == "peerlake:found"} == {TABLE}
    _, again = record(ctx, stress_mention, stress_mention.judge(ctx, reviews, stress_mention.Spec()))
    assert again == [] and judge_server.requests == 6  # replayed: nothing new


def test_a_failed_call_is_not_recorded(lake_with_variants, judge_server, make_judge_ctx, reviews):
    judge_server.answer(SCHEMA, "not shown in any table", reply=Reply(status=400))
    ctx = make_judge_ctx(stress_mention)
    judgments = stress_mention.judge(ctx, reviews[:1], stress_mention.Spec())
    assert len(judgments) == 1 and judgments[0].failed_call
    assert record(ctx, stress_mention, judgments)[1] == []


@pytest.mark.parametrize("chars", [0, -5, "many", True])
def test_review_chars_must_be_a_positive_whole_number(chars):
    with pytest.raises(ValueError, match=r"stress\.review_chars"):
        stress_mention.Spec.from_table({"review_chars": chars})
