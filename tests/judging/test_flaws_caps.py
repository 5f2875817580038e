"""Flaw identification, issue #24: the caps as settings (none on a hosted judge), one system review per
pool, quotes matched up to typography, each flaw mentioned once, and PRISM's validity wording. Scripted
answers through the real gateway, as tests/judging/test_flaws.py (whose reviews and answers these reuse)."""

from peerlake.judging import flaws
from peerlake.judging.base import JudgeConfig, judge_request
from tests.judging.support import assert_bounded, make_review
from tests.judging.test_flaws import EXTRACT, H1, H2, POOL, S1, _by, _ingest_paper, _script_pool

S1B = make_review(("concerns", "- A single dataset again.\n- Missing error bars."), key="peerlake:k1b", paper_id="P1",
                  source="peerlake", system="cfgA", sample_index=1)


def _max_tokens(body: dict) -> int:
    return body.get("max_completion_tokens", body.get("max_tokens"))


def _schema(body: dict) -> dict:
    return body["response_format"]["json_schema"]["schema"]


def test_a_hosted_judge_asks_for_all_flaws_with_no_bound_and_its_own_answer_budget(judge_log, judge_server,
                                                                                   make_judge_ctx):
    _ingest_paper(judge_log)
    _script_pool(judge_server)
    ctx = make_judge_ctx(flaws, max_output_tokens=8000)  # provider openai: no cap in force
    assert ctx.cfg.cap("flaws") is None and ctx.cfg.cap("flaw_raisers") is None
    out = flaws.judge(ctx, [H1, H2, S1])
    (extract,) = judge_server.bodies_for("judge_flaws_extract")
    prompt = judge_server.prompt(extract)
    assert "Extract ALL" in prompt and "no limit on their number" in prompt
    assert "At most" not in prompt and "most serious" not in prompt
    flaws_schema = _schema(extract)["properties"]["flaws"]
    assert "maxItems" not in flaws_schema and "maxItems" not in flaws_schema["items"]["properties"]["raised_by"]
    (validate,) = judge_server.bodies_for("judge_flaws_validate")
    evaluations = _schema(validate)["properties"]["evaluations"]
    assert "maxItems" not in evaluations and "enum" not in evaluations["items"]["properties"]["flaw_id"]
    # a budget sized for six flaws would cut a hosted answer listing seven: every step gets the judge's own
    for body in judge_server.bodies:
        assert _max_tokens(body) == 8000
    pool = _by(out, "pool")[POOL]
    assert pool.inputs["caps"] == {"flaws": None, "flaw_raisers": None}
    assert "over_max_flaws" not in pool.dropped and "over_max_raisers" not in pool.dropped


def test_caps_in_force_narrow_the_schemas_scale_the_budgets_and_count_what_they_cut(judge_log, judge_server,
                                                                                   make_judge_ctx):
    _ingest_paper(judge_log)
    _script_pool(judge_server)
    # max_output_tokens is a hosted judge's floor (judging.base.budgeted): set low, the cap's budgets show
    ctx = make_judge_ctx(flaws, caps=(("flaws", 2), ("flaw_raisers", 2)), max_output_tokens=50)
    out = flaws.judge(ctx, [H1, H2, S1])
    (extract,) = judge_server.bodies_for("judge_flaws_extract")
    prompt = judge_server.prompt(extract)
    assert "At most 2 flaws." in prompt and "At most 2 reviewers per flaw." in prompt
    assert "no limit" not in prompt and "most serious" not in prompt
    flaws_schema = _schema(extract)["properties"]["flaws"]
    assert flaws_schema["maxItems"] == 2 and flaws_schema["items"]["properties"]["raised_by"]["maxItems"] == 2
    assert _max_tokens(extract) == 100 + 100 * 2
    (validate,) = judge_server.bodies_for("judge_flaws_validate")
    evaluations = _schema(validate)["properties"]["evaluations"]
    assert evaluations["maxItems"] == 2 and evaluations["items"]["properties"]["flaw_id"]["enum"] == ["F1", "F2"]
    assert _max_tokens(validate) == 20 + 30 * 2
    for body in judge_server.bodies_for("judge_flaws_order"):
        mentions = _schema(body)["properties"]["mentions"]
        assert mentions["maxItems"] == 2 and mentions["items"]["properties"]["flaw_id"]["enum"] == ["F1", "F2"]
        assert _max_tokens(body) == 30 + 40 * 2

    pool = _by(out, "pool")[POOL]
    # EXTRACT lists five flaws: single dataset (R1, R2, R3), lemma (R1, R9), figure 3, typos, ablation. The
    # cap keeps the first two with a quote; the three after them are cut. Single dataset keeps R1 and R2: R3
    # is the third raiser. Lemma: R9 is no reviewer of the pool.
    assert pool.dropped == {"over_max_flaws": 3, "over_max_raisers": 1, "unknown_reviewer": 1}
    raises = [(u["flaw_id"], u["review_key"]) for u in pool.units if u["kind"] == "raise"]
    assert raises == [("F1", "human:h1"), ("F1", "human:h2"), ("F2", "human:h1")]
    assert pool.inputs["caps"] == {"flaws": 2, "flaw_raisers": 2}
    assert len(EXTRACT["flaws"]) == 5


def test_the_embedded_models_default_caps_give_bounded_schemas_for_grammar_decoding():
    cfg = JudgeConfig(provider="local", model="qwen")
    caps = (cfg.cap("flaws"), cfg.cap("flaw_raisers"))
    assert caps == (6, 6)
    reviews = [{"label": "R1", "text": "x"}]
    flaws_listed = [{"flaw_id": "F1", "topic": "methodology", "summary": "s"}]
    for step, template, variables in [
            ("extract", "judge_flaws_extract", {"reviews": reviews, "max_flaws": 6, "max_raisers": 6}),
            ("validate", "judge_flaws_validate", {"paper_text": "p", "flaws": flaws_listed}),
            ("order", "judge_flaws_order", {"review": "r", "flaws": flaws_listed})]:
        req = flaws._narrowed(judge_request(cfg, "flaws", step, template, subject_id="pool:x", **variables),
                              step, *caps)
        assert_bounded(req.response_schema)
        # and the stored schema itself carries no bound: only a cap in force adds one
        assert "maxItems" not in judge_request(cfg, "flaws", step, template, subject_id="pool:x",
                                               **variables).response_schema["properties"][
            {"extract": "flaws", "validate": "evaluations", "order": "mentions"}[step]]


def test_a_second_sample_leaves_the_first_pools_members_requests_and_rows_alone(judge_log, judge_server,
                                                                             make_judge_ctx):
    _ingest_paper(judge_log)
    _script_pool(judge_server)
    judge_server.answer("judge_flaws_extract", "Missing error bars.", reply={"flaws": [
        {"topic": "experiments", "summary": "Single dataset",
         "raised_by": [{"reviewer": "R2", "quote": "uses only one dataset"},
                       {"reviewer": "R3", "quote": "A single dataset again."}]}]})
    judge_server.answer("judge_flaws_order", "Missing error bars.", reply={"mentions": [
        {"flaw_id": "F1", "anchor": "A single dataset again."}]})
    ctx = make_judge_ctx(flaws)
    first = _by(flaws.judge(ctx, [H1, H2, S1]), "pool")[POOL]
    both = flaws.judge(ctx, [H1, H2, S1, S1B])
    pools = _by(both, "pool")
    assert set(pools) == {POOL, "pool:P1|cfgA|s1"}
    again = pools[POOL]
    # N = humans + 1 in both pools: the second sample is not a fourth member of the first
    assert [u["review_key"] for u in again.units if u["kind"] == "member"] == ["human:h1", "human:h2", "peerlake:k1"]
    assert [u["review_key"] for u in pools["pool:P1|cfgA|s1"].units if u["kind"] == "member"] == [
        "human:h1", "human:h2", "peerlake:k1b"]
    # the first pool's rows (so every recall dbt computes from them) and requests are what they were alone
    assert again.units == first.units and again.dropped == first.dropped
    assert sorted(r.request_key for r in again.results) == sorted(r.request_key for r in first.results)
    assert all(r.replayed for r in again.results)
    assert {j.subject_key for j in both if j.step == "order"} == {
        f"{pool}|{key}" for pool, keys in [(POOL, ["human:h1", "human:h2", "peerlake:k1"]),
                                           ("pool:P1|cfgA|s1", ["human:h1", "human:h2", "peerlake:k1b"])]
        for key in keys}


MARKDOWN = make_review(
    ("summary", "The paper proposes **X**, a “plug-in” regularizer."),
    ("weaknesses", "1. **The proof of Lemma 2 is wrong** — the bound in Eq. 3 doesn’t hold.\n"
                   "2. Only *one* dataset is used."),
    key="human:md", paper_id="P1")


def test_quotes_given_back_without_the_reviews_markdown_or_curly_quotes_are_kept_and_marked_normalized(
        judge_log, judge_server, make_judge_ctx):
    _ingest_paper(judge_log)
    judge_server.answer("judge_flaws_extract", "plug-in", reply={"flaws": [
        {"topic": "theory", "summary": "Lemma 2 proof wrong", "raised_by": [
            # the judge dropped the ** and straightened the apostrophe and the dash, as PRISM's judges do
            {"reviewer": "R1", "quote": "The proof of Lemma 2 is wrong - the bound in Eq. 3 doesn't hold."}]},
        {"topic": "experiments", "summary": "One dataset", "raised_by": [
            {"reviewer": "R1", "quote": "Only one dataset is used."},  # *one* quoted plain
            {"reviewer": "R2", "quote": "Evaluation on a single dataset only."}]},  # S1's own words: strict
        {"topic": "presentation", "summary": "Plug-in", "raised_by": [
            {"reviewer": "R1", "quote": "a \"plug-in\" regularizer"}]},
        {"topic": "novelty", "summary": "Not novel", "raised_by": [
            {"reviewer": "R1", "quote": "The proof of Lemma 3 is wrong"}]}]})  # not the review's words
    judge_server.answer("judge_flaws_validate", reply={"evaluations": [
        {"flaw_id": f"F{i}", "is_valid": True, "severity": "critical"} for i in (1, 2, 3)]})
    judge_server.answer("judge_flaws_order", "plug-in", reply={"mentions": [
        {"flaw_id": "F1", "anchor": "The proof of Lemma 2 is wrong"},
        {"flaw_id": "F2", "anchor": "Only one dataset is used."},
        {"flaw_id": "F1", "anchor": "the bound in Eq. 3"}]})  # F1 again: counted once, at its first mention
    judge_server.answer("judge_flaws_order", reply={"mentions": []})
    out = flaws.judge(make_judge_ctx(flaws), [MARKDOWN, S1])
    pool = _by(out, "pool")[POOL]
    raises = [(u["flaw_id"], u["review_key"], u["quote"], u["verbatim"]) for u in pool.units if u["kind"] == "raise"]
    assert raises == [
        ("F1", "human:md", "The proof of Lemma 2 is wrong - the bound in Eq. 3 doesn't hold.", "normalized"),
        ("F2", "human:md", "Only one dataset is used.", "normalized"),
        ("F2", "peerlake:k1", "Evaluation on a single dataset only.", "strict"),
        ("F3", "human:md", 'a "plug-in" regularizer', "normalized")]
    # F4's quote is not the review's words: kept (PRISM's rule) but not validated here, so it has no rows
    assert pool.dropped == {"unvalidated": 1}
    order = _by(out, "order")[f"{POOL}|human:md"]
    text = MARKDOWN.text
    # the anchors sit where the review's own (bold, italic) words are; the repeated F1 is dropped
    assert [(u["flaw_id"], u["position"], u["located_by"], u["section"]) for u in order.units] == [
        ("F1", text.index("The proof"), "exact", "weaknesses"),
        ("F2", text.index("Only *one*"), "exact", "weaknesses")]
    assert order.dropped == {"duplicate_mention": 1}


def test_the_validator_is_told_prismss_definition_of_an_invalid_flaw_and_the_severity_ontology(
        judge_log, judge_server, make_judge_ctx):
    _ingest_paper(judge_log)
    _script_pool(judge_server)
    flaws.judge(make_judge_ctx(flaws), [H1, H2, S1])
    (body,) = judge_server.bodies_for("judge_flaws_validate")
    prompt = judge_server.prompt(body)
    # PRISM step 2: invalid = a hallucination, a misunderstanding, or an unreasonable request
    for phrase in ("hallucination", "misunderstanding of the paper", "unreasonable request",
                   "the reviewer's argument is factually correct"):
        assert phrase in prompt, phrase
    assert "valid unless" not in prompt and "only when the paper contradicts" not in prompt
    for phrase in ("critical for methodology", "experimental design", "novelty", "severe limits on applicability",
                   "minor for clarity and presentation", "missing citations", "documentation"):
        assert phrase in prompt, phrase
