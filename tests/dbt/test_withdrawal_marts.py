"""The withdrawal marts built by real dbt over a hand-written lake, and the gate on withdrawal_detection.

The lake (events written one by one, then sealed):
  papers W1, W2, W3 have withdrawal notes (W1 two: the newer one counts); N1 has none.
  Study S: papers W1 W2 W3 N1; reviewer system cfg-mlr ("mlr") with K = 2 samples; imported system X;
           its withdrawals judge is jw (1 repeat; its newest experiment_withdrawals resolution).
  Study T: paper W1; cfg-mlr with K = 1; judge jw.
  Study U: S's papers and cfg-mlr, no imported system; judge jw2 with 2 repeats.
  Reviews: mlr W1/0 W1/1 W2/0 W2/1 W2/2 (beyond K) W3/0 N1/0; X W1; human h1 on W1.
  Judge configuration jw (1 repeat):
    exact   : mlr W1/0 no, W1/1 YES, W2/0 no, W2/1 no, W2/2 YES (beyond K: ignored), W3/0 null
              (unparseable); X W1 YES but against W1's OLD note (stale: not counted)
    similar : mlr W1/0 YES, W1/1 YES, W2/0 YES, W3/0 no; human h1 YES
  Judge configuration jw2, exact: mlr W2/0 YES in repeat 0; W2/0 no, W2/1 no in repeat 1; W1/0 YES in
  repeat 2 (beyond U's 2 repeats: not counted). S and T do not count jw2 (their resolutions name jw).
"""

import json
from datetime import UTC, datetime, timedelta

import pytest

from peerlake.expectations import run_gate
from peerlake.studies import resolution_event
from peerlake.warehouse import EventLog, Lake, PaperIngested
from peerlake.warehouse.events import (
    ExternalReviewImported,
    HumanReviewImported,
    JudgmentRecorded,
    SystemReviewRecorded,
    WithdrawalNoteImported,
)
from tests.dbt.test_marts import dbt_build
from tests.dbt.test_system_marts import rows

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


class _Lake:
    def __init__(self):
        self.events, self.at = [], T0

    def tick(self) -> datetime:
        self.at += timedelta(seconds=1)
        return self.at

    def add(self, cls, **kw):
        self.events.append(cls(occurred_at=self.tick(), **kw))
        return self.events[-1]

    def judgment(self, config, level, paper, review_key, repeat, match, note, status="ok"):
        units = [] if status != "ok" else [{"level": level, "match": match, "rationale": "r",
                                            "withdrawal_note_id": note.event_id, "note_source": "arxiv"}]
        self.add(JudgmentRecorded, judgment_key=f"k{len(self.events)}", judge="withdrawal_match", step=level,
                 judge_config=config, subject_key=f"{paper}|{review_key}", paper_id=paper, repeat=repeat,
                 status=status, null_reason=None if status == "ok" else f"unparseable:{level}",
                 units_json=json.dumps(units), dropped_json="{}", llm_call_ids_json="[]", request_keys_json="[]",
                 inputs_json=json.dumps({"withdrawal_note_id": note.event_id}))


def build_lake(root) -> dict:
    w = _Lake()
    for p in ("W1", "W2", "W3", "N1"):
        w.add(PaperIngested, paper_id=p, title=f"Paper {p}", source_uri=f"file:///{p}.pdf", pdf_sha256="a" * 64,
              package_sha256="b" * 64, n_pages=8, n_text_records=10, n_chars=1000)
    note = {}
    old_w1 = w.add(WithdrawalNoteImported, paper_id="W1", source="arxiv", note_id=None, comment_sha256="c" * 64,
                   comment_chars=10, line_no=1)
    for p in ("W1", "W2", "W3"):
        note[p] = w.add(WithdrawalNoteImported, paper_id=p, source="arxiv", note_id=None, comment_sha256="d" * 64,
                        comment_chars=20, line_no=2)
    rk = {}
    for p, s in (("W1", 0), ("W1", 1), ("W2", 0), ("W2", 1), ("W2", 2), ("W3", 0), ("N1", 0)):
        ev = w.add(SystemReviewRecorded, review_key=f"rv-{p}-{s}", system="mlr", system_config="cfg-mlr",
                   system_version=1, paper_id=p, package_sha256="b" * 64, sample_index=s, provider="openai",
                   model="gpt-t", status="ok", null_reason=None, review_json=json.dumps({"summary": "s"}),
                   score=5.0, score_scale="neurips_1_10", confidence=3.0, calls_json="[]", options_json="{}")
        rk[(p, s)] = f"peerlake:{ev.review_key}"
    w.add(ExternalReviewImported, paper_id="W1", review_id="x1", system="X", sample_index=0, score=None,
          confidence=None, body_sha256="e" * 64, source_path="x.jsonl", line_no=1)
    w.add(HumanReviewImported, paper_id="W1", review_id="h1", source="openreview_api_v2", venue="V", rating=3.0,
          rating_scale="V:1,3,5", confidence=None, body_sha256="f" * 64)
    j = w.judgment
    for (p, s), match in {("W1", 0): False, ("W1", 1): True, ("W2", 0): False, ("W2", 1): False,
                          ("W2", 2): True}.items():
        j("jw", "exact", p, rk[(p, s)], 0, match, note[p])
    j("jw", "exact", "W3", rk[("W3", 0)], 0, None, note["W3"], status="null")
    j("jw", "exact", "W1", "external:X:x1", 0, True, old_w1)
    for (p, s), match in {("W1", 0): True, ("W1", 1): True, ("W2", 0): True, ("W3", 0): False}.items():
        j("jw", "similar", p, rk[(p, s)], 0, match, note[p])
    j("jw", "similar", "W1", "human:h1", 0, True, note["W1"])
    j("jw2", "exact", "W2", rk[("W2", 0)], 0, True, note["W2"])
    j("jw2", "exact", "W2", rk[("W2", 0)], 1, False, note["W2"])
    j("jw2", "exact", "W2", rk[("W2", 1)], 1, False, note["W2"])
    j("jw2", "exact", "W1", rk[("W1", 0)], 2, True, note["W1"])
    mlr = {"reviewer_config": "cfg-mlr", "system": "mlr", "provider": "openai", "model": "gpt-t"}
    w.events.append(resolution_event("S", "s" * 64, ["W1", "W2", "W3", "N1"], [{**mlr, "samples": 2}], ["X"], "t",
                                     asset="system_reviews"))
    w.events.append(resolution_event("T", "t" * 64, ["W1"], [{**mlr, "samples": 1}], (), "t", asset="system_reviews"))
    w.events.append(resolution_event("U", "u" * 64, ["W1", "W2", "W3", "N1"], [{**mlr, "samples": 2}], (), "t",
                                     asset="system_reviews"))

    def judges(config, repeats):
        return [{"judge": "withdrawal_match", "judge_config": config, "provider": "openai", "model": "o3",
                 "repeats": repeats, "review_keys": []}]
    for study, papers, config, repeats in (("S", ["W1", "W2", "W3", "N1"], "jw", 1), ("T", ["W1"], "jw", 1),
                                           ("U", ["W1", "W2", "W3", "N1"], "jw2", 2)):
        w.events.append(resolution_event(study, study * 64, papers, [], ["X"] if study == "S" else (), "t",
                                         asset="experiment_withdrawals", judges=judges(config, repeats)))
    log = EventLog(Lake(root))
    log.append_many(w.events)
    log.seal()
    log.close()
    return {"old_w1": old_w1, "note": note}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("withdrawals_lake")
    lake = build_lake(root / "lake")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DBT_INDIRECT_SELECTION", "cautious")  # only tests whose every parent is built
        db, run_results = dbt_build(root / "lake", root, db=root / "marts.duckdb", select="+withdrawal_detection")
    return lake, db, run_results


def _mart(db) -> dict:
    return {(r["study_id"], r["reviewer_config"], r["judge_config"], r["match_level"]): r
            for r in rows(db, "select * from withdrawal_detection")}


def test_the_build_ran_the_models_and_their_tests(built):
    *_, run_results = built
    ran = {part: r["status"] for r in run_results["results"] for part in r["unique_id"].split(".")[2:]}
    for name in ("int_withdrawal_notes", "int_withdrawal_reviews", "int_withdrawal_judgments", "withdrawal_detection",
                 "withdrawal_detection_column_checks"):
        assert ran.get(name) in ("success", "pass"), (name, ran.get(name))


def test_the_newest_note_and_the_stale_judgment(built):
    lake, db, _ = built
    notes = {r["paper_id"]: r for r in rows(db, "select * from int_withdrawal_notes")}
    assert set(notes) == {"W1", "W2", "W3"}
    assert notes["W1"]["withdrawal_note_id"] == lake["note"]["W1"].event_id and notes["W1"]["n_notes"] == 2
    stale = rows(db, "select * from int_withdrawal_judgments where review_key = 'external:X:x1'")
    assert [(r["is_current_note"], r["is_match"], r["paper_id"]) for r in stale] == [(False, True, "W1")]
    null = rows(db, "select * from int_withdrawal_judgments where status = 'null'")
    assert [(r["is_match"], r["null_reason"]) for r in null] == [(None, "unparseable:exact")]


def test_scope(built):
    _, db, _ = built
    got = {(r["study_id"], r["review_key"]) for r in rows(db, "select * from int_withdrawal_reviews")}
    s = {("S", k) for k in ("peerlake:rv-W1-0", "peerlake:rv-W1-1", "peerlake:rv-W2-0", "peerlake:rv-W2-1",
                            "peerlake:rv-W3-0", "external:X:x1", "human:h1")}  # not W2/2 (K = 2), not N1
    t = {("T", k) for k in ("peerlake:rv-W1-0", "human:h1")}  # K = 1, no imported system
    u = {("U", k) for _, k in s if k != "external:X:x1"}  # human reviews are in every study's scope
    assert got == s | t | u


def test_accuracy_per_level_config_and_judge(built):
    _, db, _ = built
    m = _mart(db)
    # S: jw × {mlr, X, human} × 2 levels; T: jw × {mlr, human} × 2; U: jw2 × mlr × exact (jw2 read no human)
    assert len(m) == 11

    def check(key, n_papers, reviewed, repeats, decided, matched, accuracy, of_all, count, reason=None):
        r = m[key]
        assert (r["n_papers"], r["n_papers_reviewed"], r["n_repeats"], r["n_paper_repeats_decided"],
                r["n_paper_repeats_matched"], r["accuracy_null_reason"]) == (
            n_papers, reviewed, repeats, decided, matched, reason), key
        assert (r["accuracy"] is None) == (accuracy is None), key
        if accuracy is not None:
            assert r["accuracy"] == pytest.approx(accuracy), key
        assert r["accuracy_of_all"] == pytest.approx(of_all) and r["matched_count"] == pytest.approx(count), key

    # S exact, mlr: W1 matched (W1/1), W2 decided no (both no; W2/2 beyond K), W3 undecided (null judgment)
    #   accuracy 1/2; of all 1/3 (3 withdrawn papers); matched count 1
    check(("S", "cfg-mlr", "jw", "exact"), 3, 3, 1, 2, 1, 0.5, 1 / 3, 1)
    # S similar, mlr: W1 yes, W2 yes (W2/0; W2/1 not judged does not matter once one matches), W3 no
    #   accuracy 2/3; of all 2/3
    check(("S", "cfg-mlr", "jw", "similar"), 3, 3, 1, 3, 2, 2 / 3, 2 / 3, 2)
    # X: its only judgment read W1's old note → nothing decided: accuracy null, of all 0/3
    check(("S", "X", "jw", "exact"), 3, 1, 1, 0, 0, None, 0.0, 0, "not_judged")
    check(("S", "X", "jw", "similar"), 3, 1, 1, 0, 0, None, 0.0, 0, "not_judged")
    # human h1 (judged by jw at similar only): similar 1/1, of all 1/3; exact not judged
    check(("S", "human", "jw", "similar"), 3, 1, 1, 1, 1, 1.0, 1 / 3, 1)
    check(("S", "human", "jw", "exact"), 3, 1, 1, 0, 0, None, 0.0, 0, "not_judged")
    # U, jw2, 2 repeats (from U's resolution, not the 3 recorded): W2 matched in r0, decided no in r1; W1
    #   and W3 undecided in both (W1's repeat-2 YES is beyond U's repeats)
    #   accuracy 1/2; of all 1/(3 × 2) = 1/6; matched count 1/2 (a mean over repeats)
    check(("U", "cfg-mlr", "jw2", "exact"), 3, 3, 2, 2, 1, 0.5, 1 / 6, 0.5)
    assert not any(k[2] == "jw2" for k in m if k[0] != "U")  # S and T count their own judge only
    # T (W1, K = 1): W1/0 says no at exact, yes at similar; W1/1 is beyond its K
    check(("T", "cfg-mlr", "jw", "exact"), 1, 1, 1, 1, 0, 0.0, 0.0, 0)
    check(("T", "cfg-mlr", "jw", "similar"), 1, 1, 1, 1, 1, 1.0, 1.0, 1)
    assert m[("S", "cfg-mlr", "jw", "exact")]["reviewer_label"] == "mlr"
    assert m[("S", "cfg-mlr", "jw", "exact")]["n_null_judgments"] == 1
    assert m[("S", "X", "jw", "exact")]["n_reviews_not_judged"] == 1


def test_the_gate_passes_on_the_built_mart(built):
    _, db, _ = built
    result = run_gate("withdrawal_detection", db)
    assert result.success, result


def test_the_gate_refuses_a_zero_for_not_judged(built):
    import duckdb

    from peerlake.expectations.gates import validate_frame
    from peerlake.expectations.suite_withdrawal_detection import COLUMNS

    _, db, _ = built
    with duckdb.connect(str(db), read_only=True) as con:
        frame = con.execute(f"select {', '.join(COLUMNS)} from withdrawal_detection").df()
    bad = frame.copy()
    bad.loc[bad["accuracy"].isna(), "accuracy"] = 0.0  # "not judged" passed off as 0
    assert not validate_frame("withdrawal_detection", bad).success


def test_the_report_section_on_the_built_mart(built):
    from peerlake.report.data import ReportData, load
    from peerlake.report.withdrawals import section

    _, db, _ = built
    page = section(load(db, study="S"), {})
    assert "Judge configuration jw</h3>" in page and "jw2" not in page
    # mlr exact under jw: 1 of 3 papers, 33.3 % of all, 50.0 % of decided; X: not measured, with the reason
    assert "<td>1 / 3</td><td>33.3 %</td><td>50.0 %</td>" in page
    assert "not measured: no review of this configuration judged" in page
    assert "data:image/png;base64," in page
    assert "0.50 (mean of 2 repeats) / 3" in section(load(db, study="U"), {})
    # absent mart: a note naming it; built but empty (the study runs no [withdrawals]): nothing
    assert "Withdrawn papers: not shown — the warehouse's <code>withdrawal_detection</code> is not there" in section(
        ReportData(missing={"withdrawal_detection": "is not there"}), {})
    empty = load(db, study="no-such-study")
    assert empty.get("withdrawal_detection").empty and section(empty, {}) == ""
