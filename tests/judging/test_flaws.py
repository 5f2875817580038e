"""Flaw identification: one pool per (paper, system review), scripted answers through the real gateway
and event log; every kept row and every count worked out by hand from the reviews below."""

import json

import pytest

from peerlake.ingest.manuscripts import ManuscriptPackage, TextRecord
from peerlake.judging import flaws
from peerlake.warehouse.events import PaperIngested
from tests.doubles.fake_server import Reply
from tests.judging.support import make_review, record, units_of

H1 = make_review(("summary", "A method for X."),
                 ("weaknesses", "Only one dataset is used. The proof of Lemma 2 is wrong."),
                 key="human:h1", paper_id="P1")
H2 = make_review(("review", "The evaluation uses only one dataset. Figure 3 is unreadable. No ablation study."),
                 key="human:h2", paper_id="P1")
S1 = make_review(("concerns", "- Evaluation on a single dataset only.\n- Typos throughout."),
                 key="peerlake:k1", paper_id="P1", source="peerlake", system="cfgA", sample_index=0)
POOL = "pool:P1|cfgA|s0"
# what the extractor "answers" for pool P1|cfgA|s0 (R1 = H1, R2 = H2, R3 = S1, the pool's order)
EXTRACT = {"flaws": [
    {"topic": "experiments", "summary": "Single dataset",
     "raised_by": [{"reviewer": "R1", "quote": "Only one dataset is used."},
                   {"reviewer": "R2", "quote": "uses only one dataset"},
                   {"reviewer": "R3", "quote": "Evaluation on a single dataset only."}]},
    {"topic": "theory", "summary": "Lemma 2 proof wrong",
     "raised_by": [{"reviewer": "R1", "quote": "The proof of Lemma 2 is wrong."},
                   {"reviewer": "R9", "quote": "Lemma 2"}]},  # no R9 in a pool of three
    {"topic": "presentation", "summary": "Typos",
     "raised_by": [{"reviewer": "R3", "quote": "Typos throughout."}]},
    {"topic": "methodology", "summary": "No ablation",
     "raised_by": [{"reviewer": "R2", "quote": "No ablation study."}]},
    {"topic": "presentation", "summary": "Figure 3 unreadable",
     "raised_by": [{"reviewer": "R2", "quote": "Figure 3 is hard to read"}]},  # a paraphrase: kept, unplaced
]}
# flaws numbered in order: F1 single dataset, F2 lemma, F3 typos, F4 ablation, F5 figure 3
VALIDATE = {"evaluations": [
    {"flaw_id": "F1", "is_valid": True, "severity": "critical"},
    {"flaw_id": "F2", "is_valid": False, "severity": "critical"},
    {"flaw_id": "F3", "is_valid": True, "severity": "undecided"},  # undecided -> minor
    {"flaw_id": "F5", "is_valid": True, "severity": "minor"},
    {"flaw_id": "F9", "is_valid": True, "severity": "minor"},  # not a flaw of the pool: ignored
]}  # F4 not judged -> unvalidated


def _ingest_paper(log, paper_id="P1"):
    text = "We propose X and evaluate it on one dataset. Lemma 2 bounds the error."
    pkg = ManuscriptPackage(pdf_sha256="a" * 64, title=paper_id, n_pages=1, n_chars=len(text), extractor="test",
                            records=[TextRecord(id="r1", page=1, kind="paragraph", text=text)])
    sha = log.blobs.put_text(pkg.to_json())
    log.append(PaperIngested(paper_id=paper_id, title=paper_id, source_uri=f"file:///{paper_id}.pdf",
                             pdf_sha256="a" * 64, package_sha256=sha, n_pages=1, n_text_records=1,
                             n_chars=len(text)))
    return text


def _script_pool(server, extract=EXTRACT, validate=VALIDATE):
    server.answer("judge_flaws_extract", "Typos throughout.", reply=extract)
    server.answer("judge_flaws_validate", "We propose X", reply=validate)
    # one order call per member, told apart by a phrase only that review has
    server.answer("judge_flaws_order", "A method for X.", reply={"mentions": [
        {"flaw_id": "F1", "anchor": "Only one dataset is used."},
        {"flaw_id": "F2", "anchor": "The proof of Lemma 2 is wrong."}]})  # F2 is invalid: not listed
    server.answer("judge_flaws_order", "No ablation study.", reply={"mentions": [
        {"flaw_id": "F1", "anchor": "evaluation used only one dataset"}]})
    server.answer("judge_flaws_order", "Typos throughout.", reply={"mentions": [
        {"flaw_id": "F3", "anchor": "Typos throughout."}, {"flaw_id": "F1", "anchor": "zzzzzz"}]})


def _by(judgments, step):
    return {j.subject_key: j for j in judgments if j.step == step}


def test_pools_are_per_paper_and_system_review_and_need_a_system_review():
    other = make_review(("review", "Fine."), key="human:h3", paper_id="P2")  # P2: no system reviewed it
    ext = make_review(("text", "Weak."), key="external:sysB:x", paper_id="P1", source="external", system="sysB",
                      sample_index=0)
    got = flaws.pools([H1, S1, other, H2, ext])
    assert [p.key for p in got] == ["pool:P1|cfgA|s0", "pool:P1|sysB|s0"]
    assert [r.review_key for r in got[0].members] == ["human:h1", "human:h2", "peerlake:k1"]
    assert [r.review_key for r in got[1].members] == ["human:h1", "human:h2", "external:sysB:x"]


def test_each_sample_of_a_system_is_a_pool_of_its_own_with_the_same_humans():
    # PRISM pools the humans with ONE LLM review (N = humans + 1): two samples are two pools, never one of N + 2
    s1b = make_review(("concerns", "- Only one dataset."), key="peerlake:k1b", paper_id="P1", source="peerlake",
                      system="cfgA", sample_index=1)
    got = flaws.pools([H1, S1, H2, s1b])
    assert [(p.key, p.sample, [r.review_key for r in p.members]) for p in got] == [
        ("pool:P1|cfgA|s0", "0", ["human:h1", "human:h2", "peerlake:k1"]),
        ("pool:P1|cfgA|s1", "1", ["human:h1", "human:h2", "peerlake:k1b"])]
    # imported reviews sharing a sample index (an import without one says 0) still get a pool each, ranked
    # by review key: the same rank int_judged_pool_members gives them
    e2 = make_review(("text", "Weak too."), key="external:sysB:y", paper_id="P1", source="external", system="sysB",
                     sample_index=0)
    e1 = make_review(("text", "Weak."), key="external:sysB:x", paper_id="P1", source="external", system="sysB",
                     sample_index=0)
    assert [p.key for p in flaws.pools([e2, H1, e1])] == ["pool:P1|sysB|s0", "pool:P1|sysB|s0-1"]
    assert [p.reviews[-1].review_key for p in flaws.pools([e2, H1, e1])] == ["external:sysB:x", "external:sysB:y"]


def test_pool_and_order_rows(judge_log, judge_server, make_judge_ctx):
    _ingest_paper(judge_log)
    _script_pool(judge_server)
    ctx = make_judge_ctx(flaws)
    out = flaws.judge(ctx, [H1, H2, S1])
    assert not judge_server.unmatched
    pool = _by(out, "pool")[POOL]
    assert pool.null_reason is None and pool.failed_call is None
    member = dict.fromkeys(("flaw_id", "topic", "summary", "is_valid", "severity", "quote", "verbatim"))
    raise_ = {"kind": "raise", "topic": "experiments", "summary": "Single dataset", "is_valid": True,
              "severity": "critical", "flaw_id": "F1", "verbatim": "strict"}
    assert pool.units == [
        {**member, "kind": "member", "review_key": "human:h1"},
        {**member, "kind": "member", "review_key": "human:h2"},
        {**member, "kind": "member", "review_key": "peerlake:k1"},
        {**raise_, "review_key": "human:h1", "quote": "Only one dataset is used."},
        {**raise_, "review_key": "human:h2", "quote": "uses only one dataset"},
        {**raise_, "review_key": "peerlake:k1", "quote": "Evaluation on a single dataset only."},
        {"kind": "raise", "flaw_id": "F2", "topic": "theory", "summary": "Lemma 2 proof wrong", "is_valid": False,
         "severity": "critical", "review_key": "human:h1", "quote": "The proof of Lemma 2 is wrong.",
         "verbatim": "strict"},
        {"kind": "raise", "flaw_id": "F3", "topic": "presentation", "summary": "Typos", "is_valid": True,
         "severity": "minor", "review_key": "peerlake:k1", "quote": "Typos throughout.", "verbatim": "strict"},
        # PRISM's rule: a quote that is not the reviewer's words is kept, flagged
        {"kind": "raise", "flaw_id": "F5", "topic": "presentation", "summary": "Figure 3 unreadable",
         "is_valid": True, "severity": "minor", "review_key": "human:h2", "quote": "Figure 3 is hard to read",
         "verbatim": "unplaced"},
    ]  # F4 (ablation) was not validated: no rows
    assert pool.dropped == {"unknown_reviewer": 1, "unvalidated": 1}
    assert len(pool.results) == 2 and pool.inputs["system"] == "cfgA"
    # the validator saw F1..F4 and the paper; the extractor saw R1..R3
    (vbody,) = judge_server.bodies_for("judge_flaws_validate")
    vprompt = judge_server.prompt(vbody)
    assert "F4 [methodology] No ablation" in vprompt and "F5 [presentation] Figure 3 unreadable" in vprompt
    assert "<R3>" in judge_server.prompt(judge_server.bodies_for("judge_flaws_extract")[0])

    orders = _by(out, "order")
    assert set(orders) == {f"{POOL}|human:h1", f"{POOL}|human:h2", f"{POOL}|peerlake:k1"}
    # H1 text: "Summary:\n" 9 + "A method for X." 15 + "\n\n" 2 + "Weaknesses:\n" 12 = 38
    h1 = orders[f"{POOL}|human:h1"]
    assert h1.units == [{"review_key": "human:h1", "flaw_id": "F1", "severity": "critical", "position": 38,
                         "located_by": "exact", "section": "weaknesses", "flaw_verbatim": True}]
    assert h1.dropped == {"unknown_flaw": 1}  # F2 is invalid, so not one of the pool's flaws to map onto
    # H2 text: "Review:\n" 8 + "The " 4 = 12 starts "evaluation uses only one datase", the only window
    # starting with "evaluation": 30 of the anchor's 32 chars match (ratio 0.94 >= 0.45)
    assert orders[f"{POOL}|human:h2"].units == [{"review_key": "human:h2", "flaw_id": "F1", "severity": "critical",
                                                "position": 12, "located_by": "fuzzy", "section": "review",
                                                "flaw_verbatim": True}]
    # S1 text: "Concerns:\n" 10 + "- Evaluation on a single dataset only.\n" (2 + 36 + 1) 39 + "- " 2 = 51 for
    # "Typos"; the text is 51 + len("Typos throughout.") 17 = 68 long, where "zzzzzz" (no z anywhere) goes:
    # the end is in the last field
    assert orders[f"{POOL}|peerlake:k1"].units == [
        {"review_key": "peerlake:k1", "flaw_id": "F3", "severity": "minor", "position": 51, "located_by": "exact",
         "section": "concerns", "flaw_verbatim": True},
        {"review_key": "peerlake:k1", "flaw_id": "F1", "severity": "critical", "position": 68, "located_by": "end",
         "section": "concerns", "flaw_verbatim": True}]
    # the order calls list only the valid flaws, F1, F3 and F5
    for body in judge_server.bodies_for("judge_flaws_order"):
        listed = judge_server.prompt(body)
        assert "F1 Single dataset" in listed and "F3 Typos" in listed and "Lemma 2 proof" not in listed

    _, events = record(ctx, flaws, out)
    assert len(events) == 4
    pool_ev = next(e for e in events if e.step == "pool")
    assert pool_ev.subject_key == POOL and pool_ev.paper_id == "P1" and len(units_of(pool_ev)) == 9
    assert json.loads(pool_ev.dropped_json)["unvalidated"] == 1


def test_a_second_system_makes_a_second_pool_and_leaves_the_first_pools_requests_alone(
        judge_log, judge_server, make_judge_ctx):
    _ingest_paper(judge_log)
    _script_pool(judge_server)
    ctx = make_judge_ctx(flaws)
    first = flaws.judge(ctx, [H1, H2, S1])
    keys_first = {j.subject_key: sorted(r.request_key for r in j.results) for j in first}
    calls = judge_log.count("llm_call")

    s2 = make_review(("text", "The paper has no ablation study at all."), key="external:sysB:x", paper_id="P1",
                     source="external", system="sysB", sample_index=0)
    judge_server.answer("judge_flaws_extract", "no ablation study at all", reply={"flaws": [
        {"topic": "methodology", "summary": "No ablation", "raised_by": [
            {"reviewer": "R2", "quote": "No ablation study."}, {"reviewer": "R3", "quote": "no ablation study"}]}]})
    judge_server.answer("judge_flaws_order", "no ablation study at all", reply={"mentions": []})
    second = flaws.judge(ctx, [H1, H2, S1, s2])
    assert not judge_server.unmatched
    pools_second = _by(second, "pool")
    assert set(pools_second) == {POOL, "pool:P1|sysB|s0"}
    keys_second = {j.subject_key: sorted(r.request_key for r in j.results) for j in second}
    for subject, keys in keys_first.items():
        assert keys_second[subject] == keys  # same requests: answered from the log
    assert all(r.replayed for j in second if j.subject_key.startswith(POOL) for r in j.results)
    # the new pool: extract + validate (its validator answer is the same rule: F1 valid critical) + 3 orders
    assert judge_log.count("llm_call") == calls + 5
    assert [(u["kind"], u["review_key"]) for u in pools_second["pool:P1|sysB|s0"].units if u["kind"] == "raise"] == [
        ("raise", "human:h2"), ("raise", "external:sysB:x")]


def test_replay_writes_no_new_call_and_no_new_judgment(judge_log, judge_server, make_judge_ctx):
    _ingest_paper(judge_log)
    _script_pool(judge_server)
    ctx = make_judge_ctx(flaws)
    record(ctx, flaws, flaws.judge(ctx, [H1, H2, S1]))
    calls, requests = judge_log.count("llm_call"), judge_server.requests
    again = flaws.judge(ctx, [H1, H2, S1])
    assert judge_log.count("llm_call") == calls and judge_server.requests == requests
    rec, events = record(ctx, flaws, again)
    assert events == [] and rec.skipped == 4


@pytest.mark.parametrize("step, reply", [("judge_flaws_extract", "I cannot answer that."),
                                         ("judge_flaws_extract", {"issues": []}),
                                         ("judge_flaws_validate", {"evaluations": "all fine"})])
def test_an_unparseable_pool_step_makes_the_pool_null_and_orders_nothing(judge_log, judge_server, make_judge_ctx,
                                                                        step, reply):
    _ingest_paper(judge_log)
    judge_server.answer(step, reply=reply)  # the first rule wins: this one shadows _script_pool's
    _script_pool(judge_server)
    out = flaws.judge(make_judge_ctx(flaws), [H1, H2, S1])
    assert [(j.step, j.null_reason) for j in out] == [("pool", f"unparseable:{step.rsplit('_', 1)[1]}")]
    assert not judge_server.bodies_for("judge_flaws_order")


def test_an_unparseable_order_answer_is_null_for_that_review_only(judge_log, judge_server, make_judge_ctx):
    _ingest_paper(judge_log)
    judge_server.answer("judge_flaws_order", "Typos throughout.", reply="mentions: F3")
    _script_pool(judge_server)
    orders = _by(flaws.judge(make_judge_ctx(flaws), [H1, H2, S1]), "order")
    assert orders[f"{POOL}|peerlake:k1"].null_reason == "unparseable:order"
    assert orders[f"{POOL}|human:h1"].null_reason is None and len(orders[f"{POOL}|human:h1"].units) == 1


def test_no_manuscript_and_an_empty_pool_are_null_without_a_call(judge_log, judge_server, make_judge_ctx):
    _ingest_paper(judge_log, "P1")  # P2 has no manuscript
    p2h = make_review(("review", "Weak."), key="human:p2h", paper_id="P2")
    p2s = make_review(("concerns", "Weak too."), key="peerlake:k2", paper_id="P2", source="peerlake", system="cfgA")
    empty = make_review(key="peerlake:k3", paper_id="P1", source="peerlake", system="cfgA")  # no readable fields
    out = flaws.judge(make_judge_ctx(flaws), [H1, H2, empty, p2h, p2s])
    assert [(j.subject_key, j.null_reason) for j in out] == [(POOL, "empty_pool"), ("pool:P2|cfgA|s0", "no_manuscript")]
    assert judge_server.requests == 0


def test_a_pool_without_valid_flaws_orders_every_member_with_zero_rows_and_no_call(judge_log, judge_server,
                                                                                   make_judge_ctx):
    _ingest_paper(judge_log)
    _script_pool(judge_server, validate={"evaluations": [{"flaw_id": f"F{i}", "is_valid": False, "severity": "minor"}
                                                         for i in range(1, 5)]})
    out = flaws.judge(make_judge_ctx(flaws), [H1, H2, S1])
    orders = _by(out, "order")
    assert len(orders) == 3 and all(j.null_reason is None and j.units == [] and j.results == []
                                    for j in orders.values())
    assert not judge_server.bodies_for("judge_flaws_order")
    # nothing extracted at all: the pool is its members only, and the validator is not asked either
    judge_server.rules.clear()
    judge_server.answer("judge_flaws_extract", reply={"flaws": []})
    judge_server.requests = 0
    ctx = make_judge_ctx(flaws, temperature=0.1)  # another judge config: new requests
    bare = _by(flaws.judge(ctx, [H1, H2, S1]), "pool")[POOL]
    assert [u["kind"] for u in bare.units] == ["member"] * 3 and judge_server.requests == 1


def test_a_failed_call_is_not_a_judgment(judge_log, judge_server, make_judge_ctx):
    _ingest_paper(judge_log)
    judge_server.answer("judge_flaws_order", "Typos throughout.", reply=Reply(status=400))
    _script_pool(judge_server)
    out = flaws.judge(make_judge_ctx(flaws), [H1, H2, S1])
    orders = _by(out, "order")
    assert orders[f"{POOL}|peerlake:k1"].failed_call and orders[f"{POOL}|human:h1"].failed_call is None
    rec, events = record(make_judge_ctx(flaws), flaws, out)
    assert rec.failed == 1 and len(events) == 3

    judge_server.rules.clear()
    judge_server.answer("judge_flaws_extract", reply=Reply(status=400))
    pool = _by(flaws.judge(make_judge_ctx(flaws, temperature=0.1), [H1, H2, S1]), "pool")[POOL]
    assert pool.failed_call and pool.null_reason is None
