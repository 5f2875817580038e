"""The depth judge's settings (issue #24): the depth_units cap (none on a hosted judge, 12 on the embedded
model, counted when it cuts), the answer budgets that follow it, the depth taxonomy (prism-reference by
default, prism-paper on request), and the review text the labeller and the grounder read."""

import json
from pathlib import Path

import pytest

from peerlake.judging import depth, depth_taxonomy
from peerlake.judging.base import JudgeConfig
from peerlake.llm_calls.gateway import Gateway
from peerlake.llm_calls.providers.openai_chat import OpenAICompatibleProvider
from tests.judging.support import record
from tests.llm_calls.support import providers_for

# 14 sentences, each one unit: what a judge that splits every unit answers
SENTENCES = [f"Point {k} of the review says the ablation in Table {k} is missing." for k in range(1, 15)]
OPENREVIEW_ICLR2026 = Path(__file__).resolve().parents[3] / "shared/data/openreview_api_v2" / \
    "iclr2026_v2_submission_with_replies.json"


@pytest.fixture
def long_review(make_review):
    return make_review(("summary", " ".join(SENTENCES[:4])), ("weaknesses", " ".join(SENTENCES[4:])))


@pytest.fixture
def local_ctx(judge_log, judge_server):
    """make(**JudgeConfig fields) -> a JudgeContext whose `local` provider is the loopback server, so
    the embedded model's defaults (its caps) are exercised without the model."""
    from peerlake.judging.base import JudgeContext

    providers = {**providers_for(judge_server),
                 "local": OpenAICompatibleProvider(base_url=judge_server.openai_base_url)}
    gateway = Gateway(judge_log, providers=providers, max_attempts=2, backoff_base_s=0.01, backoff_max_s=0.05)

    def make(**cfg) -> JudgeContext:
        config = JudgeConfig(**{"provider": "local", "model": "qwen-test", **cfg})
        return JudgeContext(log=judge_log, gateway=gateway, cfg=config,
                            judge_config=config.identity(depth.JUDGE, depth.TEMPLATES), study="s", progress=False)
    return make


def script(server, units, n_labelled=None):
    """Every unit a premise about soundness, every premise grounded 2."""
    n = len(units) if n_labelled is None else n_labelled
    server.answer("judge_depth_units", reply={"units": units})
    server.answer("judge_depth_labels", reply={"labels": [{"unit": k, "role": "premise", "aspect": "soundness"}
                                                          for k in range(1, n + 1)]})
    server.answer("judge_depth_grounding", reply={"grounding": [{"premise": k, "score": 2}
                                                                for k in range(1, n + 1)]})


def sent_schema(server, template: str) -> dict:
    (body,) = server.bodies_for(template)
    fmt = body["response_format"]  # openai: under json_schema; an OpenAI-compatible server (llama.cpp): schema
    return (fmt.get("json_schema") or {}).get("schema") or fmt["schema"]


def test_a_hosted_judge_keeps_all_14_units(make_judge_ctx, judge_server, long_review):
    script(judge_server, SENTENCES)
    ctx = make_judge_ctx(depth)  # provider openai: no cap
    assert ctx.cfg.cap("depth_units") is None
    (j,) = depth.judge(ctx, [long_review])
    assert [u["text"] for u in j.units] == SENTENCES and j.dropped == {}
    assert (j.inputs["max_units"], j.inputs["units_answered"]) == (None, 14)
    # nothing bounds the lists, and the prompt does not ask for fewer units
    assert "maxItems" not in sent_schema(judge_server, "judge_depth_units")["properties"]["units"]
    assert "maxItems" not in sent_schema(judge_server, "judge_depth_labels")["properties"]["labels"]
    (units_body,) = judge_server.bodies_for("judge_depth_units")
    assert "at most" not in judge_server.prompt(units_body).lower()


def test_the_local_model_keeps_12_and_counts_the_2_the_cap_cut(local_ctx, judge_server, judge_log, long_review):
    script(judge_server, SENTENCES, n_labelled=12)
    ctx = local_ctx()
    assert ctx.cfg.cap("depth_units") == 12  # judging/caps.py LOCAL_CAPS
    (j,) = depth.judge(ctx, [long_review])
    assert [u["text"] for u in j.units] == SENTENCES[:12]  # the tail is cut, never a selection
    assert j.dropped == {"over_max_units": 2}
    assert (j.inputs["max_units"], j.inputs["units_answered"]) == (12, 14)
    assert sent_schema(judge_server, "judge_depth_units")["properties"]["units"]["maxItems"] == 12
    labels = sent_schema(judge_server, "judge_depth_labels")["properties"]["labels"]
    assert labels["maxItems"] == 12 and labels["items"]["properties"]["unit"]["enum"] == list(range(1, 13))
    (units_body,) = judge_server.bodies_for("judge_depth_units")
    assert "(at most 12)" in judge_server.prompt(units_body)
    _, (ev,) = record(ctx, depth, [j])
    assert json.loads(ev.dropped_json) == {"over_max_units": 2}
    assert json.loads(ev.inputs_json)["max_units"] == 12


def test_the_embedded_model_has_the_budgets_it_always_had(local_ctx, judge_server, make_review):
    review = make_review(("weaknesses", " ".join(SENTENCES[:5])))
    script(judge_server, SENTENCES[:5], n_labelled=5)
    depth.judge(local_ctx(), [review])
    # units: 20 + 57 x 12 = 704, held to max_output_tokens 700 (the 4k context); labels for the 5 units
    # asked: 12 + 24 x 5 = 132; grounding for the 5 premises: 8 + 16 x 5 = 88
    assert {judge_server.schema_title(b): b["max_tokens"] for b in judge_server.bodies} == {
        "judge_depth_units": 700, "judge_depth_labels": 132, "judge_depth_grounding": 88}
    assert (depth.budget("units", 12), depth.budget("labels", 12), depth.budget("grounding", 12)) == (704, 300, 200)


def test_a_hosted_judge_under_a_larger_cap_is_not_cut_by_the_700_default(make_judge_ctx, judge_server, long_review):
    script(judge_server, SENTENCES)
    depth.judge(make_judge_ctx(depth, caps=(("depth_units", 30),)), [long_review])
    # units: 20 + 57 x 30 = 1,730 (the schema allows 30); labels 12 + 24 x 14 = 348 < 700, the floor
    assert {judge_server.schema_title(b): b["max_completion_tokens"] for b in judge_server.bodies} == {
        "judge_depth_units": 1_730, "judge_depth_labels": 700, "judge_depth_grounding": 700}
    assert sent_schema(judge_server, "judge_depth_units")["properties"]["units"]["maxItems"] == 30


def test_a_study_lifts_the_local_cap_with_zero(local_ctx, judge_server, long_review):
    script(judge_server, SENTENCES)
    # [judging.caps] depth_units = 0 is checked into None (judging/caps.check_caps)
    (j,) = depth.judge(local_ctx(caps=(("depth_units", None),)), [long_review])
    assert len(j.units) == 14 and j.dropped == {}


def test_a_hosted_budget_follows_the_review_not_the_700_token_default(make_judge_ctx, judge_server, make_review):
    # 60 units of ~100 characters: the units answer alone is ~6,000 characters, far past 700 tokens
    units = [f"Claim {k:02d}: the reported gain of method variant {k:02d} in the appendix tables is within noise."
             for k in range(60)]
    review = make_review(("weaknesses", " ".join(units)))
    script(judge_server, units)
    (j,) = depth.judge(make_judge_ctx(depth), [review])
    assert len(j.units) == 60 and j.dropped == {}
    sent = {judge_server.schema_title(b): b["max_completion_tokens"] for b in judge_server.bodies}
    text = len(review.text)  # "Weaknesses:\n" + the units joined by spaces
    assert sent == {"judge_depth_units": 20 + text // 3 + 4 * (text // 40 + 1),
                    "judge_depth_labels": 12 + 24 * 60, "judge_depth_grounding": 8 + 16 * 60}
    assert sent["judge_depth_units"] > 2_000  # every copied character has room
    # a larger max_output_tokens stays the floor (e.g. room for a reasoning model)
    judge_server.bodies.clear()
    depth.judge(make_judge_ctx(depth, max_output_tokens=16_000, repeat=1), [review])
    assert {judge_server.schema_title(b): b["max_completion_tokens"] for b in judge_server.bodies} == {
        "judge_depth_units": 16_000, "judge_depth_labels": 16_000, "judge_depth_grounding": 16_000}


def _iclr2026_review() -> tuple[dict, str]:
    doc = json.loads(OPENREVIEW_ICLR2026.read_text(encoding="utf-8"))
    (reply,) = [r for r in doc["details"]["replies"] if r["id"] == "g5Lcq9Ibpi"]
    return {f: reply["content"][f]["value"] for f in ("summary", "strengths", "weaknesses")}, doc["id"]


# What a judge that splits every unit answers for that review (by hand; headings such as "### 1." left out)
ICLR2026_UNITS = {
    "summary": ["This work discovers that an LLM subnetwork may represent a specific persona.",
                "By applying an extracted binary mask on the linear weights, the target persona can be emphasized "
                "in the outputs.",
                "A contrastive pruning algorithm is also proposed to disentangle the personas in the parameter space."],
    "strengths": ["The idea of identifying a subnetwork that represents a target persona is interesting.",
                  "The method does not require explicit gradient-based training, which makes the overall process "
                  "simple and interpretable.",
                  "The provided analyses on the persona evaluation are extensive.",
                  "The manuscript is well written and easy to follow."],
    "weaknesses": ["While the approach for identifying sub-networks linked to specific personality traits is "
                   "compelling, the work does not address how pruning affects overall model performance.",
                   "Including an evaluation of whether important downstream capabilities are improved -- or at least "
                   "preserved -- would significantly strengthen the contribution.",
                   "I am skeptical about the contrastive pruning algorithm because even when two personas are "
                   "seemingly opposite to each other, I do not think that means that the subnetwork neuron set "
                   "should be orthogonal.",
                   "That said, it would help to understand the effect of this algorithm when the pair of personas is "
                   "similar.",
                   'For instance, try Power-Seeking vs. Wealth-Seeking (or maybe "desire-for-discreetly-acquiring-'
                   'power" in the dataset) and compare the Power-Seeking performance with the performance reported '
                   "in the manuscript.",
                   "Figure 3 is a bit confusing when comparing the MBTIs with the base model.",
                   'For example, for the "N" trait, why do the INFP, INFJ, ... traits have lower "N" dimension scores '
                   "compared to the base model?",
                   "Are the scores relative values?",
                   "I suggest moving Figure 1 to page 3 or 4."],
}


@pytest.mark.skipif(not OPENREVIEW_ICLR2026.is_file(), reason="../shared/data/openreview_api_v2 not present")
@pytest.mark.parametrize("provider", ["openai", "local"])
def test_the_issue_example_a_real_iclr_2026_review(provider, make_judge_ctx, local_ctx, judge_server, make_review):
    """Issue #24's case: an ICLR 2026 review whose argument is mostly in its weaknesses. The embedded
    model's cap of 12 reaches the weaknesses after 7 units of summary and strengths and cuts most of them."""
    fields, paper = _iclr2026_review()
    for field, units in ICLR2026_UNITS.items():
        assert all(u in fields[field] for u in units), field  # the review's own words
    answer = [u for units in ICLR2026_UNITS.values() for u in units]  # 3 + 4 + 9 = 16
    review = make_review(*fields.items(), key="human:g5Lcq9Ibpi", paper_id=paper)
    script(judge_server, answer, n_labelled=12 if provider == "local" else 16)
    ctx = local_ctx() if provider == "local" else make_judge_ctx(depth)
    (j,) = depth.judge(ctx, [review])
    weak = [u["text"] for u in j.units if u["field"] == "weaknesses"]
    if provider == "openai":  # PRISM's judge reads every unit
        assert len(j.units) == 16 and weak == ICLR2026_UNITS["weaknesses"] and j.dropped == {}
    else:  # 12 kept: the 7 of summary and strengths, then 5 of the 9 weakness units; 4 cut and counted
        assert len(j.units) == 12 and weak == ICLR2026_UNITS["weaknesses"][:5]
        assert j.dropped == {"over_max_units": 4}


def test_the_paper_taxonomy_labels_the_units(make_judge_ctx, judge_server, make_review):
    review = make_review(("weaknesses", "The novelty is limited. Table 2 shows no gain over BERT on GLUE."))
    judge_server.answer("judge_depth_units", reply={"units": ["The novelty is limited.",
                                                              "Table 2 shows no gain over BERT on GLUE."]})
    judge_server.answer("judge_depth_labels", reply={"labels": [
        {"unit": 1, "role": "claim", "aspect": "soundness"},  # not a prism-paper aspect: unlabelled
        {"unit": 2, "role": "premise", "aspect": "Experiments"}]})  # the paper's capitalized name is accepted
    judge_server.answer("judge_depth_grounding", reply={"grounding": [{"premise": 1, "score": 1}]})
    ctx = make_judge_ctx(depth, depth_taxonomy="prism-paper")
    (j,) = depth.judge(ctx, [review])
    assert [(u["role"], u["aspect"], u["grounding"]) for u in j.units] == [("premise", "experiments", 1)]
    assert j.dropped == {"unlabelled": 1}
    tax = depth_taxonomy.load("prism-paper")
    assert (j.inputs["depth_taxonomy"], j.inputs["depth_taxonomy_sha256"]) == ("prism-paper", tax.sha256)
    assert j.inputs["aspects"] == ["novelty", "methodology", "experiments", "clarity"]
    # the schema's enum and the prompts' definitions come from the file
    labels = sent_schema(judge_server, "judge_depth_labels")["properties"]["labels"]["items"]["properties"]
    assert labels["aspect"]["enum"] == ["novelty", "methodology", "experiments", "clarity"]
    (labels_body,) = judge_server.bodies_for("judge_depth_labels")
    assert "- methodology: the proposed method" in judge_server.prompt(labels_body)
    assert "- soundness:" not in judge_server.prompt(labels_body)
    (grounding_body,) = judge_server.bodies_for("judge_depth_grounding")
    assert "2: external: it references the literature" in judge_server.prompt(grounding_body)


def test_the_taxonomy_is_part_of_the_judge_identity():
    ref, paper = (JudgeConfig(provider="openai", model="m", depth_taxonomy=t) for t in ("prism-reference",
                                                                                         "prism-paper"))
    assert JudgeConfig(provider="openai", model="m").identity("depth", depth.TEMPLATES) == \
        ref.identity("depth", depth.TEMPLATES)  # prism-reference is the default
    assert ref.identity("depth", depth.TEMPLATES) != paper.identity("depth", depth.TEMPLATES)
    # another judge's identity does not depend on the depth taxonomy
    assert ref.identity("novelty", ("judge_novelty_claims",)) == paper.identity("novelty", ("judge_novelty_claims",))


def test_the_labeller_and_the_grounder_read_the_review(make_judge_ctx, judge_server, make_review):
    text = "The method is new. Figure 4 has no error bars."
    review = make_review(("weaknesses", text))
    judge_server.answer("judge_depth_units", reply={"units": ["The method is new.", "Figure 4 has no error bars."]})
    judge_server.answer("judge_depth_labels", reply={"labels": [{"unit": 1, "role": "claim", "aspect": "other"},
                                                                {"unit": 2, "role": "premise", "aspect": "clarity"}]})
    judge_server.answer("judge_depth_grounding", reply={"grounding": [{"premise": 1, "score": 2}]})
    depth.judge(make_judge_ctx(depth), [review])
    for template in ("judge_depth_labels", "judge_depth_grounding"):
        (body,) = judge_server.bodies_for(template)
        assert f"<review>\nWeaknesses:\n{text}\n</review>" in judge_server.prompt(body), template


@pytest.mark.parametrize("name", ["prism-reference", "prism-paper"])
def test_the_shipped_taxonomies_load(name):
    tax = depth_taxonomy.load(name)
    assert tax.name == name and len(tax.aspects) == 4 and [level for level, _ in tax.grounding] == [0, 1, 2]
    assert all(definition for _, definition in (*tax.aspects, *tax.grounding))


@pytest.mark.parametrize(("text", "message"), [
    ('[aspects]\na = "x"\nb = "y"\n[grounding]\n0 = "v"\n1 = "i"\n', "exactly the levels 0, 1 and 2"),
    ('[aspects]\na = "x"\nb = "y"\n[grounding]\n0 = "v"\n1 = "i"\n2 = "e"\n3 = "more"\n', "exactly the levels"),
    ('[aspects]\nSoundness = "x"\nb = "y"\n[grounding]\n0 = "v"\n1 = "i"\n2 = "e"\n', "lower case"),
    ('[aspects]\na = "x"\n[grounding]\n0 = "v"\n1 = "i"\n2 = "e"\n', "2..20 labels"),
    ('[aspects]\na = "x"\nb = ""\n[grounding]\n0 = "v"\n1 = "i"\n2 = "e"\n', "needs a one-line definition"),
    ("aspects = [", "not valid TOML"),
])
def test_bad_taxonomy_files_are_refused(tmp_path, text, message):
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        depth_taxonomy.load(str(path))
    with pytest.raises(ValueError, match="cannot be read"):
        depth_taxonomy.load("no-such-taxonomy")


def test_a_study_chooses_the_taxonomy():
    from peerlake.studies import StudyError, parse_study

    base = 'name = "t"\njudges = ["depth"]\n[papers]\nids = ["a"]\n[judging]\nprovider = "openai"\nmodel = "m"\n'
    assert parse_study("t", base).judging.model_settings()["depth_taxonomy"] == "prism-reference"
    chosen = parse_study("t", base + 'depth_taxonomy = "prism-paper"\n').judging
    assert JudgeConfig(**chosen.model_settings()).depth_taxonomy == "prism-paper"
    with pytest.raises(StudyError, match="depth_taxonomy"):
        parse_study("t", base + "depth_taxonomy = 3\n")
