"""Bias probes: the variants (padding, shuffled comments) worked by hand, and each probe through the real
gateway and event log with scripted answers: re-keyed, tagged, recorded, originals untouched."""

import json

import pytest

from peerlake.judging import constructiveness, flaws, probes
from peerlake.judging.probes import NEUTRAL_SENTENCES, model_family, pad, run_probe, shuffle_comments
from tests.judging.support import make_review, record
from tests.judging.test_flaws import H1, H2, POOL, S1, _ingest_paper, _script_pool

REVIEW = make_review(("summary", "A gated adapter."),
                     ("weaknesses", "- Only CIFAR-10.\n- One seed.\n- Old baselines."),
                     ("rating", "6: marginally above"), key="peerlake:abc", source="peerlake", system="cfg")


def test_pad_inserts_the_fixed_sentences_as_paragraphs_and_nothing_else():
    v = pad(REVIEW, "constructiveness", seed=0)
    assert v.review_key == REVIEW.review_key and v.fields == ("summary", "weaknesses")  # the rating is never read
    added = [p for _, body in v.sections for p in body.split("\n\n")
             if p not in ("A gated adapter.", "- Only CIFAR-10.\n- One seed.\n- Old baselines.")]
    assert len(added) == probes.PAD_SENTENCES and len(set(added)) == 3 and set(added) <= set(NEUTRAL_SENTENCES)
    # removing the padding gives the review back, word for word
    stripped = tuple((f, "\n\n".join(p for p in body.split("\n\n") if p not in NEUTRAL_SENTENCES))
                     for f, body in v.sections)
    assert stripped == REVIEW.for_judge("constructiveness").sections
    assert pad(REVIEW, "constructiveness", seed=0) == v  # seeded: the same variant every run
    assert pad(REVIEW, "constructiveness", seed=1) != v


def test_shuffle_reorders_each_sections_comments_and_skips_a_review_with_none_to_reorder():
    v = shuffle_comments(REVIEW, "constructiveness", seed=0)
    summary, weaknesses = dict(v.sections)["summary"], dict(v.sections)["weaknesses"]
    assert summary == "A gated adapter."
    items = weaknesses.split("\n")  # a list stays a list, one item per line
    assert sorted(items) == sorted(["- Only CIFAR-10.", "- One seed.", "- Old baselines."])
    assert items != ["- Only CIFAR-10.", "- One seed.", "- Old baselines."]
    one = make_review(("summary", "Short."), ("weaknesses", "One point only."), key="human:x")
    assert shuffle_comments(one, "constructiveness") is None


def test_items_split_paragraphs_and_list_items():
    assert probes.items("A.\n\nB.\n- c\n* d\n1. e\nstill e") == ["A.", "B.", "- c", "* d", "1. e\nstill e"]


def test_length_probe_on_constructiveness_is_recorded_as_a_tagged_variant(make_judge_ctx, judge_server, judge_log):
    ok = {"actionability": 1, "specificity": 1, "justification": 1, "solution": 1, "tone": 1}
    # the original and the variant told apart by a neutral sentence the padded review alone holds
    judge_server.answer("judge_constructiveness_comments", "I have tried to state", reply={"comments": [
        {"section": "weaknesses", "text": "More data.", "anchor_quote": "Only CIFAR-10.", **ok},
        {"section": "weaknesses", "text": "More seeds.", "anchor_quote": "One seed.", **ok}]})
    judge_server.answer("judge_constructiveness_comments", "gated adapter", reply={"comments": [
        {"section": "weaknesses", "text": "More data.", "anchor_quote": "Only CIFAR-10.", **ok}]})
    ctx = make_judge_ctx(constructiveness)
    (original,) = constructiveness.judge(ctx, [REVIEW])
    seed = next(s for s in range(20) if "I have tried to state" in pad(REVIEW, "constructiveness", s).text)
    (variant,) = run_probe(ctx, constructiveness, "length", [REVIEW], seed=seed)
    assert variant.subject_key == "probe:length:peerlake:abc" and original.subject_key == "peerlake:abc"
    assert variant.inputs["probe"] == {"name": "length", "original_subject": "peerlake:abc", "seed": seed}
    assert variant.inputs["chars"] > original.inputs["chars"]
    _, events = record(ctx, constructiveness, [original, variant])
    assert [e.subject_key for e in events] == ["peerlake:abc", "probe:length:peerlake:abc"]
    assert len({e.judge_config for e in events}) == 1  # the same judge configuration
    m0 = probes.measures("constructiveness", "comments", json.loads(events[0].units_json), {})
    m1 = probes.measures("constructiveness", "comments", json.loads(events[1].units_json), {})
    assert (m0, m1) == ({"n_comments": 1.0, "mcs": 0.5}, {"n_comments": 2.0, "mcs": 0.5})


def test_pool_order_shows_the_system_review_first(judge_log, judge_server, make_judge_ctx):
    _ingest_paper(judge_log)
    _script_pool(judge_server)
    ctx = make_judge_ctx(flaws)
    out = run_probe(ctx, flaws, "pool_order", [H1, H2, S1])
    pool = next(j for j in out if j.step == "pool")
    assert pool.subject_key == f"probe:pool_order:{POOL}"
    assert [m["review_key"] for m in pool.inputs["members"]] == ["peerlake:k1", "human:h1", "human:h2"]
    (body,) = judge_server.bodies_for("judge_flaws_extract")
    prompt = judge_server.prompt(body)
    assert prompt.index("Typos throughout.") < prompt.index("A method for X.")  # R1 is the system review now
    orders = sorted(j.subject_key for j in out if j.step == "order")
    assert orders == [f"probe:pool_order:{POOL}|{k}" for k in ("human:h1", "human:h2", "peerlake:k1")]


def test_candidate_order_lists_the_valid_flaws_last_first(judge_log, judge_server, make_judge_ctx):
    _ingest_paper(judge_log)
    _script_pool(judge_server)
    ctx = make_judge_ctx(flaws)
    run_probe(ctx, flaws, "candidate_order", [H1, H2, S1])
    for body in judge_server.bodies_for("judge_flaws_order"):
        listed = judge_server.prompt(body)
        assert listed.index("F3 Typos") < listed.index("F1 Single dataset")


def test_a_probe_that_does_not_apply_to_a_judge_makes_no_call(make_judge_ctx, judge_server):
    assert run_probe(make_judge_ctx(constructiveness), constructiveness, "pool_order", [REVIEW]) == []
    assert judge_server.requests == 0
    with pytest.raises(ValueError, match="unknown probe"):
        run_probe(make_judge_ctx(constructiveness), constructiveness, "verbosity", [REVIEW])


@pytest.mark.parametrize(("model", "family"), [
    ("qwen2.5-1.5b-instruct-q4_k_m.gguf", "qwen"), ("Qwen/Qwen2.5-7B-Instruct", "qwen"), ("gpt-4.1", "openai"),
    ("o3-mini", "openai"), ("claude-sonnet-4", "anthropic"), ("google/gemini-2.5-pro", "google"),
    ("XiaomiMiMo/MiMo-7B", "xiaomi-mimo"), ("judge-test-model", None), (None, None)])
def test_model_family(model, family):
    assert model_family(model) == family


def test_tolerance_prefers_the_most_specific_declaration():
    assert probes.tolerance("length", "mcs") == 0.05 and probes.tolerance("length", "n_comments") == 1.0
    assert probes.tolerance("length", "mcs", {"length": 0.2}) == 0.2
    assert probes.tolerance("length", "mcs", {"length": 0.2, "length.mcs": 0.01}) == 0.01
    assert probes.tolerance("self_preference", "doa") == probes.SELF_PREFERENCE_TOLERANCE


def test_length_on_flaws_pads_the_system_review_only(judge_log, judge_server, make_judge_ctx):
    _ingest_paper(judge_log)
    _script_pool(judge_server)
    ctx = make_judge_ctx(flaws)
    (original,) = [j for j in flaws.judge(ctx, [H1, H2, S1]) if j.step == "pool"]
    (variant,) = [j for j in run_probe(ctx, flaws, "length", [H1, H2, S1]) if j.step == "pool"]
    chars = {m["review_key"]: m["chars"] for m in original.inputs["members"]}
    padded = {m["review_key"]: m["chars"] for m in variant.inputs["members"]}
    assert padded["human:h1"] == chars["human:h1"] and padded["human:h2"] == chars["human:h2"]
    prompt = judge_server.prompt(judge_server.bodies_for("judge_flaws_extract")[-1])  # the variant's pool
    added = [s for s in NEUTRAL_SENTENCES if s in prompt]  # each a paragraph: its text and a blank line
    assert padded["peerlake:k1"] == chars["peerlake:k1"] + sum(len(s) + 2 for s in added) and len(added) == 3
