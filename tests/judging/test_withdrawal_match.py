"""The withdrawal match judge through the real gateway and event log, answers scripted at the network
edge: which reviews are subjects, the unit per level, repeats, every null path, the budget cuts, failed
calls, recording once, and the study table's checks."""

import json

import jsonschema
import pytest

from peerlake.ingest.withdrawals import import_arxiv_comments
from peerlake.judging import withdrawal_match as wm
from peerlake.prompts import load_template
from tests.doubles.fake_server import Reply
from tests.judging.support import STUDY, assert_bounded, record, units_of

COMMENT = "Lemma 3 is wrong: the bound in eq. (7) needs a compact operator, and ours is not compact."
FOUND = "The proof of Lemma 3 assumes compactness of the operator, which is never shown."
VAGUE = "More experiments on larger graphs would strengthen the paper."
EXACT, SIMILAR = wm.TEMPLATES


@pytest.fixture
def withdrawn(judge_log, tmp_path):
    """P1 has a withdrawal note (imported through ingest.withdrawals); P2 has none."""
    path = tmp_path / "w.jsonl"
    path.write_text(json.dumps({"paper_id": "P1", "comment": COMMENT, "arxiv_id": "2401.1"}) + "\n")
    import_arxiv_comments(judge_log, path)
    (note,) = judge_log.iter_events("withdrawal_note_imported")
    return note


@pytest.fixture
def reviews(make_review):
    return [
        make_review(("weaknesses", FOUND), key="peerlake:sys-a", paper_id="P1", source="peerlake", system="cfgA",
                    sample_index=0),
        make_review(("weaknesses", VAGUE), key="external:X:r9", paper_id="P1", source="external", system="X",
                    sample_index=0),
        make_review(("review", "A human review of P1 naming Lemma 3."), key="human:h1", paper_id="P1"),
        make_review(("weaknesses", FOUND), key="peerlake:sys-b", paper_id="P2", source="peerlake", system="cfgA",
                    sample_index=0),  # P2 was not withdrawn: not a subject
    ]


def script(server):
    # the exact prompt matches the review that names the lemma; the similar prompt matches both
    server.answer(EXACT, "compactness of the operator", reply={"rationale": "Both name Lemma 3.", "match": True})
    server.answer(EXACT, "More experiments", reply={"rationale": "Unrelated.", "match": False})
    server.answer(SIMILAR, reply={"rationale": "Related concern.", "match": True})


def test_units_per_level_and_subjects(make_judge_ctx, judge_server, judge_log, withdrawn, reviews):
    script(judge_server)
    ctx = make_judge_ctx(wm)
    js = wm.judge(ctx, reviews, wm.Spec())
    # 2 levels x the 2 non-human reviews of P1 (human is opt-in, P2 has no note) = 4 judgments, 4 calls
    assert [(j.step, j.subject_key, j.repeat) for j in js] == [
        ("exact", "P1|peerlake:sys-a", 0), ("exact", "P1|external:X:r9", 0),
        ("similar", "P1|peerlake:sys-a", 0), ("similar", "P1|external:X:r9", 0)]
    assert [j.units[0]["match"] for j in js] == [True, False, True, True]
    assert js[0].units == [{"level": "exact", "match": True, "rationale": "Both name Lemma 3.",
                            "withdrawal_note_id": withdrawn.event_id, "note_source": "arxiv"}]
    assert judge_server.requests == 4 and judge_server.unmatched == []
    assert js[0].inputs["withdrawal_note_id"] == withdrawn.event_id and js[0].inputs["system"] == "cfgA"

    _, events = record(ctx, wm, js)
    assert [(e.judge, e.step, e.status, e.paper_id, e.study) for e in events] == [
        ("withdrawal_match", s, "ok", "P1", STUDY) for s in ("exact", "exact", "similar", "similar")]
    assert units_of(events[1])[0]["match"] is False
    purposes = sorted(c.purpose for c in judge_log.iter_events("llm_call"))
    assert purposes == ["judge_withdrawal_match_exact"] * 2 + ["judge_withdrawal_match_similar"] * 2
    body = judge_server.bodies_for(EXACT)[0]
    assert COMMENT in judge_server.prompt(body) and body["max_completion_tokens"] == wm.MAX_TOKENS

    # a replayed run: no new call, nothing recorded again
    rec, again = record(ctx, wm, wm.judge(ctx, reviews, wm.Spec()))
    assert again == [] and rec.skipped == 4 and judge_server.requests == 4


def test_sources_levels_papers_and_repeats(make_judge_ctx, judge_server, withdrawn, reviews):
    script(judge_server)
    ctx = make_judge_ctx(wm, repeats=2, temperature=0.7)
    spec = wm.Spec.from_table({"levels": ["similar"], "sources": ["human"], "papers": ["P1", "P2"]})
    js = wm.judge(ctx, reviews, spec)
    # 1 level x 2 repeats x the one human review of P1; the repeat is the seed (3000 + r)
    assert [(j.step, j.subject_key, j.repeat) for j in js] == [("similar", "P1|human:h1", 0),
                                                               ("similar", "P1|human:h1", 1)]
    assert sorted(b["seed"] for b in judge_server.bodies) == [3000, 3001]
    assert wm.judge(ctx, reviews, wm.Spec(papers=("P2",))) == []  # P2 has no note: nothing to judge


def test_null_paths(make_judge_ctx, judge_server, judge_log, withdrawn, make_review, reviews):
    judge_server.answer(EXACT, "compactness", reply={"rationale": "yes", "match": "yes"})  # not a boolean
    judge_server.answer(EXACT, "More experiments", reply="I think it matches.")  # no JSON
    ctx = make_judge_ctx(wm)
    empty = make_review(key="peerlake:empty", paper_id="P1", source="peerlake", system="cfgA")
    js = wm.judge(ctx, [reviews[0], reviews[1], empty], wm.Spec(levels=("exact",)))
    assert [j.null_reason for j in js] == ["unparseable:exact", "unparseable:exact", "empty_review"]
    assert js[2].results == [] and judge_server.requests == 2
    _, events = record(ctx, wm, js)
    assert [(e.status, e.null_reason, units_of(e)) for e in events] == [
        ("null", "unparseable:exact", []), ("null", "unparseable:exact", []), ("null", "empty_review", [])]

    # the note's blob is gone: null, no call, never a guess
    judge_log.blobs.path(withdrawn.comment_sha256).unlink()
    (j,) = wm.judge(ctx, [reviews[0]], wm.Spec(levels=("similar",)))
    assert j.null_reason == "comment_unreadable" and judge_server.requests == 2


def test_failed_call_is_not_recorded(make_judge_ctx, judge_server, judge_log, withdrawn, reviews):
    judge_server.answer(EXACT, reply=Reply(status=400))
    ctx = make_judge_ctx(wm)
    (j,) = wm.judge(ctx, reviews[:1], wm.Spec(levels=("exact",)))
    assert j.failed_call is not None
    rec, events = record(ctx, wm, [j])
    assert events == [] and rec.failed == 1 and judge_log.count("judgment_recorded") == 0


def test_the_newest_note_is_judged(make_judge_ctx, judge_server, judge_log, withdrawn, reviews, tmp_path):
    path = tmp_path / "later.jsonl"
    path.write_text(json.dumps({"paper_id": "P1", "comment": "Theorem 2 is false."}) + "\n")
    import_arxiv_comments(judge_log, path)
    judge_server.answer(EXACT, "Theorem 2 is false.", reply={"rationale": "no", "match": False})
    (j,) = wm.judge(make_judge_ctx(wm), reviews[:1], wm.Spec(levels=("exact",)))
    assert j.units[0]["match"] is False and j.units[0]["withdrawal_note_id"] != withdrawn.event_id
    assert COMMENT not in judge_server.prompt(judge_server.bodies[0])


def test_budget_cuts_comment_and_review(make_judge_ctx, judge_server, withdrawn, reviews, monkeypatch):
    judge_server.answer(EXACT, reply={"rationale": "", "match": False})
    (j,) = wm.judge(make_judge_ctx(wm), reviews[:1], wm.Spec(levels=("exact",), comment_chars=20, review_chars=30))
    prompt = judge_server.prompt(judge_server.bodies[0])
    assert COMMENT[:20] in prompt and COMMENT[:21] not in prompt
    assert reviews[0].text[:30] in prompt and reviews[0].text[:31] not in prompt
    assert (j.inputs["comment_chars_judged"], j.inputs["chars_judged"]) == (20, 30)
    assert j.units[0]["rationale"] is None  # a blank rationale is no rationale
    # derived review budget: the judge's budget minus the comment's, never below 1000
    monkeypatch.setenv("PEERLAKE_JUDGE_MAX_CHARS", "6000")
    assert wm.Spec().review_budget("local") == 4500  # 6000 - 1500
    monkeypatch.setenv("PEERLAKE_JUDGE_MAX_CHARS", "2000")
    assert wm.Spec().review_budget("local") == 1000  # 2000 - 1500 = 500, raised to the floor


@pytest.mark.parametrize("table, why", [
    ({"levels": ["exact", "close"]}, "withdrawals.levels: unknown 'close'"),
    ({"levels": []}, "withdrawals.levels: give a non-empty list"),
    ({"sources": "human"}, "withdrawals.sources: give a non-empty list"),
    ({"sources": ["robots"]}, "withdrawals.sources: unknown 'robots'"),
    ({"papers": ["P1", 2]}, "withdrawals.papers: give a non-empty list"),
    ({"comment_chars": 0}, "withdrawals.comment_chars: give a positive integer"),
    ({"review_chars": True}, "withdrawals.review_chars: give a positive integer"),
])
def test_bad_table_values_are_refused(table, why):
    with pytest.raises(ValueError, match=why):
        wm.Spec.from_table(table)


def test_table_defaults_and_contract():
    assert wm.Spec.from_table({"judge": {"model": "o3"}, "other": 1}) == wm.Spec()
    # levels keep the canonical order whatever order the table gives
    assert wm.Spec.from_table({"levels": ["similar", "exact", "similar"]}).levels == ("exact", "similar")
    assert (wm.EXPERIMENT, wm.JUDGE, wm.DEFAULT_REPEATS, wm.PARSER_VERSION) == (
        "withdrawals", "withdrawal_match", 1, "withdrawal_match-1")
    assert {"judge", "levels", "sources", "papers", "comment_chars", "review_chars"} == wm.KEYS


@pytest.mark.parametrize("name", wm.TEMPLATES)
def test_templates_load_with_bounded_schemas(name):
    t = load_template(name)
    assert t.output_schema["title"] == name
    jsonschema.Draft202012Validator.check_schema(t.output_schema)
    assert_bounded(t.output_schema)
    assert list(t.output_schema["properties"]) == ["rationale", "match"]  # the reason before the verdict
    system, user = t.render(withdrawal_comment="", review_text="")
    assert len(system["content"]) + len(user["content"]) < 1_200  # ~300 tokens of instructions
